package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestErrorClassesOnly: /test results and logged deliveries name only an error class, never an
// address, a port, a host name or a resolver's message, whatever failed: a refused address, a
// closed port, a filtered one, a hanging receiver, … (issue 19: /test is not a port scanner).
func TestErrorClassesOnly(t *testing.T) {
	t.Parallel()
	closedPort := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}()
	resetting := listen(t, func(c net.Conn) { c.Close() })
	hanging := listen(t, func(c net.Conn) {
		_, _ = io.Copy(io.Discard, c) // reads the request, never answers; ends when the client gives up
	})
	answer := func(code int) string {
		return newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }).URL.String()
	}
	redirect := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect)
	}).URL.String()
	huge := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Padding", strings.Repeat("p", maxResponseHeader+1))
	}).URL.String()
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes are expected
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	plain := answer(200)

	const resolverMessage = "lookup secret-host.example.com on 10.9.8.7:53: no such host"
	filtered := func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done() // a dropped SYN: nothing comes back
		return nil, ctx.Err()
	}
	for _, tc := range []struct {
		name, url string
		secret    string
		dial      func(ctx context.Context, network, address string) (net.Conn, error)
		class     string
		status    int
	}{
		{name: "refused address", url: "http://10.0.0.1:22/hook", class: ClassBlockedAddress},
		{name: "refused address via a name", url: "http://internal.example.com:6379/hook", class: ClassBlockedAddress},
		{name: "closed port", url: "http://" + closedPort + "/hook", class: ClassConnectionRefused},
		{name: "filtered port", url: "http://203.0.113.0:25/hook", class: ClassTimeout, dial: filtered},
		{name: "filtered port via a name", url: "http://public.example.com:25/hook", class: ClassTimeout, dial: filtered},
		{name: "hanging receiver", url: "http://" + hanging + "/hook", class: ClassTimeout},
		{name: "reset by receiver", url: "http://" + resetting + "/hook", class: ClassConnectionReset},
		{name: "no such host", url: "http://secret-host.example.com/hook", class: ClassDNS},
		{name: "status", url: answer(500), class: ClassStatus, status: 500},
		{name: "not found", url: answer(404), class: ClassStatus, status: 404},
		{name: "redirect", url: redirect, class: ClassRedirect, status: 307},
		{name: "untrusted certificate", url: tlsSrv.URL + "/hook", class: ClassTLS},
		{name: "not TLS", url: strings.Replace(plain, "http://", "https://", 1), class: ClassTLS},
		{name: "huge headers", url: huge, class: ClassTooLarge},
		{name: "bad secret", url: plain, secret: "whsec_!", class: ClassInvalidEndpoint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &Policy{
				Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
					switch host {
					case "internal.example.com":
						return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
					case "public.example.com":
						return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
					}
					return nil, &net.DNSError{Err: resolverMessage, Name: host, Server: "10.9.8.7:53", IsNotFound: true}
				},
				dial: tc.dial,
			}
			// 203.0.113.0 is refused (documentation) unless the guard is off; the filtered
			// cases test the timeout, so they turn it off and stub the dial.
			p.AllowPrivate = tc.dial != nil
			timeout := 5 * time.Second
			if tc.class == ClassTimeout {
				timeout = 150 * time.Millisecond
			}
			d, _, a := newDispatcher(t, Options{Policy: p, Timeout: timeout})
			secret := testSecret
			if tc.secret != "" {
				secret = tc.secret
			}
			res := d.Test(context.Background(), a, store.WebhookTarget{ID: "whk_x", URL: tc.url, Secret: secret, Enabled: true})
			if res.Delivered || res.Error == nil || *res.Error != tc.class {
				t.Fatalf("result %+v (error %s), want class %s", res, deref(res.Error), tc.class)
			}
			if got := 0; res.StatusCode != nil {
				got = *res.StatusCode
				if got != tc.status {
					t.Fatalf("status %d, want %d", got, tc.status)
				}
			} else if tc.status != 0 {
				t.Fatalf("no status, want %d", tc.status)
			}
			if !slices.Contains(ErrorClasses, *res.Error) {
				t.Fatalf("class %q is not listed in ErrorClasses", *res.Error)
			}
			logged := d.Deliveries(a.ID)
			if len(logged) != 1 || logged[0].Error != tc.class {
				t.Fatalf("logged %+v", logged)
			}
			// The duration is a number that may contain the port's digits ("durationMs":253 holds
			// ":25"): it is not free text, so it is left out of the search.
			shown := res
			shown.DurationMs = 0
			body, _ := json.Marshal(shown)
			u := strings.TrimPrefix(strings.TrimPrefix(tc.url, "http://"), "https://")
			host, port, _ := net.SplitHostPort(strings.SplitN(u, "/", 2)[0])
			for _, leak := range []string{host, ":" + port, "127.0.0.1", "10.1.2.3", "10.9.8.7", "secret-host", "lookup", "dial", "tcp"} {
				if leak != "" && leak != ":" && (strings.Contains(string(body), leak) || strings.Contains(logged[0].Error, leak)) {
					t.Fatalf("the result leaks %q: %s / %q", leak, body, logged[0].Error)
				}
			}
		})
	}
}

// listen serves raw TCP connections on loopback with serve, and returns the address.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestClassifyWrapped: classes survive the wrapping net/http and net add.
func TestClassifyWrapped(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]string{
		&net.OpError{Op: "dial", Err: errBlockedAddress}:                         ClassBlockedAddress,
		&net.OpError{Op: "dial", Err: &net.DNSError{Err: "x", IsNotFound: true}}: ClassDNS,
		context.DeadlineExceeded:                                                 ClassTimeout,
		context.Canceled:                                                         ClassCancelled,
		io.ErrUnexpectedEOF:                                                      ClassConnectionReset,
		errors.New("something else broke"):                                       ClassNetwork,
	} {
		if got := classify(err); got != want {
			t.Errorf("classify(%v) = %q, want %q", err, got, want)
		}
	}
}
