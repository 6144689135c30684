package mockserver

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
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

	closeMu sync.Mutex
	closed  bool
	closers []func() error // what the server opened or started besides the dispatcher (audit files, NewTest's listener), in order
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
	dataDir    string
	auditKeep  int
}

// WithLogger logs one metadata-only line per request (never bodies, PHI or credentials).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithTrustedProxy takes the caller's address from X-Forwarded-For (for IP allowlists): the
// last hop, the one the trusted proxy appended.
func WithTrustedProxy() Option { return func(o *options) { o.trustProxy = true } }

// WithoutAdmin turns the /__admin/ surface off (the Go methods still work).
func WithoutAdmin() Option { return func(o *options) { o.noAdmin = true } }

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

// WithStrictValidation validates every /api/v1 request against the OpenAPI document
// (api/openapi.yaml) before the handlers run, answering 422 validation_error (or 400) with the
// validator's findings as field errors. The document loads once per process, on first use.
func WithStrictValidation() Option { return func(o *options) { o.strict = true } }

// WithDataDir sets the server's data directory (docs/protocol.md §13). Every account's audit
// events are appended to its audit file there, DIR/audit/<account>/, before the request that
// caused them is answered, so none is ever lost: memory keeps the newest (WithAuditRetention),
// AuditEventsAfter pages through the rest, and a server started on the same directory loads
// them back. New fails when the directory cannot be used (another server holds it, say).
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// DefaultAuditRetention is how many of an account's newest audit events memory keeps unless
// WithAuditRetention says otherwise.
const DefaultAuditRetention = audit.DefaultRetention

// WithAuditRetention keeps the newest n audit events of each account in memory (default
// 100,000; n <= 0 keeps the default). Older events leave memory, stood for by the chain's
// checkpoint (AuditLog); under a data directory they stay in the account's audit file.
func WithAuditRetention(n int) Option { return func(o *options) { o.auditKeep = n } }

// DefaultJournalSize is how many requests the journal keeps per account unless WithJournalSize
// says otherwise.
const DefaultJournalSize = 10_000

// WithLoopbackListener makes NewTest serve over a real 127.0.0.1 listener instead of in-process.
func WithLoopbackListener() Option { return func(o *options) { o.listen = true } }

// New returns a server with no accounts; create keys with CreateAPIKey or POST /__admin/api-keys.
// It fails only on an invalid option (a PHI key that is not 32 bytes, say). Close the server
// when done with it.
func New(opts ...Option) (*Server, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.phiKey != nil && len(o.phiKey) != 32 {
		return nil, fmt.Errorf("mockserver: the PHI key must be 32 bytes (AES-256), not %d", len(o.phiKey))
	}
	auditLog, err := audit.Open(audit.Options{Retention: o.auditKeep, Dir: auditDir(o.dataDir)})
	if err != nil {
		return nil, fmt.Errorf("mockserver: the data directory's audit files: %w", err)
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
		AccessTokenTTL: o.accessTTL, RefreshTokenTTL: o.refreshTTL, Clock: s, Webhooks: hooks,
		JournalSize: journalSize(o.journal), Strict: o.strict, NoAdmin: o.noAdmin, Audit: auditLog})
	s.api = api
	s.closers = append(s.closers, auditLog.Close) // closed last: after NewTest's listener
	if !o.start.IsZero() {
		s.SetTime("", o.start)
	}
	return s, nil
}

// Close releases everything the server started: webhook delivery stops (workers end, in-flight
// attempts are cancelled, pending deliveries and retries are abandoned, idle connections to
// receivers close), and a listener NewTest started closes. No goroutine of the server is left.
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
	s.hooks.Close()
	return first
}

// auditDir is where the audit files are under a data directory ("" without one).
func auditDir(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "audit")
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
func (s *Server) Reset(account string) error { return httpapi.AsProblem(s.api.Reset(account)) }
