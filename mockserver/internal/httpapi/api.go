// Package httpapi is the mock server's API: /api/v1 (and its /v1 alias), /oauth and the OpenAPI
// documents. The request pipeline of docs/protocol.md §4 ("Order of checks") is composed in
// pipeline.go from one small step per file (mw_*.go); the handlers decode a request, call the
// store and encode its answer. The admin surface (mockserver/internal/admin) is apart; what it
// uses of the API is in admin.go.
//
// The domain (records, rules, validation) is the store's: this package turns HTTP into store
// calls and store errors into problem documents (httpcore.ProblemFor), and nothing else.
package httpapi

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Default OAuth token lifetimes of docs/protocol.md §5.
const (
	DefaultAccessTokenTTL  = time.Hour
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
)

// Options configure the API.
type Options struct {
	// Logger receives one metadata-only line per request (nil: none).
	Logger *slog.Logger
	// Strict also validates every /api/v1 request against the OpenAPI document (mw_strict.go).
	Strict bool
	// JournalSize bounds the request journal per account (<= 0: off).
	JournalSize int
	// AccessTokenTTL and RefreshTokenTTL are the OAuth token lifetimes (0: 1 h and 30 days).
	AccessTokenTTL, RefreshTokenTTL time.Duration
	// Webhooks delivers events and checks endpoint URLs (default: one with the default policy).
	Webhooks *webhook.Dispatcher
	// Durability is the data directory (nil: none): writes are answered once durable
	// (mw_durable.go).
	Durability Durability
	// Audit is the audit log (default: in memory, with the default retention).
	Audit *audit.Log
	// Bounds are the limits on what the API keeps for requests (zero fields: defaults).
	Bounds Bounds
	// RealTime is the time for what must not follow the admin clock (the credential-stuffing
	// guard); nil: time.Now. Tests replace it.
	RealTime func() time.Time
	// TrustedProxies are the peers whose X-Forwarded-For is believed (for IP allowlists):
	// the caller is the last hop a trusted proxy appended. Empty: none (the peer is the caller).
	TrustedProxies []netip.Prefix
	// Ready says whether the server can keep what it acknowledges (GET /readyz; nil: always).
	Ready func() error
	// CORSOrigins are the exact browser origins (scheme://host[:port]) /api/v1 answers
	// cross-origin (cors.go); none by default.
	CORSOrigins []string
}

// API is the API's HTTP surface: /api/v1 (and its /v1 alias), /oauth and the OpenAPI
// documents. Its fields are the state the pipeline's steps keep between requests; each is
// owned by the step named beside it.
type API struct {
	store *store.Store
	opts  Options

	keys    *auth.Registry     // authenticate: API keys
	oauth   *auth.OAuth        // authenticate and /oauth: clients, codes, tokens
	audit   *audit.Log         // audit: the hash-chained log of docs/protocol.md §10
	buckets rateLimits         // rateLimit: token buckets and daily quotas
	replays nonceCaches        // verifySignature: nonces seen within the replay window
	guard   stuffingGuard      // /oauth: failed client authentications per address
	ctl     *controls.Controls // journal, faults, stubbed: the test controls' state
	// started is when the API began, in real time: the nonces of before it are not in replays.
	started time.Time

	accessTTL, refreshTTL time.Duration

	// The pipeline (pipeline.go) and its route tables (routes.go).
	gate, apiChecks []check
	routes          *httpcore.Router[route] // route: the /api/v1 routes
	scopes          []string                // the scopes credentials may hold: the routes' and "*"
	knownQuery      map[string]bool         // journal: the query parameters of every route
}

// New returns the API over st and keys.
func New(st *store.Store, keys *auth.Registry, opts Options) *API {
	if opts.Webhooks == nil {
		opts.Webhooks = webhook.New(st, webhook.Options{})
	}
	if opts.Audit == nil {
		opts.Audit = audit.NewLog()
	}
	a := &API{store: st, keys: keys, opts: opts, oauth: auth.NewOAuth(), audit: opts.Audit,
		accessTTL: opts.AccessTokenTTL, refreshTTL: opts.RefreshTokenTTL}
	a.oauth.Rand = st.IDs().Rand() // seeded servers: reproducible codes and tokens
	if a.accessTTL <= 0 {
		a.accessTTL = DefaultAccessTokenTTL
	}
	if a.refreshTTL <= 0 {
		a.refreshTTL = DefaultRefreshTokenTTL
	}
	b := opts.Bounds
	a.ctl = controls.New(controls.Options{JournalSize: opts.JournalSize, JournalAccounts: b.JournalAccounts,
		JournalTotal: b.JournalTotal, ArmedFaults: b.ArmedFaults, Now: st.Clock().Now})
	a.replays.capacity = b.NoncesPerCredential
	a.guard.limit, a.guard.now = b.StuffingPairs, opts.RealTime
	a.oauth.MaxFamilies, a.oauth.MaxCodes = b.OAuthFamilies, b.OAuthCodes
	a.started = a.realNow()
	a.routes = httpcore.NewRouter(a.apiRoutes(), func(r *route) (string, string) { return r.method, r.pattern })
	a.scopes = routeScopes(a.routes.Routes)
	a.knownQuery = queryNameSet(a.routes.Routes, oauthQuery, adminQuery)
	a.buildPipeline()
	return a
}

// realNow is the real time (Options.RealTime), for what must not follow the admin clock.
func (a *API) realNow() time.Time {
	if a.opts.RealTime != nil {
		return a.opts.RealTime()
	}
	return time.Now()
}

// Store returns the API's store.
func (a *API) Store() *store.Store { return a.store }

// Keys returns the credential registry.
func (a *API) Keys() *auth.Registry { return a.keys }

// OAuth returns the OAuth registry (clients, codes, tokens), for persistence.
func (a *API) OAuth() *auth.OAuth { return a.oauth }

// newRequestID returns a fresh request id (req_…) for the time at on the server clock.
func (a *API) newRequestID(at time.Time) string { return a.store.IDs().New("req", at) }

// accountNow is the time on an account's clock.
func (a *API) accountNow(account string) time.Time { return a.store.Account(account).Clock().Now() }
