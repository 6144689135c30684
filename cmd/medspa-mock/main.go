// Command medspa-mock runs the MedSpa mock server standalone, for tests in any language.
//
//	medspa-mock -addr 127.0.0.1:8080
//
// At start it prints its base URL and a ready API key (plan enterprise, scope *). More keys,
// isolated accounts and every test control are under /__admin/ (see docs/mock-server.md): for
// test code, not browsers, and on a listener that is not loopback-only only with a token
// (-admin-token, or one generated and printed as MEDSPA_ADMIN_TOKEN at start).
// Every flag can also be set by an environment variable MEDSPA_MOCK_<FLAG> (upper case, dashes
// as underscores: MEDSPA_MOCK_SAVE_INTERVAL); a flag on the command line wins.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "medspa-mock:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	addr, start, fixtures, tlsCertOut, data, phiKey string
	adminToken, adminHosts                          string
	trustProxy, pprof                               string
	noAdmin                                         bool
	seed                                            uint64
	journal, maxConns, auditRetention, memoryLimit  int
	admin, useTLS, version, quiet, check            bool
	healthcheck                                     bool // healthcheck.go
	strict, privateHooks, loopbackHooks             bool
	predictableSecrets                              bool
	saveInterval                                    time.Duration
	apiKeys                                         keySpecs // known.go
	tlsHosts, tlsCAOut, corsOrigins                 string   // network.go
}

// parse reads flags, then MEDSPA_MOCK_* variables for the flags not given.
func parse(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("medspa-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	fs.Uint64Var(&c.seed, "seed", 0, "seed for ids and data (0: random); secrets stay random")
	fs.BoolVar(&c.predictableSecrets, "predictable-secrets", false, "INSECURE, for tests comparing whole answers: derive every key, secret and token from -seed")
	fs.StringVar(&c.start, "start", "", "freeze the server clock at this RFC 3339 time")
	fs.StringVar(&c.fixtures, "fixtures", "", "JSON fixtures file loaded at start into the printed account (skipped when -data holds a state)")
	fs.IntVar(&c.journal, "journal", mockserver.DefaultJournalSize, "request journal entries kept per account (0: off)")
	fs.BoolVar(&c.admin, "admin", true, "serve the /__admin/ control surface")
	fs.BoolVar(&c.noAdmin, "no-admin", false, "do not serve the /__admin/ control surface (same as -admin=false)")
	fs.StringVar(&c.adminToken, "admin-token", "", "bearer token every /__admin/ request must carry (also MEDSPA_ADMIN_TOKEN); generated and printed when the listener is not loopback-only")
	fs.StringVar(&c.adminHosts, "admin-host", "", "comma-separated host names (name or name:port) the /__admin/ surface answers to besides loopback and the listen address")
	fs.StringVar(&c.trustProxy, "trust-proxy", "", "believe X-Forwarded-For from these proxies: CIDRs or addresses, comma-separated (true: loopback)")
	fs.IntVar(&c.maxConns, "max-conns", mockserver.DefaultMaxConns, "connections open at once; beyond, new ones wait")
	fs.IntVar(&c.auditRetention, "audit-retention", mockserver.DefaultAuditRetention, "audit events kept in memory per account (older ones: the audit file under -data)")
	fs.BoolVar(&c.useTLS, "tls", false, "serve HTTPS (TLS 1.3 only) with a generated self-signed certificate")
	fs.StringVar(&c.tlsCertOut, "tls-cert-out", "", "where -tls writes its certificate (PEM; default under the temp directory)")
	fs.StringVar(&c.data, "data", "", "data directory: every acknowledged change survives a restart or a crash (an older single -data file is migrated into it)")
	fs.DurationVar(&c.saveInterval, "save-interval", 5*time.Minute, "no effect, accepted for compatibility (the data directory holds the state itself: nothing to compact)")
	fs.StringVar(&c.phiKey, "phi-key", "", "AES-256 key sealing PHI (64 hex digits or base64 of 32 bytes); default with -data: kept in <data>/phi.key")
	fs.BoolVar(&c.strict, "strict", false, "validate every /api/v1 request against the OpenAPI document before the handlers")
	fs.BoolVar(&c.privateHooks, "private-webhooks", false, "allow webhook endpoints on private and link-local addresses")
	fs.BoolVar(&c.loopbackHooks, "loopback-webhooks", false, "allow webhook endpoints on loopback when the listener is not loopback-only (a trusted network: they reach this host's services)")
	fs.IntVar(&c.memoryLimit, "memory-limit", defaultMemoryLimitMiB, "soft limit on the server's memory, in MiB: the garbage collector works harder near it; it rises with the data held, to the live heap plus a quarter (0: none; GOMEMLIMIT, when set, wins)")
	fs.StringVar(&c.pprof, "pprof", "", "serve Go's runtime profiles (net/http/pprof) on this loopback address, for finding what holds memory")
	fs.Var(&c.apiKeys, "api-key", "an API key known before start (repeatable; blank-separated in MEDSPA_MOCK_API_KEY): msk_test_<32 base62>[:plan=starter|professional|enterprise][:scopes=S1,S2], default plan enterprise, scopes *; or @FILE, one a line")
	fs.StringVar(&c.tlsHosts, "tls-hosts", "", "with -tls: more DNS names and IP addresses for the certificate, comma-separated (e.g. medspa-mock,10.88.0.5)")
	fs.StringVar(&c.tlsCAOut, "tls-ca-out", "", "with -tls: write the certificate's CA here (PEM), for clients elsewhere to trust")
	fs.StringVar(&c.corsOrigins, "cors-origins", "", "exact browser origins that may call /api/v1 (CORS), comma-separated, e.g. http://localhost:5173; never /__admin/")
	fs.BoolVar(&c.healthcheck, "healthcheck", false, "ask the server at -addr (on loopback; https with -tls) whether it is ready (GET /readyz), exit 0 if so: a container's health command")
	fs.BoolVar(&c.version, "version", false, "print the SDK version and exit")
	fs.BoolVar(&c.check, "check", false, "with -data: verify the data directory's files and audit chains, changing nothing, and exit (non-zero on damage)")
	fs.BoolVar(&c.quiet, "quiet", false, "do not log one line per request")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: medspa-mock [flags]\n\nRuns the MedSpa API mock server. Every flag may also come from MEDSPA_MOCK_<FLAG>. Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		env := "MEDSPA_MOCK_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok && !given[f.Name] && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("%s: %w", env, err)
			}
		}
	})
	if v, ok := os.LookupEnv("MEDSPA_ADMIN_TOKEN"); ok && c.adminToken == "" && envErr == nil {
		c.adminToken = v // the name docs/protocol.md §12 gives
	}
	if c.noAdmin {
		c.admin = false
	}
	return &c, envErr
}

// run parses flags, serves until ctx is done or SIGINT/SIGTERM arrives, then shuts down
// gracefully, finishing in-flight requests, and closes the data directory (-data).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if c.version {
		fmt.Fprintln(stdout, client.Version)
		return nil
	}
	if c.check {
		return checkData(c.data, stdout)
	}
	if c.healthcheck {
		return healthcheck(c, stdout)
	}
	nf, err := checkNetFlags(c) // network.go
	if err != nil {
		return err
	}
	if c.data != "" {
		if err := checkWritable(c.data); err != nil { // notready.go
			return serveNotReady(ctx, c, err, stdout, stderr)
		}
	}
	defer setMemoryLimit(c.memoryLimit)()
	opts := []mockserver.Option{mockserver.WithJournalSize(c.journal)}
	if !c.quiet {
		logOut := newLogBuffer(stderr) // one write per batch of lines, not per request
		defer logOut.Close()
		opts = append(opts, mockserver.WithLogger(slog.New(mockserver.NewLogHandler(logOut))))
	}
	if c.seed != 0 {
		opts = append(opts, mockserver.WithSeed(c.seed))
	}
	if c.predictableSecrets {
		if c.seed == 0 {
			return errors.New("-predictable-secrets needs -seed")
		}
		fmt.Fprintln(stderr, "medspa-mock: -predictable-secrets: every key, secret and token follows -seed; anyone who knows it can use them")
		opts = append(opts, mockserver.WithPredictableSecrets())
	}
	if c.start != "" {
		t, err := time.Parse(time.RFC3339, c.start)
		if err != nil {
			return fmt.Errorf("-start: %w", err)
		}
		opts = append(opts, mockserver.WithStartTime(t))
	}
	adminOpts, err := adminOptions(c, stdout)
	if err != nil {
		return err
	}
	opts = append(opts, adminOpts...)
	if proxies := trustedProxies(c.trustProxy); proxies != nil {
		opts = append(opts, mockserver.WithTrustedProxy(proxies...))
	}
	opts = append(opts, mockserver.WithConnLimits(mockserver.ConnLimits{MaxConns: c.maxConns}),
		mockserver.WithAuditRetention(c.auditRetention))
	if nf.corsOrigins != nil {
		opts = append(opts, mockserver.WithCORSOrigins(nf.corsOrigins...))
	}
	if c.strict {
		opts = append(opts, mockserver.WithStrictValidation())
	}
	if c.privateHooks {
		opts = append(opts, mockserver.WithPrivateWebhookURLs())
	}
	if !c.loopbackHooks { // a listener on the network must not let its users reach this host
		loopback, err := loopbackOnly(addrHost(c.addr))
		if err != nil {
			return fmt.Errorf("-addr: %w", err)
		}
		opts = append(opts, mockserver.WithLoopbackWebhooks(loopback))
	}
	if c.phiKey != "" {
		key, err := decodeKey(c.phiKey)
		if err != nil {
			return err
		}
		opts = append(opts, mockserver.WithPHIKey(key))
	}
	var migrated *v1Data
	if c.data != "" {
		if migrated, err = migrateV1(c, opts); err != nil {
			return fmt.Errorf("-data %s: %w", c.data, err)
		}
		opts = append(opts, mockserver.WithDataDir(c.data)) // -save-interval: no effect
	}
	srv, err := mockserver.New(opts...)
	if err != nil {
		return err
	}
	defer srv.Close() // after a clean shutdown, Close below already ran: a no-op then
	if c.pprof != "" {
		stop, err := servePprof(c.pprof)
		if err != nil {
			return err
		}
		defer stop()
	}

	apiKey, fresh, err := startKey(srv, c.data, "")
	if err != nil {
		return err
	}
	if err := provisionKeys(srv, nf.keys, apiKey.Account); err != nil { // known.go
		return err
	}
	if migrated != nil {
		fmt.Fprintf(stdout, "medspa-mock: migrated %s (medspa-mock-state/1) into the data directory; the old file is %s\n", c.data, migrated.backup)
	}
	if c.fixtures != "" && fresh {
		if err := loadFixtures(srv, apiKey.Account, c.fixtures); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	if c.admin && c.adminToken == "" && !loopbackAddr(ln.Addr()) { // adminOptions saw to it; never serve it open
		ln.Close()
		return fmt.Errorf("-addr %s is not loopback-only: the admin surface needs -admin-token (or -no-admin)", c.addr)
	}
	ln = srv.LimitListener(ln) // -max-conns, below TLS
	scheme := "http"
	if c.useTLS {
		cfg, certPath, err := newSelfSignedTLS(tlsSetup{certOut: c.tlsCertOut, caOut: c.tlsCAOut, hosts: nf.tlsHosts})
		if err != nil {
			ln.Close()
			return fmt.Errorf("-tls: %w", err)
		}
		ln = tls.NewListener(ln, cfg)
		scheme = "https"
		defer fmt.Fprintf(stdout, "medspa-mock: certificate left at %s\n", certPath)
		if c.tlsCAOut != "" {
			certPath = c.tlsCAOut // the CA alone
		}
		fmt.Fprintf(stdout, "MEDSPA_CA_CERT=%s\n", certPath)
	}
	base := scheme + "://" + ln.Addr().String()
	fmt.Fprintf(stdout, "MedSpa mock server listening on %s\n", base)
	fmt.Fprintf(stdout, "MEDSPA_BASE_URL=%s\n", base)
	fmt.Fprintf(stdout, "MEDSPA_API_KEY=%s\n", apiKey.Key)
	fmt.Fprintf(stdout, "account=%s\n", apiKey.Account)

	// The timeouts and head limit of docs/protocol.md §13; on a signal, in-flight requests end.
	serveErr := serveUntilSignal(ctx, srv.HTTPServer(), ln) // notready.go
	// With -data: the last compaction, even after a failed shutdown.
	if err := srv.Close(); err != nil {
		return errors.Join(serveErr, fmt.Errorf("closing: %w", err))
	}
	if serveErr != nil {
		return serveErr
	}
	fmt.Fprintln(stdout, "medspa-mock: stopped")
	return nil
}

// adminOptions are the server options of the admin surface (docs/protocol.md §12): off with
// -no-admin; else its token and extra host names. A listener that is not loopback-only never
// serves the surface without a token: one is generated (and printed, the only place it
// appears) unless given.
func adminOptions(c *config, stdout io.Writer) ([]mockserver.Option, error) {
	if !c.admin {
		return []mockserver.Option{mockserver.WithoutAdmin()}, nil
	}
	var opts []mockserver.Option
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return nil, fmt.Errorf("-addr: %w", err)
	}
	if host != "" && net.ParseIP(host) == nil {
		opts = append(opts, mockserver.WithAdminHosts(host)) // -addr names the server
	}
	for _, h := range strings.Split(c.adminHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts = append(opts, mockserver.WithAdminHosts(h))
		}
	}
	if c.adminToken == "" {
		loopback, err := loopbackOnly(host)
		if err != nil {
			return nil, fmt.Errorf("-addr: %w", err)
		}
		if !loopback {
			b := make([]byte, 32)
			if _, err := rand.Read(b); err != nil {
				return nil, err
			}
			c.adminToken = "madm_" + base64.RawURLEncoding.EncodeToString(b)
			fmt.Fprintf(stdout, "MEDSPA_ADMIN_TOKEN=%s\n", c.adminToken)
		}
	}
	if c.adminToken != "" {
		opts = append(opts, mockserver.WithAdminToken(c.adminToken))
	}
	return opts, nil
}

// loopbackOnly reports whether a listener on host (the host part of -addr) is reachable from
// this machine only: a loopback address, or a name whose every address is loopback. The
// empty host and unspecified addresses (0.0.0.0, ::) listen on every interface.
func loopbackOnly(host string) (bool, error) {
	if host == "" {
		return false, nil
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback(), nil
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(context.Background(), host)
	if err != nil {
		return false, err
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return false, nil
		}
	}
	return len(addrs) > 0, nil
}

// addrHost is the host part of -addr ("" when it has none, or it does not parse: the listener
// then fails with its own error).
func addrHost(addr string) string {
	host, _, _ := net.SplitHostPort(addr)
	return host
}

// loopbackAddr reports whether a listener's address is a loopback one.
func loopbackAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// trustedProxies reads -trust-proxy: a comma-separated list of CIDRs or addresses; "true" (the
// flag's old boolean form) is loopback, "false" or "" none (nil). New checks each entry.
func trustedProxies(v string) []string {
	switch strings.TrimSpace(v) {
	case "", "false":
		return nil
	case "true":
		return []string{} // WithTrustedProxy's default: loopback
	}
	return strings.Split(v, ",")
}

func decodeKey(s string) ([]byte, error) {
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, errors.New("the PHI key must be 32 bytes: 64 hex digits or base64")
}

// loadFixtures loads a JSON fixtures file (the body of POST /__admin/fixtures; its account,
// if any, is replaced by the printed key's).
func loadFixtures(srv *mockserver.Server, account, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var fx mockserver.Fixtures
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&fx); err != nil {
		return fmt.Errorf("-fixtures %s: %w", path, err)
	}
	if _, err := srv.LoadFixtures(account, fx); err != nil {
		return fmt.Errorf("-fixtures %s: %w", path, err)
	}
	return nil
}
