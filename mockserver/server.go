package mockserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/admin"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
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
	admin *admin.Surface // /__admin/ and the Go controls (tools.go, inspect.go, credentials.go)
	hooks *webhook.Dispatcher
	data  *persist.Engine // the data directory (WithDataDir), or nil

	closeMu sync.Mutex
	closed  bool
	closers []func() error // what the server opened or started besides the dispatcher (audit files, NewTest's listener), in order
}

// Option configures a Server.
type Option func(*options)

type options struct {
	logger       *slog.Logger
	trustProxy   []string // nil: no proxy trusted
	noAdmin      bool
	seed         uint64
	predictable  bool // WithPredictableSecrets
	phiKey       []byte
	listen       bool
	journal      int
	start        time.Time
	strict       bool
	accessTTL    time.Duration
	refreshTTL   time.Duration
	webhooks     webhook.Options
	adminToken   string
	adminHosts   []string
	dataDir      string
	compactEvery time.Duration // WithCompactInterval: unused (nothing to compact)
	auditKeep    int
	bounds       Bounds
	conn         ConnLimits
	realTime     func() time.Time // tests (export_test.go)
	corsOrigins  []string         // WithCORSOrigins (health.go)
}

// WithLogger logs one metadata-only line per request (never bodies, PHI or credentials), with
// message "request" and the attributes method, path, status, duration, request_id, and account
// and fault when known. Any slog handler will do.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// NewLogHandler returns the standalone binary's log handler: slog's TextHandler at its default
// level (Info), one line per Write to w (the binary batches them).
func NewLogHandler(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) }

// WithTrustedProxy names the proxies whose X-Forwarded-For the server believes (for IP
// allowlists; docs/protocol.md §5): CIDRs or addresses, such as "10.0.0.0/8" or "::1". A request
// whose peer is one of them is from the last X-Forwarded-For hop that is not a trusted proxy
// (read from the right: each hop is what the proxy before it appended; earlier hops can be
// forged). From any other peer, X-Forwarded-For is ignored and the peer's address counts. With
// no argument, the loopback addresses (127.0.0.0/8, ::1) are trusted: a proxy on the same
// machine. New fails on a CIDR that does not parse.
func WithTrustedProxy(cidrs ...string) Option {
	return func(o *options) {
		if len(cidrs) == 0 {
			cidrs = []string{"127.0.0.0/8", "::1/128"}
		}
		o.trustProxy = append(o.trustProxy, cidrs...)
	}
}

// parsePrefixes reads CIDRs or bare addresses.
func parsePrefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			ip, ierr := netip.ParseAddr(strings.TrimSpace(s))
			if ierr != nil {
				return nil, fmt.Errorf("mockserver: trusted proxy %q is neither a CIDR nor an address", s)
			}
			p = netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Bounds are the limits on what the server keeps in memory for requests (docs/protocol.md §13;
// RELIABILITY.md "Bounds" lists each with its default and what happens at it). A zero field keeps
// its default. The journal's per-account size and the audit retention have options of their own
// (WithJournalSize, WithAuditRetention).
type Bounds struct {
	// JournalAccounts is how many accounts' journals memory keeps (default 1,000): past it, the
	// journal of the least recently active account goes.
	JournalAccounts int
	// JournalTotal bounds the journal entries of all accounts together (default 200,000): past
	// it, the oldest entry of the least recently active account goes.
	JournalTotal int
	// NoncesPerCredential bounds the signature nonces remembered per credential within the
	// 600 s replay window (default 100,000): past it, that credential's new signed requests are
	// refused as replays (401 invalid_signature) until older nonces leave the window.
	NoncesPerCredential int
	// IdempotencyKeysPerAccount bounds an account's idempotency keys (default 100,000): past it,
	// the oldest completed keys are forgotten before their 24 h (a retry with one runs anew).
	IdempotencyKeysPerAccount int
	// IdempotencyBytesPerAccount bounds the bytes of an account's stored idempotent answers
	// (default 64 MiB): past it, the oldest completed keys are forgotten before their 24 h, down
	// to nine tenths of it (a retry with one runs anew, as after the 24 h).
	IdempotencyBytesPerAccount int
	// OAuthFamiliesPerClient bounds an OAuth client's live token families, one per
	// authorization or client-credentials grant (default 10,000): past it, the client's oldest
	// family is revoked.
	OAuthFamiliesPerClient int
	// OAuthCodesPerClient bounds an OAuth client's authorization codes (default 10,000): past it,
	// the oldest is forgotten (redeeming it fails with invalid_grant).
	OAuthCodesPerClient int
	// StuffingPairs bounds the (client address, tenant) pairs the credential-stuffing guard
	// counts in one minute (default 10,000): past it, new pairs share one counter (fail closed).
	StuffingPairs int
	// ArmedFaults bounds the faults armed at once (default 1,000): past it, InjectFault and
	// POST /__admin/faults are refused (422) until faults are used up or cleared.
	ArmedFaults int
	// WebhookQueue bounds each webhook endpoint's pending deliveries (default 10,000): past it,
	// the oldest is dropped and logged as dropped (docs/protocol.md §13).
	WebhookQueue int
	// WebhookBacklog bounds an account's events waiting to be fanned out to its endpoints
	// (default 10,000): past it, the oldest is dropped and logged.
	WebhookBacklog int
	// DeliveryLog bounds each account's delivery log (GET /__admin/deliveries; default 10,000)
	// and DeliveryLogTotal all accounts' logs together (default 100,000; the least recently
	// active account's oldest records go first).
	DeliveryLog, DeliveryLogTotal int
	// RecordedEvents bounds what one EventRecorder keeps (default 10,000).
	RecordedEvents int
}

// WithBounds sets the server's memory bounds (zero fields keep their defaults).
func WithBounds(b Bounds) Option { return func(o *options) { o.bounds = b } }

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

// WithSeed makes generated ids, request ids and data reproducible. Secrets (API keys, signing
// and webhook secrets, OAuth client secrets, codes and tokens) still come from crypto/rand,
// unless WithPredictableSecrets.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithPredictableSecrets derives every generated secret from the seed too (WithSeed, which it
// needs), so that with WithStartTime whole responses are byte-identical run after run. For
// tests that compare whole answers only: anyone who knows the seed knows every key, secret and
// token of the server.
func WithPredictableSecrets() Option { return func(o *options) { o.predictable = true } }

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

// DefaultAuditRetention is how many of an account's newest audit events memory keeps unless
// WithAuditRetention says otherwise.
const DefaultAuditRetention = 100_000

// WithAuditRetention keeps the newest n audit events of each account in memory (default
// 100,000; n <= 0 keeps the default). Older events leave memory, stood for by the chain's
// checkpoint (AuditLog); under a data directory they stay in the account's audit file.
func WithAuditRetention(n int) Option { return func(o *options) { o.auditKeep = n } }

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
	for _, origin := range o.corsOrigins {
		if err := CheckCORSOrigin(origin); err != nil {
			return nil, fmt.Errorf("mockserver: CORS %w", err)
		}
	}
	if o.dataDir != "" {
		key, err := persist.Key(o.dataDir, o.phiKey)
		if err != nil {
			return nil, fmt.Errorf("mockserver: data directory: %w", err)
		}
		o.phiKey = key
	}
	db, err := openDataFile(o.dataDir) // nil without a data directory
	if err != nil {
		return nil, err
	}
	auditLog, err := audit.Open(audit.Options{Retention: o.auditKeep, DB: db})
	if err != nil {
		closeDataFile(db)
		return nil, fmt.Errorf("mockserver: the data directory's audit files: %w", err)
	}
	proxies, err := parsePrefixes(o.trustProxy)
	if err != nil {
		auditLog.Close()
		closeDataFile(db)
		return nil, err
	}
	clk := clock.New()
	if o.webhooks.Policy == nil {
		o.webhooks.Policy = &webhook.Policy{}
	}
	ids := store.NewIDGen(o.seed)
	if o.predictable {
		if o.seed == 0 {
			auditLog.Close()
			return nil, errors.New("mockserver: WithPredictableSecrets needs WithSeed")
		}
		ids.PredictableSecrets(o.seed)
	}
	st := store.New(store.Options{Clock: clk, IDs: ids, Sealer: store.NewSealer(o.phiKey),
		WebhookURLs: o.webhooks.Policy.CheckURL, IdempotencyKeys: o.bounds.IdempotencyKeysPerAccount,
		IdempotencyBytes: o.bounds.IdempotencyBytesPerAccount})
	o.webhooks.QueueLimit, o.webhooks.BacklogLimit = o.bounds.WebhookQueue, o.bounds.WebhookBacklog
	o.webhooks.LogLimit, o.webhooks.LogTotalLimit = o.bounds.DeliveryLog, o.bounds.DeliveryLogTotal
	o.webhooks.RecorderLimit = o.bounds.RecordedEvents
	hooks := webhook.New(st, o.webhooks) // zero limits take the package's defaults
	s := &Server{opts: o, clock: clk, store: st, hooks: hooks}
	b := o.bounds
	api := httpapi.New(st, auth.NewRegistry(), httpapi.Options{Logger: o.logger, TrustedProxies: proxies,
		Bounds: httpapi.Bounds{JournalAccounts: b.JournalAccounts, JournalTotal: b.JournalTotal, NoncesPerCredential: b.NoncesPerCredential,
			StuffingPairs: b.StuffingPairs, OAuthFamilies: b.OAuthFamiliesPerClient, OAuthCodes: b.OAuthCodesPerClient,
			ArmedFaults: b.ArmedFaults},
		RealTime:       o.realTime,
		AccessTokenTTL: o.accessTTL, RefreshTokenTTL: o.refreshTTL, Webhooks: hooks,
		JournalSize: journalSize(o.journal), Strict: o.strict, Audit: auditLog,
		Ready: readiness(o.dataDir, o.logger), CORSOrigins: o.corsOrigins}) // health.go
	s.api = api
	s.admin = admin.New(api, admin.Options{Off: o.noAdmin, Token: o.adminToken, Hosts: o.adminHosts,
		Clock: s, RestoreClock: s.restoreClockLogged, Logger: o.logger})
	s.closers = append(s.closers, auditLog.Close) // closed last: after NewTest's listener
	fresh := true
	if o.dataDir != "" {
		if err := s.openData(db); err != nil { // it closes db on failure
			hooks.Close()
			auditLog.Close()
			return nil, err
		}
		fresh = s.data.Loaded().Fresh
	}
	s.startSweeper()
	s.closers = append(s.closers, func() error { s.admin.CloseStreams(); return nil }) // first to run: live streams end
	if !o.start.IsZero() && fresh {
		s.SetTime("", o.start)
	}
	return s, nil
}

// Close releases everything the server started: a listener NewTest started closes, the data
// directory (WithDataDir) is released, webhook delivery stops (workers end,
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
	if s.data != nil { // pending deliveries are written while they are pending
		if err := s.data.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.hooks.Close()
	return first
}

// startSweeper sweeps what expires (httpapi.API.Sweep: OAuth codes and tokens, nonces,
// idempotency keys, idle rate-limit states, the stuffing guard's finished minute) every
// httpapi.SweepInterval of real time, until Close.
func (s *Server) startSweeper() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(httpapi.SweepInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.api.Sweep()
			case <-stop:
				return
			}
		}
	}()
	s.closers = append(s.closers, func() error {
		close(stop)
		<-done
		return nil
	})
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

// ServeHTTP serves the admin surface (/__admin/, unless turned off), and everything else —
// the API, OAuth, the OpenAPI documents — through the API's pipeline, in the protocol's order
// of checks; see ARCHITECTURE.md ("The mock's request path").
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.admin.Serves(r) {
		s.admin.ServeHTTP(w, r)
		return
	}
	s.api.ServeHTTP(w, r)
}

// Reset empties an account's data (every account's when account is ""); keys survive.
func (s *Server) Reset(account string) error {
	return s.durableAfter(httpcore.AsProblem(s.admin.Reset(account)))
}
