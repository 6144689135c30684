package mockserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
	"github.com/medspa/medspa-go/mockserver/internal/persist"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Server is the mock server, an http.Handler. It is safe for concurrent use.
type Server struct {
	opts  options
	clock *clock.Clock
	store *store.Store
	api   *httpapi.API
	hooks *webhook.Dispatcher
	data  *persist.Engine // the data directory (WithDataDir), or nil

	closeMu sync.Mutex
	closed  bool
	closers []func() error // what the server started besides the dispatcher (NewTest's listener), in order
}

// Option configures a Server.
type Option func(*options)

type options struct {
	logger     *slog.Logger
	trustProxy bool
	noAdmin    bool
	seed       uint64
	phiKey     []byte
	listen     bool
	journal    int
	start      time.Time
	strict     bool
	accessTTL  time.Duration
	refreshTTL time.Duration
	webhooks   webhook.Options
	adminToken string
	adminHosts []string

	dataDir      string
	compactEvery time.Duration
}

// WithLogger logs one metadata-only line per request (never bodies, PHI or credentials).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithTrustedProxy takes the caller's address from X-Forwarded-For (for IP allowlists): the
// last hop, the one the trusted proxy appended.
func WithTrustedProxy() Option { return func(o *options) { o.trustProxy = true } }

// WithoutAdmin turns the /__admin/ surface off (the Go methods still work).
func WithoutAdmin() Option { return func(o *options) { o.noAdmin = true } }

// WithAdminToken makes every /__admin/ request need "Authorization: Bearer <token>" (401
// unauthorized otherwise, docs/protocol.md §12). Serve the admin surface on anything but a
// loopback listener only with one: cmd/medspa-mock generates it there. The token must be
// printable ASCII without spaces (it travels in a header); New refuses any other. The Go
// methods of the server need no token.
func WithAdminToken(token string) Option { return func(o *options) { o.adminToken = token } }

// WithAdminHosts adds Host values ("mock.internal" or "mock.internal:8080") the admin surface
// answers to, besides loopback names and addresses and the address a connection arrived at:
// the names a server on a network is reached by. Any other Host is refused 403
// host_not_allowed, so a web page that rebinds its own name to this machine cannot reach it.
func WithAdminHosts(hosts ...string) Option {
	return func(o *options) { o.adminHosts = append(o.adminHosts, hosts...) }
}

// WithSeed makes generated ids, request ids, API keys, signing secrets and OAuth client
// secrets, codes and tokens reproducible (with WithStartTime, responses are byte-identical).
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithPHIKey sets the 32-byte AES-256 key that seals PHI at rest (default: random per process);
// New fails on a key of any other length.
func WithPHIKey(key []byte) Option { return func(o *options) { o.phiKey = key } }

// WithJournalSize keeps the last n requests per account in the journal (default 10,000;
// n <= 0 turns the journal off).
func WithJournalSize(n int) Option {
	return func(o *options) {
		o.journal = n
		if n == 0 {
			o.journal = -1
		}
	}
}

// WithStartTime freezes the server clock at t from the start; with WithSeed, two runs of the
// same test produce byte-identical responses.
func WithStartTime(t time.Time) Option { return func(o *options) { o.start = t } }

// WithStrictValidation also validates every /api/v1 request against the OpenAPI document
// (api/openapi.yaml). A request gets the answer it gets without it — same status, code and
// fields — and, besides, 422 validation_error for what only the document refuses (a value the
// server would trim, say), listed after the server's own findings. The document loads once per
// process, on first use.
func WithStrictValidation() Option { return func(o *options) { o.strict = true } }

// DefaultJournalSize is how many requests the journal keeps per account unless WithJournalSize
// says otherwise.
const DefaultJournalSize = 10_000

// WithLoopbackListener makes NewTest serve over a real 127.0.0.1 listener instead of in-process.
func WithLoopbackListener() Option { return func(o *options) { o.listen = true } }

// New returns a server with no accounts (or, with WithDataDir, the accounts its directory
// holds); create keys with CreateAPIKey or POST /__admin/api-keys. It fails on an invalid
// option (a PHI key that is not 32 bytes, say) and on a data directory it cannot use. Close the
// server when done with it.
func New(opts ...Option) (*Server, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.phiKey != nil && len(o.phiKey) != 32 {
		return nil, fmt.Errorf("mockserver: the PHI key must be 32 bytes (AES-256), not %d", len(o.phiKey))
	}
	if !headerSafe(o.adminToken) {
		return nil, errors.New("mockserver: the admin token must be printable ASCII without spaces")
	}
	if o.dataDir != "" {
		key, err := persist.Key(o.dataDir, o.phiKey)
		if err != nil {
			return nil, fmt.Errorf("mockserver: data directory: %w", err)
		}
		o.phiKey = key
	}
	clk := clock.New()
	if o.webhooks.Policy == nil {
		o.webhooks.Policy = &webhook.Policy{}
	}
	st := store.New(store.Options{Clock: clk, IDs: store.NewIDGen(o.seed), Sealer: store.NewSealer(o.phiKey),
		WebhookURLs: o.webhooks.Policy.CheckURL})
	hooks := webhook.New(st, o.webhooks)
	s := &Server{opts: o, clock: clk, store: st, hooks: hooks}
	api := httpapi.New(st, auth.NewRegistry(), httpapi.Options{Logger: o.logger, TrustProxy: o.trustProxy,
		AccessTokenTTL: o.accessTTL, RefreshTokenTTL: o.refreshTTL, Clock: s, RestoreClock: s.restoreClockLogged, Webhooks: hooks,
		JournalSize: journalSize(o.journal), Strict: o.strict, NoAdmin: o.noAdmin,
		AdminToken: o.adminToken, AdminHosts: o.adminHosts})
	s.api = api
	fresh := true
	if o.dataDir != "" {
		if err := s.openData(); err != nil {
			hooks.Close()
			return nil, err
		}
		fresh = s.data.Replayed().Fresh
	}
	if !o.start.IsZero() && fresh {
		s.SetTime("", o.start)
	}
	return s, nil
}

// Close releases everything the server started: a listener NewTest started closes, the data
// directory (WithDataDir) is compacted and released, webhook delivery stops (workers end,
// in-flight attempts are cancelled, pending deliveries and retries are abandoned — kept in the
// data directory, if any — idle connections to receivers close). No goroutine of the server is
// left.
// The handler still answers requests made to it directly. Close is safe to call twice; it
// returns the first error met.
func (s *Server) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	closers := s.closers
	s.closers = nil
	s.closeMu.Unlock()
	var first error
	for i := len(closers) - 1; i >= 0; i-- {
		if err := closers[i](); err != nil && first == nil {
			first = err
		}
	}
	if s.data != nil { // a last compaction, pending deliveries included, while they are pending
		if err := s.data.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.hooks.Close()
	return first
}

// onClose makes Close release what f releases; after Close, f runs at once.
func (s *Server) onClose(f func() error) {
	s.closeMu.Lock()
	if !s.closed {
		s.closers = append(s.closers, f)
		s.closeMu.Unlock()
		return
	}
	s.closeMu.Unlock()
	_ = f()
}

// headerSafe reports whether s can travel as a bearer token: printable ASCII, no spaces.
func headerSafe(s string) bool {
	for i := range len(s) {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// journalSize is the journal bound an option asked for: 0 (not set) is the default, < 0 off.
func journalSize(n int) int {
	if n == 0 {
		return DefaultJournalSize
	}
	return max(n, 0)
}

// ServeHTTP serves the API, OAuth, the OpenAPI documents and (unless turned off) the admin
// surface. Every request takes one pipeline, in the protocol's order of checks; see
// ARCHITECTURE.md ("The mock's request path").
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.api.ServeHTTP(w, r) }

// Reset empties an account's data (every account's when account is ""); keys survive.
func (s *Server) Reset(account string) error {
	return s.durableAfter(httpapi.AsProblem(s.api.Reset(account)))
}
