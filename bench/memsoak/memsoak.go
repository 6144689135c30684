package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one run; main's flags set it.
type Config struct {
	Requests   int
	Conc       int
	Data       string   // passed to the mock as -data
	Mock       string   // a prebuilt binary; "" builds cmd/medspa-mock
	MockArgs   []string // extra mock arguments
	Warmup     float64  // share of Requests that is warm-up
	Growth     float64  // RSS growth allowed after the warm-up (0.10 = 10 %)
	MaxRSS     float64  // MB at every sample
	ResetEvery int      // writes between resets of the write account; 0: never
	Timeout    time.Duration
	CSV        string
	Seed       uint64
}

func (c Config) check() error {
	var errs []error
	if c.Requests <= 0 || c.Conc <= 0 {
		errs = append(errs, errors.New("-requests and -c must be positive"))
	}
	if c.Warmup < 0 || c.Warmup >= 1 {
		errs = append(errs, errors.New("-warmup must be in [0, 1)"))
	}
	if c.Growth < 0 || c.MaxRSS <= 0 || c.ResetEvery < 0 || c.Timeout <= 0 {
		errs = append(errs, errors.New("-growth, -reset-every must be ≥ 0; -max-rss, -timeout > 0"))
	}
	return errors.Join(errs...)
}

// unlimited is a custom plan whose limits never bind (docs/protocol.md §12).
const unlimited = `"plan":"custom","ratePerMinute":1e9,"burst":1000000000`

// driver is the load generator: the only client of the mock during a run.
type driver struct {
	cfg    Config
	base   string
	client *http.Client
	fatal  func(error) // ends the run with an error

	readKey, writeKey        string // "Bearer …"
	readPatients             []string
	oauthID, oauthSecret     string
	redirectURI, hookURL     string
	writeAccount             string
	wmu                      sync.RWMutex // writers hold it shared; a reset holds it alone
	w                        *writeTargets
	writeSeq, writes, resets atomic.Int64

	done            atomic.Int64 // requests answered or failed
	sampler         *sampler
	perKind         [kinds]atomic.Int64
	flows           atomic.Int64
	serverErrors    atomic.Int64
	transportErrors atomic.Int64
	deliveries      atomic.Int64

	mu             sync.Mutex
	unexpectedBy   map[string]int64
	firstTransport string
}

// writeTargets are the write account's records that writes refer to, made again at each reset.
type writeTargets struct {
	patient, product string
	slot             atomic.Int64 // the last appointment slot taken
}

// answer is a response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request of the mix and counts it. auth is "" (no credential), "basic" (the OAuth
// client, form body) or an Authorization value. It reports whether the status was want.
func (d *driver) do(k kind, want int, method, path string, body io.Reader, auth string) (answer, bool) {
	req, err := http.NewRequest(method, d.base+path, body)
	if err != nil {
		d.fatal(err)
		return answer{}, false
	}
	switch auth {
	case "":
	case "basic":
		req.SetBasicAuth(url.QueryEscape(d.oauthID), url.QueryEscape(d.oauthSecret))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	default:
		req.Header.Set("Authorization", auth)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	res, err := d.client.Do(req)
	d.sampler.count()
	d.perKind[k].Add(1)
	var a answer
	if err == nil {
		a = answer{status: res.StatusCode, header: res.Header}
		a.body, err = io.ReadAll(res.Body)
		res.Body.Close()
	}
	if err != nil {
		d.transportErrors.Add(1)
		d.mu.Lock()
		if d.firstTransport == "" {
			d.firstTransport = fmt.Sprintf("%s %s: %v", method, route(path), err)
		}
		d.mu.Unlock()
		return a, false
	}
	if a.status >= 500 {
		d.serverErrors.Add(1)
	}
	if a.status != want {
		d.unexpected(k, fmt.Sprintf("%s %s: %d", method, route(path), a.status))
		return a, false
	}
	if k == oauthFlow && strings.HasPrefix(path, "/oauth/token") {
		d.flows.Add(1)
	}
	return a, true
}

// route is a path without ids and query, for error counts.
func route(path string) string {
	path, _, _ = strings.Cut(path, "?")
	if parts := strings.Split(path, "/"); len(parts) > 4 {
		return strings.Join(parts[:4], "/") + "/…"
	}
	return path
}

func (d *driver) unexpected(k kind, what string) {
	d.mu.Lock()
	d.unexpectedBy[mix[k].name+": "+what]++
	d.mu.Unlock()
}

// admin calls the control surface or the API for setup (not counted in the load): body is JSON,
// out (if not nil) decodes the answer.
func (d *driver) admin(method, path, auth, body string, want int, out any) error {
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// setup makes the read account (patients, an OAuth client) and the write account.
func (d *driver) setup() error {
	var key struct{ Key, Account string }
	if err := d.admin("POST", "/__admin/api-keys", "", `{`+unlimited+`,"scopes":["*"]}`, 201, &key); err != nil {
		return err
	}
	d.readKey = "Bearer " + key.Key
	for i := range readAccountPatients {
		var p struct{ ID string }
		if err := d.admin("POST", "/api/v1/patients", d.readKey, patientBody(i), 201, &p); err != nil {
			return err
		}
		d.readPatients = append(d.readPatients, p.ID)
	}
	var client struct{ ClientID, ClientSecret string }
	body := fmt.Sprintf(`{%s,"scopes":["patients:read"],"account":%q,"redirectUris":[%q]}`, unlimited, key.Account, d.redirectURI)
	if err := d.admin("POST", "/__admin/oauth-clients", "", body, 201, &client); err != nil {
		return err
	}
	d.oauthID, d.oauthSecret = client.ClientID, client.ClientSecret
	if err := d.admin("POST", "/__admin/api-keys", "", `{`+unlimited+`,"scopes":["*"]}`, 201, &key); err != nil {
		return err
	}
	d.writeKey, d.writeAccount = "Bearer "+key.Key, key.Account
	return d.seedWriteAccount()
}

// seedWriteAccount makes what writes refer to: a patient, a product, a webhook endpoint.
func (d *driver) seedWriteAccount() error {
	var p, prd struct{ ID string }
	if err := d.admin("POST", "/api/v1/patients", d.writeKey, patientBody(0), 201, &p); err != nil {
		return err
	}
	if err := d.admin("POST", "/api/v1/products", d.writeKey, `{"sku":"MEMSOAK-1","name":"Soak","category":"consumable","price":100}`, 201, &prd); err != nil {
		return err
	}
	if err := d.admin("POST", "/api/v1/webhooks", d.writeKey, fmt.Sprintf(`{"url":%q,"events":["*"]}`, d.hookURL), 201, nil); err != nil {
		return err
	}
	d.w = &writeTargets{patient: p.ID, product: prd.ID}
	return nil
}

// resetWriteAccount empties the write account (POST /__admin/reset: records, webhook
// endpoints and idempotency keys go; keys, audit log and everything else the server keeps per
// request stay) and seeds it again, so stored records stay bounded while the bookkeeping that
// the run measures accumulates as it would.
func (d *driver) resetWriteAccount() error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.admin("POST", "/__admin/reset", "", fmt.Sprintf(`{"account":%q}`, d.writeAccount), 204, nil); err != nil {
		return err
	}
	d.resets.Add(1)
	return d.seedWriteAccount()
}

// receiver serves the webhook endpoint and the OAuth redirect URI on loopback.
func (d *driver) receiver() (*http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d.hookURL = "http://" + ln.Addr().String() + "/hook"
	d.redirectURI = "http://" + ln.Addr().String() + "/callback"
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/hook" {
			d.deliveries.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln)
	return srv, nil
}

// Run builds and starts the mock, drives the load, samples RSS and judges the curve. The error
// is for a run that could not be made (build, start, setup); a run that was made returns a
// Report, whose Pass says the verdict.
func Run(ctx context.Context, cfg Config, out io.Writer) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		return nil, errors.New("memsoak reads RSS from /proc: Linux only")
	}
	tmp, err := os.MkdirTemp("", "memsoak")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := cfg.Mock
	if bin == "" {
		if bin, err = buildMock(tmp); err != nil {
			return nil, err
		}
	}
	d := &driver{cfg: cfg, unexpectedBy: map[string]int64{}}
	hooks, err := d.receiver()
	if err != nil {
		return nil, err
	}
	defer hooks.Close()
	m, err := startMock(bin, cfg)
	if err != nil {
		return nil, err
	}
	defer m.stop()
	d.base = m.base
	d.client = &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 2 * cfg.Conc, MaxIdleConnsPerHost: 2 * cfg.Conc,
			IdleConnTimeout: 90 * time.Second, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if err := d.setup(); err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}

	runCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	var fatalOnce sync.Once
	var fatalErr error
	d.fatal = func(err error) {
		fatalOnce.Do(func() { fatalErr = err; cancel() })
	}
	r := &Report{Config: cfg, Binary: bin, PID: m.cmd.Process.Pid, Base: m.base}
	r.printHeader(out)
	s, err := newSampler(m.cmd.Process.Pid, cfg, &d.done, out)
	if err != nil {
		return nil, err
	}
	d.sampler = s
	start := time.Now()
	s.sample(start, false) // at rest, after the setup
	go s.run(start)
	var wg sync.WaitGroup
	for id := range cfg.Conc {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(id)))
			for runCtx.Err() == nil && d.done.Load() < int64(cfg.Requests) {
				d.unit(pick(rng), rng)
			}
		})
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	r.Samples = s.stop()
	d.settleDeliveries()
	if err := s.closeCSV(); err != nil {
		return nil, err
	}
	r.collect(d)
	switch {
	case fatalErr != nil:
		return r, fatalErr
	case ctx.Err() != nil:
		r.Incomplete = "interrupted"
	case runCtx.Err() != nil:
		r.Incomplete = fmt.Sprintf("stopped by -timeout %s", cfg.Timeout)
	}
	r.Verdict = judge(r.Samples, int64(cfg.Warmup*float64(cfg.Requests)), cfg.Growth, cfg.MaxRSS)
	return r, nil
}

// settleDeliveries waits, up to 5 s, for webhook deliveries of the last writes to arrive (until
// none comes for half a second), so the count is the run's.
func (d *driver) settleDeliveries() {
	last, quiet := d.deliveries.Load(), 0
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		if n := d.deliveries.Load(); n != last {
			last, quiet = n, 0
		} else if quiet++; quiet == 5 {
			return
		}
	}
}
