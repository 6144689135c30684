package mockserver

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
)

// WithTokenLifetimes sets the OAuth access and refresh token lifetimes (defaults 1 h and 30
// days; zero keeps a default). Expiry follows the client's account clock.
func WithTokenLifetimes(access, refresh time.Duration) Option {
	return func(o *options) { o.accessTTL, o.refreshTTL = access, refresh }
}

// OAuthClientParams describe an OAuth client to create (see CreateOAuthClient).
type OAuthClientParams = httpapi.OAuthClientParams

// OAuthClient is a created OAuth client; ClientSecret is shown only here.
type OAuthClient = httpapi.OAuthClient

// CreateOAuthClient registers an OAuth client; without Account it gets a fresh, empty account.
func (s *Server) CreateOAuthClient(p OAuthClientParams) (OAuthClient, error) {
	c, err := s.api.CreateOAuthClient(p)
	return c, httpapi.AsProblem(err)
}

// AuditEvent is one entry of an account's hash-chained audit log (docs/protocol.md §10).
type AuditEvent = audit.Event

// AuditEvents returns account's audit log, oldest first. Account "" is the server-level chain
// of denied requests whose credentials were unknown (they belong to no account).
func (s *Server) AuditEvents(account string) []AuditEvent { return s.api.AuditEvents(account) }

// VerifyAuditChain reports whether events (as AuditEvents returns them) form an intact hash
// chain: any edited, dropped or reordered event makes it false.
func VerifyAuditChain(events []AuditEvent) bool { return audit.Verify(events) }
