package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

func TestTLS13Only(t *testing.T) {
	t.Parallel()
	certPath := filepath.Join(t.TempDir(), "cert.pem")
	cfg, err := selfSignedTLS(certPath, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mockserver.New()
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(tls.NewListener(ln, cfg)) }()
	t.Cleanup(func() { _ = hs.Close() })

	pemBytes, err := os.ReadFile(certPath)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatal("the written certificate does not parse")
	}
	get := func(tc *tls.Config, host string) error {
		tr := &http.Transport{TLSClientConfig: tc}
		defer tr.CloseIdleConnections()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("https://" + net.JoinHostPort(host, port) + "/api/v1/openapi.yaml")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if err := get(&tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS13}, host); err != nil {
			t.Fatalf("TLS 1.3 client via %s: %v", host, err)
		}
	}
	if err := get(&tls.Config{RootCAs: roots, MaxVersion: tls.VersionTLS12}, "127.0.0.1"); err == nil {
		t.Fatal("a TLS 1.2-only client connected")
	}
}

func TestParseFlagsAndEnv(t *testing.T) {
	t.Setenv("MEDSPA_MOCK_JOURNAL", "5")
	t.Setenv("MEDSPA_MOCK_SAVE_INTERVAL", "2s")
	t.Setenv("MEDSPA_MOCK_ADMIN", "false")
	t.Setenv("MEDSPA_MOCK_SEED", "9")
	c, err := parse([]string{"-seed", "7"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.journal != 5 || c.saveInterval != 2*time.Second || c.admin || c.seed != 7 {
		t.Fatalf("parsed %+v", c)
	}
	t.Setenv("MEDSPA_MOCK_JOURNAL", "many")
	if _, err := parse(nil, io.Discard); err == nil || !strings.Contains(err.Error(), "MEDSPA_MOCK_JOURNAL") {
		t.Fatalf("bad env value: %v", err)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	if err := run(context.Background(), []string{"-version"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.String()) != client.Version {
		t.Fatalf("-version printed %q", out.String())
	}
}

// started reads the start-up lines until the account line: base URL and key.
func started(t *testing.T, r io.Reader) (base, key string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "MEDSPA_BASE_URL="); ok {
			base = v
		}
		if v, ok := strings.CutPrefix(line, "MEDSPA_API_KEY="); ok {
			key = v
		}
		if strings.HasPrefix(line, "account=") {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return base, key
		}
	}
	t.Fatalf("the server did not start: %v", sc.Err())
	return "", ""
}

func sdk(t *testing.T, base, key string) *medspa.Client {
	t.Helper()
	c, err := medspa.New(medspa.WithBaseURL(base), medspa.WithAPIKey(key), medspa.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFixturesSeedAndStartInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fx := filepath.Join(dir, "fx.json")
	if err := os.WriteFile(fx, []byte(`{"patients":[{"firstName":"Fix","lastName":"Ture","email":"f@example.com","createdAt":"2025-01-01T00:00:00Z"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-quiet", "-fixtures", fx, "-seed", "3", "-start", "2026-11-22T10:00:00Z"}, pw, io.Discard)
		pw.Close()
	}()
	base, key := started(t, pr)
	page, _, err := sdk(t, base, key).Patients.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 1 || page.Data[0].FirstName != "Fix" || !page.Data[0].CreatedAt.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("fixtures: %+v", page.Data)
	}
	p, _, err := sdk(t, base, key).Patients.Create(context.Background(), &patients.CreateParams{FirstName: "N", LastName: "O", Email: "n@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.CreatedAt.Equal(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("-start: createdAt %v", p.CreatedAt)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A restart on the same -data directory keeps the data and prints the key it printed before
// (before the data directory, each restart minted another key in the same account); no file of
// the directory holds PHI or the key in plaintext, and none is readable by others.
func TestDataSurvivesRestart(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	p := startBinary(t, "-data", data)
	c := sdk(t, p.base, p.key)
	var ids []string
	for _, n := range []string{"Persephone", "Quetzalli"} {
		pt, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: n, LastName: "Uniquesurname", Email: strings.ToLower(n) + "@example.org", Notes: "allergic to penicillin"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, pt.ID)
	}
	p.stop(t, false)
	noPlaintext(t, data, "Persephone", "Quetzalli", "Uniquesurname", "example.org", "penicillin")
	if fi, err := os.Stat(data); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data directory mode: %v %v", fi.Mode(), err)
	}

	again := startBinary(t, "-data", data)
	defer again.stop(t, false)
	if again.key != p.key || again.account != p.account {
		t.Fatalf("the restart printed key %s (%s), want %s (%s): a restart mints no key", again.key, again.account, p.key, p.account)
	}
	page, _, err := sdk(t, again.base, again.key).Patients.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 2 || page.Data[0].ID != ids[0] || page.Data[1].FirstName != "Quetzalli" || page.Data[1].Notes != "allergic to penicillin" {
		t.Fatalf("after restart: %+v", page.Data)
	}
}

func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-quiet"}, pw, io.Discard)
		pw.Close()
	}()
	base, key := started(t, pr)
	resp, err := http.Post(base+"/__admin/faults", "application/json", strings.NewReader(`{"delayMs":500,"times":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wrote := make(chan struct{})
	var once sync.Once
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) }}
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", base+"/api/v1/patients", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := make(chan int, 1)
	go func() {
		// A connection of its own: Shutdown closes idle keep-alive connections, not new ones.
		tr := &http.Transport{DisableKeepAlives: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Error(err)
			res <- 0
			return
		}
		resp.Body.Close()
		res <- resp.StatusCode
	}()
	<-wrote
	// Written is not yet accepted: give the server a moment to take the request into its
	// handler (the fault keeps it there for 500 ms).
	time.Sleep(50 * time.Millisecond)
	cancel()
	if st := <-res; st != 200 {
		t.Fatalf("in-flight request during shutdown: %d", st)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestAdminOptions: a listener that is not loopback-only never serves the admin surface
// without a token: one is generated and printed unless given; -no-admin turns it off.
func TestAdminOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr, token string
		noAdmin     bool
		generated   bool // a token is generated and printed
	}{
		{addr: "127.0.0.1:8080"},
		{addr: "[::1]:8080"},
		{addr: "localhost:8080"},
		{addr: "127.0.0.1:0", token: "given-token"},
		{addr: ":8080", generated: true},
		{addr: "0.0.0.0:8080", generated: true},
		{addr: "[::]:8080", generated: true},
		{addr: "192.0.2.7:8080", generated: true},
		{addr: "0.0.0.0:8080", token: "given-token"},
		{addr: "0.0.0.0:8080", noAdmin: true},
	}
	for _, tc := range cases {
		c := &config{addr: tc.addr, adminToken: tc.token, admin: !tc.noAdmin}
		var out strings.Builder
		opts, err := adminOptions(c, &out)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		printed, hasLine := strings.CutPrefix(strings.TrimSpace(out.String()), "MEDSPA_ADMIN_TOKEN=")
		if hasLine != tc.generated || (tc.generated && (!strings.HasPrefix(printed, "madm_") || len(printed) != len("madm_")+43 || c.adminToken != printed)) {
			t.Errorf("%s token %q: printed %q", tc.addr, tc.token, out.String())
		}
		if tc.token != "" && c.adminToken != tc.token {
			t.Errorf("%s: the given token became %q", tc.addr, c.adminToken)
		}
		// The options build a server that enforces what was decided.
		srv, err := mockserver.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		r := httptest.NewRequest("GET", "/__admin/clock", nil)
		r.Host = "127.0.0.1"
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		want := 200
		switch {
		case tc.noAdmin:
			want = 404
		case c.adminToken != "":
			want = 401
		}
		if w.Code != want {
			t.Errorf("%s token %q noAdmin %v: GET /__admin/clock %d, want %d", tc.addr, tc.token, tc.noAdmin, w.Code, want)
		}
	}
	// Two generated tokens differ.
	a, b := &config{addr: ":1", admin: true}, &config{addr: ":1", admin: true}
	_, _ = adminOptions(a, io.Discard)
	_, _ = adminOptions(b, io.Discard)
	if a.adminToken == b.adminToken {
		t.Fatal("generated admin tokens repeat")
	}
}

func TestAdminFlagsAndEnv(t *testing.T) {
	c, err := parse([]string{"-no-admin"}, io.Discard)
	if err != nil || c.admin {
		t.Fatalf("-no-admin: %+v %v", c, err)
	}
	t.Setenv("MEDSPA_ADMIN_TOKEN", "from-env")
	if c, err = parse(nil, io.Discard); err != nil || c.adminToken != "from-env" {
		t.Fatalf("MEDSPA_ADMIN_TOKEN: %+v %v", c, err)
	}
	t.Setenv("MEDSPA_MOCK_ADMIN_TOKEN", "from-mock-env")
	if c, err = parse(nil, io.Discard); err != nil || c.adminToken != "from-mock-env" {
		t.Fatalf("MEDSPA_MOCK_ADMIN_TOKEN: %+v %v", c, err)
	}
	if c, err = parse([]string{"-admin-token", "from-flag", "-admin-host", "a.example, b.example:80"}, io.Discard); err != nil || c.adminToken != "from-flag" ||
		c.adminHosts != "a.example, b.example:80" {
		t.Fatalf("-admin-token: %+v %v", c, err)
	}
}

// TestAdminTokenServed: the binary's admin surface takes the token it was given, and the
// printed API key still works without it.
func TestAdminTokenServed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-quiet", "-admin-token", "tok-served"}, pw, io.Discard)
		pw.Close()
	}()
	base, key := started(t, pr)
	get := func(auth string) int {
		req, _ := http.NewRequest("GET", base+"/__admin/clock", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := get(""); st != 401 {
		t.Errorf("no token: %d", st)
	}
	if st := get("Bearer tok-served"); st != 200 {
		t.Errorf("token: %d", st)
	}
	if _, _, err := sdk(t, base, key).Patients.List(context.Background(), nil); err != nil {
		t.Errorf("API key: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
