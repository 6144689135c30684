package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// failingAccount sets up an account on a frozen clock whose one endpoint fails until told
// otherwise, with two events whose first attempts failed (retries due 5 s later).
func failingAccount(t *testing.T, d *Dispatcher, st *store.Store) (*store.Account, *clock.Clock, *receiver, *atomic.Bool) {
	t.Helper()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clk := clock.New()
	clk.Set(t0)
	a := st.Account("acct_test")
	a.SetClock(clk)
	var failing atomic.Bool
	failing.Store(true)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	endpoint(t, a, rc)
	emit(t, a, 2)
	waitUntil(t, "two failed attempts", func() bool {
		log := d.Deliveries(a.ID)
		return len(log) == 2 && log[1].NextAttemptAt != nil
	})
	return a, clk, rc, &failing
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPendingRoundTrip: pending retries exported from one dispatcher (as a restart would
// persist them) and imported into the next run: the one that fell due while "down" runs at
// once with its attempt number, id and exact body; the other waits for its time on the
// account clock; and exporting again gives back what was imported.
func TestPendingRoundTrip(t *testing.T) {
	t.Parallel()
	st := store.New(store.Options{})
	d1 := New(st, Options{})
	a, clk, rc, failing := failingAccount(t, d1, st)
	exported := d1.ExportPending(a.ID)
	d1.Close()
	if len(exported) != 2 {
		t.Fatalf("exported %d pending deliveries, want 2", len(exported))
	}
	due := clk.Now().Add(5 * time.Second)
	sent := map[string]string{} // event id → body, as the receiver got them
	for i, id := range rc.got() {
		sent[id] = rc.body(i)
	}
	for i, p := range exported {
		if p.Attempt != 2 || !p.NextAttemptAt.Equal(due) || p.EventType != "patient.created" ||
			!bytes.Equal(p.Event, []byte(sent[p.EventID])) || !strings.HasPrefix(p.EndpointID, "whk_") {
			t.Fatalf("pending %d = %+v", i, p)
		}
	}
	if exported[0].EventID >= exported[1].EventID {
		t.Fatalf("export is not oldest first: %s, %s", exported[0].EventID, exported[1].EventID)
	}
	if s := mustJSON(t, exported); strings.Contains(s, "whsec_") || strings.Contains(s, `"P"`) {
		t.Fatalf("export carries a secret or PHI: %s", s)
	}

	// Through JSON, as a data directory or snapshot keeps it; the second one is moved an hour on.
	var back []Pending
	if err := json.Unmarshal([]byte(mustJSON(t, exported)), &back); err != nil {
		t.Fatal(err)
	}
	back[1].NextAttemptAt = back[1].NextAttemptAt.Add(time.Hour)
	failing.Store(false)
	clk.Advance(10 * time.Second) // the server was down past the first retry's time
	d2 := New(st, Options{})
	defer d2.Close()
	if err := d2.ImportPending(a, back); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the overdue retry", func() bool { return len(d2.Deliveries(a.ID)) == 1 })
	if got := rc.got()[2]; got != back[0].EventID || rc.body(2) != string(back[0].Event) {
		t.Fatalf("delivered %s %s, want %s %s", got, rc.body(2), back[0].EventID, back[0].Event)
	}
	if log := d2.Deliveries(a.ID); len(log) != 1 || log[0].Attempt != 2 || !log[0].Delivered {
		t.Fatalf("log after import %+v", log)
	}
	if got, want := mustJSON(t, d2.ExportPending(a.ID)), mustJSON(t, back[1:]); got != want {
		t.Fatalf("export after import\n got %s\nwant %s", got, want)
	}
	clk.Advance(time.Hour)
	waitUntil(t, "the later retry", func() bool { return len(d2.Deliveries(a.ID)) == 2 })
	if got := rc.got()[3]; got != back[1].EventID {
		t.Fatalf("delivered %s, want %s", got, back[1].EventID)
	}
	if p := d2.ExportPending(a.ID); len(p) != 0 {
		t.Fatalf("still pending: %+v", p)
	}
}

// TestImportPendingValidates: an invalid item is refused with an error naming it, and nothing
// changes; a valid import replaces what was pending.
func TestImportPendingValidates(t *testing.T) {
	t.Parallel()
	d, st, _ := newDispatcher(t, Options{})
	a, _, _, _ := failingAccount(t, d, st)
	before := d.ExportPending(a.ID)
	good := before[0]
	for name, edit := range map[string]func(p *Pending){
		"endpoint id":    func(p *Pending) { p.EndpointID = "../whk" },
		"event id":       func(p *Pending) { p.EventID = "evt_1" },
		"event type":     func(p *Pending) { p.EventType = "*" },
		"test event":     func(p *Pending) { p.EventType = "webhook.test" },
		"attempt zero":   func(p *Pending) { p.Attempt = 0 },
		"attempt 11":     func(p *Pending) { p.Attempt = 11 },
		"no time":        func(p *Pending) { p.NextAttemptAt = time.Time{} },
		"no event":       func(p *Pending) { p.Event = nil },
		"not an event":   func(p *Pending) { p.Event = json.RawMessage(`{"id":1}`) },
		"other event":    func(p *Pending) { p.EventID = before[1].EventID },
		"huge event":     func(p *Pending) { p.Event = json.RawMessage(`"` + strings.Repeat("x", maxPendingEvent) + `"`) },
		"another's lane": func(p *Pending) { p.EndpointID = "whk_" + strings.Repeat("0", 32) },
	} {
		p := good
		edit(&p)
		if name == "another's lane" {
			// An endpoint id that another account's lane already uses.
			b := st.Account("acct_other")
			d.mu.Lock()
			d.laneLocked(d.accountLocked(b), p.EndpointID)
			d.mu.Unlock()
		}
		if err := d.ImportPending(a, []Pending{good, p}); err == nil || !strings.Contains(err.Error(), "pending delivery 1") {
			t.Errorf("%s: ImportPending = %v, want an error about item 1", name, err)
		}
		if got := d.ExportPending(a.ID); mustJSON(t, got) != mustJSON(t, before) {
			t.Fatalf("%s: a refused import changed the pending deliveries: %+v", name, got)
		}
	}
	if err := d.ImportPending(a, before[1:]); err != nil {
		t.Fatal(err)
	}
	if got := d.ExportPending(a.ID); mustJSON(t, got) != mustJSON(t, before[1:]) {
		t.Fatalf("import did not replace: %+v", got)
	}
	d.Close()
	if err := d.ImportPending(a, before); err != ErrClosed {
		t.Fatalf("import after Close = %v", err)
	}
}
