package webhook

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// ssrfCases: one row per refused range or IPv6 form carrying an IPv4 address, each with an
// address that must be refused and a neighbour that must pass (issue 19).
var ssrfCases = []struct {
	form              string
	refused, neighbor string
	refuseLoopback    bool
}{
	{"private 10/8", "10.0.0.1", "11.0.0.1", false},
	{"private 172.16/12", "172.31.255.255", "172.32.0.1", false},
	{"private 192.168/16", "192.168.1.1", "192.169.0.1", false},
	{"loopback v4 (refused on demand)", "127.0.0.1", "128.0.0.1", true},
	{"loopback v6 (refused on demand)", "::1", "2606:4700::1111", true},
	{"loopback mapped (refused on demand)", "::ffff:127.0.0.1", "::ffff:128.0.0.1", true},
	{"link-local v4 (metadata)", "169.254.169.254", "169.255.0.1", false},
	{"CGNAT 100.64/10", "100.64.0.1", "100.128.0.1", false},
	{"CGNAT upper edge", "100.127.255.255", "100.63.255.255", false},
	{"unspecified v4", "0.0.0.0", "1.0.0.1", false},
	{"unspecified v6", "::", "2606:4700::1111", false},
	{"this network 0/8", "0.1.2.3", "1.1.1.1", false},
	{"multicast v4", "224.0.0.1", "223.255.255.254", false},
	{"multicast v6", "ff02::1", "2606:4700::1111", false},
	{"broadcast", "255.255.255.255", "223.255.255.255", false},
	{"benchmarking 198.18/15", "198.19.255.255", "198.20.0.1", false},
	{"benchmarking lower edge", "198.18.0.1", "198.17.255.255", false},
	{"benchmarking v6", "2001:2::1", "2001:3::1", false},
	{"reserved 240/4", "240.0.0.1", "223.1.1.1", false},
	{"IETF protocol assignments 192.0.0/24", "192.0.0.8", "192.0.1.1", false},
	{"documentation TEST-NET-1", "192.0.2.1", "192.0.3.1", false},
	{"documentation TEST-NET-2", "198.51.100.1", "198.51.101.1", false},
	{"documentation TEST-NET-3", "203.0.113.1", "203.0.114.1", false},
	{"documentation v6", "2001:db8::1", "2001:db9::1", false},
	{"documentation v6 3fff::/20", "3fff::1", "3fff:1000::1", false},
	{"link-local v6", "fe80::1", "2606:4700::1111", false},
	{"site-local v6", "fec0::1", "2606:4700::1111", false},
	{"unique local fd00::/8", "fd00::1", "2606:4700::1111", false},
	{"unique local fc00::/8", "fc00::1", "2606:4700::1111", false},
	{"reserved v6 outside 2000::/3", "4000::1", "2606:4700::1111", false},
	{"IPv4-mapped", "::ffff:10.0.0.1", "::ffff:93.184.216.34", false},
	{"IPv4-compatible", "::10.0.0.1", "::93.184.216.34", false},
	{"IPv4-compatible metadata", "::169.254.169.254", "::93.184.216.34", false},
	{"IPv4-translated (SIIT)", "::ffff:0:10.0.0.1", "::ffff:0:93.184.216.34", false},
	{"NAT64 64:ff9b::/96", "64:ff9b::10.0.0.1", "64:ff9b::93.184.216.34", false},
	{"NAT64 of loopback", "64:ff9b::127.0.0.1", "64:ff9b::93.184.216.34", false},
	{"local-use NAT64 64:ff9b:1::/48", "64:ff9b:1::10.0.0.1", "64:ff9b:1::93.184.216.34", false},
	{"local-use NAT64, other prefix length", "64:ff9b:1:a00:1::5db8:d822", "64:ff9b:1::5db8:d822", false},
	{"6to4 2002::/16", "2002:a00:1::1", "2002:5db8:d822::1", false},
	{"6to4 of metadata", "2002:a9fe:a9fe::1", "2002:5db8:d822::1", false},
	// Teredo: server 93.184.216.34 or 10.0.0.1 in bits 32–63; client 8.8.8.8 or 10.0.0.1 in
	// the last 32 bits, inverted.
	{"Teredo private client", "2001:0:5db8:d822::f5ff:fffe", "2001:0:5db8:d822::f7f7:f7f7", false},
	{"Teredo private server", "2001:0:a00:1::f7f7:f7f7", "2001:0:5db8:d822::f7f7:f7f7", false},
}

// TestRefusedAddresses runs each row through every place the guard applies: the address
// check, the URL check, the resolving dialer and the socket's Control hook.
func TestRefusedAddresses(t *testing.T) {
	t.Parallel()
	for _, tc := range ssrfCases {
		t.Run(tc.form, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				addr    string
				refused bool
			}{{tc.refused, true}, {tc.neighbor, false}} {
				ip := netip.MustParseAddr(c.addr)
				var dialed []string
				p := &Policy{
					RefuseLoopback: tc.refuseLoopback,
					Resolve: func(context.Context, string) ([]netip.Addr, error) {
						return []netip.Addr{ip}, nil
					},
					dial: func(_ context.Context, _, address string) (net.Conn, error) {
						dialed = append(dialed, address)
						return nil, errors.New("stub: not connecting")
					},
				}
				if got := !p.Allows(ip); got != c.refused {
					t.Errorf("Allows(%s) = %t, want refused=%t (range %q)", c.addr, !got, c.refused, special(ip))
				}
				if !tc.refuseLoopback && Blocked(ip) != c.refused {
					t.Errorf("Blocked(%s) = %t, want %t", c.addr, Blocked(ip), c.refused)
				}
				code, detail := p.CheckURL(context.Background(), "https://"+net.JoinHostPort(c.addr, "443")+"/hook")
				if (code != "") != c.refused {
					t.Errorf("CheckURL of %s = %q %q, want refused=%t", c.addr, code, detail, c.refused)
				}
				if strings.Contains(detail, c.addr) {
					t.Errorf("detail %q quotes the address", detail)
				}
				code, _ = p.CheckURL(context.Background(), "https://hooks.example.com/hook")
				if (code != "") != c.refused {
					t.Errorf("CheckURL of a name resolving to %s = %q, want refused=%t", c.addr, code, c.refused)
				}
				_, err := p.dialContext(context.Background(), "tcp", "hooks.example.com:443")
				switch {
				case c.refused && (!errors.Is(err, errBlockedAddress) || len(dialed) != 0):
					t.Errorf("dial via a name resolving to %s: %v, dialed %v; want refused before dialing", c.addr, err, dialed)
				case !c.refused && (len(dialed) != 1 || dialed[0] != net.JoinHostPort(ip.String(), "443")):
					t.Errorf("dial via a name resolving to %s dialed %v; want exactly that address", c.addr, dialed)
				}
				if err := p.control("tcp", net.JoinHostPort(c.addr, "443"), nil); (err != nil) != c.refused {
					t.Errorf("control(%s) = %v, want refused=%t", c.addr, err, c.refused)
				}
			}
		})
	}
}

// TestCheckURLUserInfo: URLs with user info are refused with invalid_value and a detail that
// says why without quoting the URL; delivery logs never show user info either.
func TestCheckURLUserInfo(t *testing.T) {
	t.Parallel()
	p := &Policy{Resolve: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}}
	for _, raw := range []string{
		"https://user:s3cret@hooks.example.com/x",
		"https://user@hooks.example.com/x",
		"https://:s3cret@hooks.example.com/x",
		"https://@hooks.example.com/x",
		"http://user:s3cret@127.0.0.1:8080/x",
	} {
		code, detail := p.CheckURL(context.Background(), raw)
		if code != "invalid_value" || !strings.Contains(detail, "user info") || strings.Contains(detail, "s3cret") || strings.Contains(detail, "example") {
			t.Errorf("CheckURL(%s) = %q %q", raw, code, detail)
		}
	}
	if got := displayURL("https://user:s3cret@hooks.example.com/x?y=1"); got != "https://hooks.example.com/x?y=1" {
		t.Errorf("displayURL kept user info: %s", got)
	}
}

// TestRefuseLoopback: loopback is allowed by default (tests and local receivers) and refused,
// names and addresses alike, when the policy says so.
func TestRefuseLoopback(t *testing.T) {
	t.Parallel()
	resolve := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	for _, raw := range []string{"http://127.0.0.1:8080/x", "http://[::1]/x", "http://localhost:3000/x", "http://app.localhost/x", "https://loop.example.com/x"} {
		if code, _ := (&Policy{Resolve: resolve}).CheckURL(context.Background(), raw); code != "" {
			t.Errorf("default policy refused %s: %s", raw, code)
		}
		if code, _ := (&Policy{Resolve: resolve, RefuseLoopback: true}).CheckURL(context.Background(), raw); code != "invalid_value" {
			t.Errorf("RefuseLoopback allowed %s: %q", raw, code)
		}
		if code, _ := (&Policy{Resolve: resolve, RefuseLoopback: true, AllowPrivate: true}).CheckURL(context.Background(), raw); code != "invalid_value" {
			t.Errorf("RefuseLoopback with private allowed let %s through: %q", raw, code)
		}
	}
	for _, addr := range []string{"127.0.0.1:80", "[::1]:80", "0.0.0.0:80", "[::]:80"} {
		if err := (&Policy{RefuseLoopback: true, AllowPrivate: true}).control("tcp", addr, nil); err == nil {
			t.Errorf("control(%s) with RefuseLoopback and AllowPrivate allowed it", addr)
		}
	}
}

// TestDNSRebinding: a name that resolved to a public address when the URL was checked and to
// a refused one when the delivery connects is refused at connect time, before any connection;
// the dialer connects to the address it checked, never to the name.
func TestDNSRebinding(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	port := rc.URL.Port()
	t.Cleanup(func() { // after the parallel subtests
		if n := len(rc.got()); n != 1 {
			t.Errorf("receiver got %d deliveries, want 1 (the allowed loopback case)", n)
		}
	})
	for _, tc := range []struct {
		name           string
		atConnect      string
		refuseLoopback bool
		delivered      bool
	}{
		{"rebound to private", "10.0.0.1", false, false},
		{"rebound to metadata", "169.254.169.254", false, false},
		{"rebound to NAT64 of private", "64:ff9b::a00:1", false, false},
		{"rebound to loopback, refused", "127.0.0.1", true, false},
		{"rebound to loopback, allowed", "127.0.0.1", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lookups atomic.Int32
			var mu sync.Mutex
			var dialed []string
			p := &Policy{
				RefuseLoopback: tc.refuseLoopback,
				Resolve: func(context.Context, string) ([]netip.Addr, error) {
					if lookups.Add(1) == 1 {
						return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil // at check time
					}
					return []netip.Addr{netip.MustParseAddr(tc.atConnect)}, nil
				},
			}
			p.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
				mu.Lock()
				dialed = append(dialed, address)
				mu.Unlock()
				return (&net.Dialer{Control: p.control}).DialContext(ctx, network, address)
			}
			if code, _ := p.CheckURL(context.Background(), "https://rebind.example.com/hook"); code != "" {
				t.Fatalf("CheckURL refused the public answer: %s", code)
			}
			d, _, a := newDispatcher(t, Options{Policy: p, Timeout: 5 * time.Second})
			target := store.WebhookTarget{ID: "whk_x", URL: "http://rebind.example.com:" + port + "/hook", Secret: testSecret, Enabled: true}
			res := d.Test(context.Background(), a, target)
			mu.Lock()
			defer mu.Unlock()
			if tc.delivered {
				if !res.Delivered || len(dialed) != 1 || dialed[0] != "127.0.0.1:"+port {
					t.Fatalf("result %+v, dialed %v; want delivered to the checked address", res, dialed)
				}
				return
			}
			if res.Delivered || res.Error == nil || *res.Error != ClassBlockedAddress || len(dialed) != 0 {
				t.Fatalf("result %+v (error %s), dialed %v; want blocked_address before dialing", res, deref(res.Error), dialed)
			}
		})
	}
}

// TestNoProxy: deliveries never go through a proxy, whatever HTTP_PROXY and friends say.
func TestNoProxy(t *testing.T) {
	t.Parallel()
	d, _, _ := newDispatcher(t, Options{})
	tr, ok := d.client.Transport.(*http.Transport)
	if !ok || tr.Proxy != nil {
		t.Fatalf("delivery transport %T uses a proxy function", d.client.Transport)
	}
}

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// receiver is a loopback webhook receiver for the package's tests.
type receiver struct {
	URL     *url.URL
	mu      sync.Mutex
	bodies  []string
	ids     []string
	handler func(w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{handler: handler}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, string(b))
		rc.ids = append(rc.ids, r.Header.Get("webhook-id"))
		rc.mu.Unlock()
		if rc.handler != nil {
			rc.handler(w, r)
		}
	}))
	// Requests see their context end when the test does, so that handlers that wait on it
	// return and Close does not wait for a dispatcher that is still running.
	base, cancel := context.WithCancel(context.Background())
	ts.Config.BaseContext = func(net.Listener) context.Context { return base }
	ts.Start()
	t.Cleanup(func() { cancel(); ts.Close() })
	rc.URL, _ = url.Parse(ts.URL + "/hook")
	return rc
}

func (rc *receiver) got() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.ids...)
}

func (rc *receiver) body(i int) string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.bodies[i]
}
