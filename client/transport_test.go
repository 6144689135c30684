package client

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestDefaultTransport: TLS 1.3 at least, and the default timeouts, each overridable (negative:
// none).
func TestDefaultTransport(t *testing.T) {
	t.Parallel()
	tr := newTransport(Timeouts{}, nil)
	if tr.TLSClientConfig.MinVersion != tls.VersionTLS13 || tr.TLSHandshakeTimeout != DefaultTimeouts.TLSHandshake ||
		tr.ResponseHeaderTimeout != DefaultTimeouts.ResponseHeader || tr.IdleConnTimeout != DefaultTimeouts.Idle || tr.DialContext == nil {
		t.Errorf("default transport: TLS %x, handshake %v, header %v, idle %v", tr.TLSClientConfig.MinVersion, tr.TLSHandshakeTimeout,
			tr.ResponseHeaderTimeout, tr.IdleConnTimeout)
	}
	tr = newTransport(Timeouts{ResponseHeader: time.Second, Idle: -1, TLSHandshake: 2 * time.Second}, nil)
	if tr.ResponseHeaderTimeout != time.Second || tr.IdleConnTimeout != 0 || tr.TLSHandshakeTimeout != 2*time.Second {
		t.Errorf("overridden: header %v, idle %v, handshake %v", tr.ResponseHeaderTimeout, tr.IdleConnTimeout, tr.TLSHandshakeTimeout)
	}
	if got := (Timeouts{Dial: -1}).effective(); got.Dial != 0 || got.Idle != DefaultTimeouts.Idle {
		t.Errorf("effective %+v", got)
	}
}

// TestTLS12Refused: the default transport does not speak TLS 1.2: a server limited to it fails
// the handshake on the version (a TLS 1.3 server gets as far as its untrusted certificate).
func TestTLS12Refused(t *testing.T) {
	t.Parallel()
	for _, maxVersion := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		srv.TLS = &tls.Config{MaxVersion: maxVersion}
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		t.Cleanup(srv.Close)
		e, err := NewEngine(WithBaseURL(srv.URL), WithAPIKey("msk_test_x"), WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Do(context.Background(), http.MethodGet, Path("patients"), nil, nil)
		version := err != nil && strings.Contains(err.Error(), "protocol version")
		if version != (maxVersion == tls.VersionTLS12) || err == nil {
			t.Errorf("server up to TLS %x: %v", maxVersion, err)
		}
	}
}
