package client_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
)

// TestWithRootCAsTrustsAServerCA: a TLS server whose certificate no system root signs is
// refused by default, and reached through the default transport once its CA is trusted with
// WithRootCAs (or WithCAFile); as a per-call option it is refused.
func TestWithRootCAsTrustsAServerCA(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, true, answerJSON)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	route := client.Path("patients", "pat_1")

	_, _, err := client.Call[obj](context.Background(), engine(t, srv.URL, client.WithMaxRetries(0)), http.MethodGet, route, nil)
	var verr *tls.CertificateVerificationError
	if !errors.As(err, &verr) {
		t.Fatalf("without the CA: err %v, want a certificate verification error", err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]client.Option{"WithRootCAs": client.WithRootCAs(caPEM), "WithCAFile": client.WithCAFile(caFile)} {
		got, _, err := client.Call[obj](context.Background(), engine(t, srv.URL, opt), http.MethodGet, route, nil)
		if err != nil || got.ID != "pat_1" {
			t.Fatalf("%s: %v, %v", name, got, err)
		}
	}
}

// TestWithRootCAsBadInput: PEM without a certificate, or a CA file that is not there, fails New
// with the option named.
func TestWithRootCAsBadInput(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]client.Option{
		"WithRootCAs": client.WithRootCAs([]byte("not a certificate")),
		"WithCAFile":  client.WithCAFile(filepath.Join(t.TempDir(), "missing.pem")),
	} {
		_, err := client.NewEngine(client.WithBaseURL("https://api.example.test"), opt)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want one naming it", name, err)
		}
	}
}

// TestPlainHTTPToANamedHost: plain http to a host that is not loopback is refused with a
// message naming both ways out; WithInsecurePlainHTTPHost allows exactly the named host, and
// the request goes out on the wire with that Host.
func TestPlainHTTPToANamedHost(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, answerJSON)
	// A container network's name, resolved here to the scripted server.
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}}
	const base = "http://medspa-mock:8080"
	_, err := client.NewEngine(client.WithAPIKey("msk_test_k"), client.WithBaseURL(base), client.WithHTTPClient(hc))
	if err == nil || !strings.Contains(err.Error(), "WithInsecurePlainHTTPHost") || !strings.Contains(err.Error(), "WithRootCAs") {
		t.Fatalf("err %v, want a refusal naming WithInsecurePlainHTTPHost and WithRootCAs", err)
	}
	if _, err := client.NewEngine(client.WithAPIKey("msk_test_k"), client.WithBaseURL(base), client.WithInsecurePlainHTTPHost("other-host")); err == nil {
		t.Fatal("another host's opt-in allowed medspa-mock")
	}
	e := engine(t, base, client.WithHTTPClient(hc), client.WithInsecurePlainHTTPHost("MEDSPA-MOCK"))
	got, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil)
	if err != nil || got.ID != "pat_1" {
		t.Fatalf("%v, %v", got, err)
	}
	seen, _ := srv.requests()
	if len(seen) != 1 || seen[0].Host != "medspa-mock:8080" || seen[0].Header.Get("Authorization") != "Bearer msk_test_secretvalue" {
		t.Fatalf("on the wire: %+v", seen)
	}
}

// TestPlainHTTPRedirectsFollowTheOptIn: with WithInsecurePlainHTTPHost, a redirect to plain
// http stays allowed to the named host only; to any other host that is not loopback it is
// refused as before.
func TestPlainHTTPRedirectsFollowTheOptIn(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/patients/pat_1":
			redirectTo(http.StatusFound, "http://medspa-mock:8080/api/v1/patients/pat_2")(w, r)
		case "/api/v1/patients/pat_3":
			redirectTo(http.StatusFound, "http://elsewhere.test:8080/api/v1/patients/pat_2")(w, r)
		default:
			answerJSON(w, r)
		}
	})
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}}
	e := engine(t, "http://medspa-mock:8080", client.WithHTTPClient(hc), client.WithInsecurePlainHTTPHost("medspa-mock"))
	if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil {
		t.Fatalf("redirect within the named host: %v", err)
	}
	_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_3"), nil)
	var re *client.RedirectError
	if !errors.As(err, &re) || re.Rule != client.RedirectInsecure {
		t.Fatalf("redirect to another plain-http host: %v", err)
	}
}

// TestPlainHTTPHostTakesAHostOnly: a host given with a port, a scheme or nothing at all fails
// New naming the option and what to give, instead of being ignored (and the refusal of plain
// http then asking for the option the caller gave); a bare name or an IP address is taken.
func TestPlainHTTPHostTakesAHostOnly(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"medspa-mock:8080", "http://medspa-mock", "medspa-mock/api", ""} {
		_, err := client.NewEngine(client.WithAPIKey("msk_test_k"), client.WithBaseURL("http://medspa-mock:8080"), client.WithInsecurePlainHTTPHost(h))
		if err == nil || !strings.Contains(err.Error(), "WithInsecurePlainHTTPHost") || !strings.Contains(err.Error(), "host name or IP address only") {
			t.Errorf("%q: err %v, want one naming the option and asking for the host only", h, err)
		}
	}
	for base, h := range map[string]string{"http://medspa-mock:8080": "medspa-mock", "http://10.88.0.5:8080": "10.88.0.5", "http://[fd00::5]:8080": "fd00::5"} {
		if _, err := client.NewEngine(client.WithAPIKey("msk_test_k"), client.WithBaseURL(base), client.WithInsecurePlainHTTPHost(h)); err != nil {
			t.Errorf("%s with %q: %v", base, h, err)
		}
	}
}

// TestWithRootCAsAddsUpAndRefusesAnOwnClient: two CAs given are both trusted; beside
// WithHTTPClient (whose transport the SDK does not build) the option fails New instead of
// being ignored.
func TestWithRootCAsAddsUpAndRefusesAnOwnClient(t *testing.T) {
	t.Parallel()
	srvA, pemA := ownCATLSServer(t)
	srvB, pemB := ownCATLSServer(t)
	for _, srv := range []*httptest.Server{srvA, srvB} {
		e := engine(t, srv.URL, client.WithRootCAs(pemA), client.WithRootCAs(pemB))
		if got, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil || got.ID != "pat_1" {
			t.Fatalf("%s: %v, %v", srv.URL, got, err)
		}
	}
	_, err := client.NewEngine(client.WithAPIKey("msk_test_k"), client.WithBaseURL(srvA.URL), client.WithHTTPClient(http.DefaultClient), client.WithRootCAs(pemA))
	if err == nil || !strings.Contains(err.Error(), "WithHTTPClient") {
		t.Fatalf("WithRootCAs beside WithHTTPClient: err %v, want a refusal naming WithHTTPClient", err)
	}
}

// ownCATLSServer starts a TLS 1.3 server on 127.0.0.1 whose self-signed certificate is its own
// (httptest's servers all share one), and returns it with that certificate in PEM.
func ownCATLSServer(t *testing.T) (*httptest.Server, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(answerJSON))
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
