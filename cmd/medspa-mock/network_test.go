package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/patients"
)

// TestBadNetFlags: a malformed -api-key, -tls-hosts entry or CORS origin stops the start with
// one line naming the flag and the problem, before anything is created (no data directory),
// and a key is never echoed.
func TestBadNetFlags(t *testing.T) {
	t.Parallel()
	const key = "msk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB"
	keyFile := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keyFile, []byte("# CI keys\n"+key+"\nmsk_test_short:plan=starter\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-api-key", "msk_test_tooShortSecret123"}, "-api-key #1: a key is msk_test_"},
		{[]string{"-api-key", "msk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB"}, "-api-key #1: a key is msk_test_"},
		{[]string{"-api-key", key + ":plan=gold"}, `-api-key #1: plan "gold"`},
		{[]string{"-api-key", key + ":scopes=patients:read,patients:delete"}, `-api-key #1: scope "patients:delete"`},
		{[]string{"-api-key", key + ":colour=red"}, `-api-key #1: "colour=" is not`},
		{[]string{"-api-key", key, "-api-key", key + ":plan=starter"}, "-api-key #2: the same key is given twice"},
		{[]string{"-api-key", "@" + keyFile}, "-api-key @" + keyFile + " line 3: a key is msk_test_"},
		{[]string{"-api-key", "@" + keyFile + ".missing"}, "-api-key #1: open"},
		{[]string{"-tls", "-tls-hosts", "medspa-mock,bad host"}, `-tls-hosts: "bad host" is neither an IP address nor a DNS name`},
		{[]string{"-tls", "-tls-hosts", "medspa-mock,,10.0.0.5"}, "-tls-hosts: entry 2 is empty"},
		{[]string{"-tls", "-tls-hosts", "medspa-mock,300.1.1.1"}, `-tls-hosts: "300.1.1.1" is neither an IP address nor a DNS name`},
		{[]string{"-tls-hosts", "medspa-mock"}, "-tls-hosts and -tls-ca-out need -tls"},
		{[]string{"-cors-origins", "http://localhost:5173/app"}, `-cors-origins: origin "http://localhost:5173/app": an origin is scheme://host[:port] only`},
		{[]string{"-cors-origins", "*"}, `-cors-origins: origin "*": not scheme://host[:port]`},
		{[]string{"-cors-origins", "ftp://example.test"}, "-cors-origins: origin \"ftp://example.test\": the scheme must be http or https"},
		{[]string{"-cors-origins", "http://LOCALHOST:5173"}, "in lower case"},
	} {
		data := filepath.Join(t.TempDir(), "data")
		err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0", "-quiet", "-data", data}, tc.args...), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err %v, want one line with %q", tc.args, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "AAAAAAAAAAAAAAAA") {
			t.Errorf("%q: the error echoes a key: %v", tc.args, err)
		}
		if _, serr := os.Stat(data); !os.IsNotExist(serr) {
			t.Errorf("%q: the data directory was created", tc.args)
		}
	}
}

// TestKnownAPIKeys: keys given with -api-key and MEDSPA_MOCK_API_KEY work from the first
// request with their plan and scopes, in the printed key's account; after a restart on the
// same -data, giving them again is fine and they still work.
func TestKnownAPIKeys(t *testing.T) {
	t.Parallel()
	const writer = "msk_test_CIwriterCIwriterCIwriterCIwriter"
	const reader = "msk_test_CIreaderCIreaderCIreaderCIreader"
	data := filepath.Join(t.TempDir(), "data")
	args := []string{"-data", data, "-api-key", writer + ":plan=professional:scopes=patients:write", "-api-key", reader + ":scopes=patients:read"}
	p := startBinary(t, args...)
	pt, _, err := sdk(t, p.base, writer).Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Known", LastName: "Key", Email: "k@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sdk(t, p.base, reader).Patients.Create(context.Background(), &patients.CreateParams{FirstName: "No", LastName: "Scope", Email: "n@example.com"}); !errors.Is(err, medspa.ErrInsufficientScope) {
		t.Fatalf("the read-only key wrote: %v", err)
	}
	p.stop(t, false)

	again := startBinary(t, args...)
	defer again.stop(t, false)
	for _, k := range []string{reader, again.key} { // the printed key shares the account
		got, _, err := sdk(t, again.base, k).Patients.Get(context.Background(), pt.ID)
		if err != nil || got.FirstName != "Known" {
			t.Fatalf("after the restart, %s…: %v, %v", k[:12], got, err)
		}
	}
}

// TestAPIKeyFromEnv: MEDSPA_MOCK_API_KEY holds one or more blank-separated specs; -api-key on
// the command line wins.
func TestAPIKeyFromEnv(t *testing.T) {
	const a, b = "msk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "msk_test_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	t.Setenv("MEDSPA_MOCK_API_KEY", a+" \n"+b+":plan=starter")
	c, err := parse(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := knownKeys(c.apiKeys)
	if err != nil || len(keys) != 2 || keys[0].key != a || keys[1].plan != "starter" || keys[0].plan != "enterprise" {
		t.Fatalf("%+v, %v", keys, err)
	}
	if c, _ = parse([]string{"-api-key", b}, io.Discard); len(c.apiKeys) != 1 || c.apiKeys[0] != b {
		t.Fatalf("the flag did not win: %q", c.apiKeys)
	}
}

// TestTLSHostsAndCA: -tls-hosts names go into the certificate, -tls-ca-out writes the CA that
// signs it, and a client trusting only that CA reaches the server by one of those names (the
// connection itself on loopback) with the SDK's WithCAFile.
func TestTLSHostsAndCA(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-quiet", "-tls", "-tls-hosts", "medspa-mock,10.88.0.5,fd00::5",
			"-tls-ca-out", caFile, "-tls-cert-out", filepath.Join(dir, "cert.pem")}, pw, io.Discard)
		pw.Close()
	}()
	var base, key, caLine string
	sc := bufio.NewScanner(pr)
	for sc.Scan() && (base == "" || key == "" || caLine == "") {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "MEDSPA_BASE_URL="); ok {
			base = v
		}
		if v, ok := strings.CutPrefix(line, "MEDSPA_API_KEY="); ok {
			key = v
		}
		if v, ok := strings.CutPrefix(line, "MEDSPA_CA_CERT="); ok {
			caLine = v
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if caLine != caFile {
		t.Fatalf("MEDSPA_CA_CERT=%q, want %q", caLine, caFile)
	}
	pemBytes, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatal("the CA file holds no certificate")
	}
	block, _ := pem.Decode(pemBytes)
	if ca, err := x509.ParseCertificate(block.Bytes); err != nil || !ca.IsCA {
		t.Fatalf("-tls-ca-out is not a CA: %v", err)
	}
	addr := strings.TrimPrefix(base, "https://")
	for _, name := range []string{"medspa-mock", "10.88.0.5", "fd00::5", "localhost", "127.0.0.1"} {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: name, MinVersion: tls.VersionTLS13})
		if err != nil {
			t.Fatalf("as %s: %v", name, err)
		}
		conn.Close()
	}
	if conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "other-host"}); err == nil {
		conn.Close()
		t.Fatal("the certificate covers other-host")
	}
	// The SDK, trusting the CA file, through the name the certificate now carries.
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS13},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	_, port, _ := net.SplitHostPort(addr)
	c, err := medspa.New(medspa.WithBaseURL("https://medspa-mock:"+port), medspa.WithAPIKey(key), medspa.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Patients.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestDataNotWritable: -data that cannot be written starts a server that says why on /readyz
// (503) and in its log, answers /healthz, and accepts nothing else (503).
func TestDataNotWritable(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var log strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data", filepath.Join(blocker, "data")}, pw, &log)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.Contains(line, "(not ready)") {
		t.Fatalf("start line %q, %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base := strings.Fields(line)[5]
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 503, "/api/v1/patients": 503} {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(`{}`))
		if path != "/api/v1/patients" {
			resp, err = http.Get(base + path)
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (path == "/readyz" && !strings.Contains(string(b), "not writable")) {
			t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, b, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "not ready: data directory") || !strings.Contains(log.String(), "not writable") {
		t.Fatalf("log: %q", log.String())
	}
}

// TestHealthcheckFlag: -healthcheck exits cleanly against a ready server at -addr, and fails
// with one line when nothing answers or the server is not ready.
func TestHealthcheckFlag(t *testing.T) {
	t.Parallel()
	p := startBinary(t)
	defer p.stop(t, false)
	addr := strings.TrimPrefix(p.base, "http://")
	var out strings.Builder
	if err := run(context.Background(), []string{"-healthcheck", "-addr", addr}, &out, io.Discard); err != nil || !strings.Contains(out.String(), "ready") {
		t.Fatalf("ready server: %v, %q", err, out.String())
	}
	// A server on IPv6 loopback is asked there, not on 127.0.0.1.
	p6 := startBinary(t, "-addr", "[::1]:0")
	defer p6.stop(t, false)
	out.Reset()
	if err := run(context.Background(), []string{"-healthcheck", "-addr", strings.TrimPrefix(p6.base, "http://")}, &out, io.Discard); err != nil || !strings.Contains(out.String(), "ready") {
		t.Fatalf("ready server on [::1]: %v, %q", err, out.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().String()
	ln.Close()
	if err := run(context.Background(), []string{"-healthcheck", "-addr", free}, io.Discard, io.Discard); err == nil || !strings.HasPrefix(err.Error(), "-healthcheck:") {
		t.Fatalf("nothing listening: %v", err)
	}
}
