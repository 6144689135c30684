package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestCheckURLResolvedNames: a name is refused when it resolves to a private or link-local
// address, unless private URLs are allowed; a name that does not resolve is left to the dial
// guard.
func TestCheckURLResolvedNames(t *testing.T) {
	dns := map[string][]netip.Addr{
		"hooks.example.com":    {netip.MustParseAddr("93.184.216.34")},
		"internal.example.com": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.7")},
		"meta.example.com":     {netip.MustParseAddr("169.254.169.254")},
		"v6.example.com":       {netip.MustParseAddr("fd12::1")},
		"loop.example.com":     {netip.MustParseAddr("127.0.0.1")},
	}
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := dns[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		want         string
	}{
		{"https://hooks.example.com/x", false, ""},
		{"https://internal.example.com/x", false, "invalid_value"},
		{"https://meta.example.com/x", false, "invalid_value"},
		{"https://v6.example.com/x", false, "invalid_value"},
		{"https://loop.example.com/x", false, ""},
		{"https://unknown.example.com/x", false, ""},
		{"https://internal.example.com/x", true, ""},
		{"http://hooks.example.com/x", false, "invalid_value"},
		{"http://internal.example.com/x", true, ""},
		{"http://app.localhost:3000/x", false, ""},
		{"HTTPS://hooks.example.com/x", false, ""},
	} {
		p := &Policy{AllowPrivate: tc.allowPrivate, Resolve: resolve}
		if got, _ := p.CheckURL(context.Background(), tc.url); got != tc.want {
			t.Errorf("CheckURL(%s, private=%t) = %q, want %q", tc.url, tc.allowPrivate, got, tc.want)
		}
	}
}

// TestDialGuard: the address actually connected to is checked (so DNS rebinding after
// validation cannot reach an internal address); loopback stays allowed.
func TestDialGuard(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		blocked bool
	}{
		{"127.0.0.1:8080", false},
		{"[::1]:443", false},
		{"93.184.216.34:443", false},
		{"[2606:2800:220:1::1]:443", false},
		{"10.0.0.1:443", true},
		{"172.31.255.255:80", true},
		{"192.168.1.1:80", true},
		{"169.254.169.254:80", true},
		{"100.64.0.1:80", true},
		{"0.0.0.0:80", true},
		{"[fe80::1]:80", true},
		{"[fd00::1]:80", true},
		{"[::ffff:10.0.0.1]:80", true},
		{"[::]:80", true},
		{"not-an-address", true},
	} {
		err := (&Policy{}).control("tcp", tc.addr, nil)
		if (err != nil) != tc.blocked {
			t.Errorf("control(%s) = %v, want blocked=%t", tc.addr, err, tc.blocked)
		}
		if err := (&Policy{AllowPrivate: true}).control("tcp", tc.addr, nil); err != nil {
			t.Errorf("control(%s) with private allowed = %v", tc.addr, err)
		}
	}
	if got := classify(errBlockedAddress); got != ClassBlockedAddress {
		t.Fatalf("a blocked address is classed %q", got)
	}
}

// TestParseRetryAfter: a receiver's Retry-After is read by wire.ParseRetryAfter, capped at a day.
func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"0":                             0,
		"-5":                            0,
		"90":                            90 * time.Second,
		"99999999999999999":             24 * time.Hour,
		"Tue, 01 Jan 2030 00:10:00 GMT": 10 * time.Minute,
		"Mon, 31 Dec 2029 00:00:00 GMT": 0,
		"later":                         0,
	} {
		if got := wire.ParseRetryAfter(v, now, maxRetryAfter); got != want {
			t.Errorf("ParseRetryAfter(%q, 24h cap) = %v, want %v", v, got, want)
		}
	}
}

// TestDialGuardRefusesDelivery: a delivery to an internal address that got past validation
// (say, a name rebound after registration) is refused before any connection is attempted, and
// the result names only the class.
func TestDialGuardRefusesDelivery(t *testing.T) {
	t.Parallel()
	dialed := make(chan string, 1)
	p := &Policy{dial: func(_ context.Context, _, addr string) (net.Conn, error) {
		dialed <- addr
		return nil, errors.New("dialed")
	}}
	st := store.New(store.Options{})
	d := New(st, Options{Policy: p, Timeout: 5 * time.Second})
	defer d.Close()
	a := st.Account("acct_test")
	target := store.WebhookTarget{ID: "whk_x", URL: "http://10.255.255.1:9/hook", Secret: "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Enabled: true}
	res := d.Test(context.Background(), a, target)
	if res.Delivered || res.StatusCode != nil || res.Error == nil || *res.Error != ClassBlockedAddress {
		t.Fatalf("result %+v", res)
	}
	select {
	case addr := <-dialed:
		t.Fatalf("dialed %s; the guard must refuse before connecting", addr)
	default:
	}
}

// TestBlockedEmbeddedIPv4 covers IPv6 forms that reach an internal IPv4 address through a
// gateway (found by the bad-input catalogue: NAT64 of the metadata address was accepted).
func TestBlockedEmbeddedIPv4(t *testing.T) {
	for addr, want := range map[string]bool{
		"64:ff9b::a9fe:a9fe": true,  // 169.254.169.254
		"64:ff9b::a00:1":     true,  // 10.0.0.1
		"64:ff9b::7f00:1":    true,  // 127.0.0.1 behind a gateway
		"64:ff9b::5db8:d822": false, // 93.184.216.34
		"2002:a9fe:a9fe::1":  true,
		"2002:5db8:d822::1":  false,
		"2606:2800:220:1::1": false,
		"2001:db8::1":        true, // documentation: refused since issue 19
	} {
		if got := Blocked(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Blocked(%s) = %v, want %v", addr, got, want)
		}
	}
}
