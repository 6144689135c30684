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
	cfg, err := selfSignedTLS(certPath)
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
	page, err := sdk(t, base, key).Patients.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 1 || page.Data[0].FirstName != "Fix" || !page.Data[0].CreatedAt.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("fixtures: %+v", page.Data)
	}
	p, err := sdk(t, base, key).Patients.Create(context.Background(), &patients.CreateParams{FirstName: "N", LastName: "O", Email: "n@example.com"})
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
		pt, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: n, LastName: "Uniquesurname", Email: strings.ToLower(n) + "@example.org", Notes: "allergic to penicillin"})
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
	page, err := sdk(t, again.base, again.key).Patients.List(context.Background(), nil)
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
