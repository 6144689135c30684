package httpapi

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

func TestStuffingGuard(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC) // mid-minute
	g := &stuffingGuard{now: func() time.Time { return now }, limit: 50}
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for range stuffingLimit {
		g.fail(a, "cli_1")
	}
	for _, tc := range []struct {
		addr   netip.Addr
		tenant string
		want   time.Duration
	}{
		{a, "cli_1", 30 * time.Second}, // until the minute is over
		{a, "cli_2", 0},                // another tenant
		{a, "", 0},                     // no tenant
		{b, "cli_1", 0},                // another address
	} {
		if got := g.blocked(tc.addr, tc.tenant); got != tc.want {
			t.Errorf("%v %q: blocked %v, want %v", tc.addr, tc.tenant, got, tc.want)
		}
	}
	// The next minute starts afresh: the map of the last one is dropped.
	now = now.Add(30 * time.Second)
	if got := g.blocked(a, "cli_1"); got != 0 || g.size() != 0 {
		t.Fatalf("next minute: blocked %v, %d pairs kept", got, g.size())
	}
	// Past the bound, new pairs share one counter: it fills, and blocks every new pair.
	for i := range 49 {
		g.fail(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), "")
	}
	if g.size() != 49 {
		t.Fatalf("%d pairs", g.size())
	}
	for i := range stuffingLimit + 1 { // the first takes the last free place, the others share
		g.fail(netip.AddrFrom4([4]byte{10, 1, 0, byte(i)}), fmt.Sprint(i))
	}
	if g.size() != 51 {
		t.Fatalf("%d counters past the bound of 50 pairs (and the shared one)", g.size())
	}
	if g.blocked(netip.MustParseAddr("10.9.9.9"), "") == 0 {
		t.Error("a new pair past the bound is not blocked although the shared counter is spent")
	}
	if g.blocked(netip.AddrFrom4([4]byte{10, 0, 0, 1}), "") != 0 {
		t.Error("a pair counted before the bound lost its own counter")
	}
	// Without failures nothing is kept; the sweep drops a finished minute.
	now = now.Add(time.Minute)
	g.sweep()
	if g.size() != 0 {
		t.Fatalf("%d pairs after the sweep of a finished minute", g.size())
	}
}
