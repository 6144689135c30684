package webhook

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// waitUntil polls cond until it holds, failing the test after a bounded wait.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// endpoint registers a receiver for every event type in a.
func endpoint(t *testing.T, a *store.Account, rc *receiver) string {
	t.Helper()
	e, err := a.CreateWebhook(context.Background(), store.WebhookInputOf(webhooks.Endpoint{URL: rc.URL.String(), Events: []webhooks.EventType{webhooks.EventAll}, Enabled: true}), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// emit makes n events (patient.created) in a.
func emit(t *testing.T, a *store.Account, n int) {
	t.Helper()
	for i := range n {
		if _, err := a.CreatePatient(store.PatientInputOf(patients.Patient{FirstName: "P", LastName: fmt.Sprint(i), Email: "p@example.com"}), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
}

// newDispatcher returns a dispatcher on a fresh store, closed when the test ends, and the
// account "acct_test".
func newDispatcher(t *testing.T, o Options) (*Dispatcher, *store.Store, *store.Account) {
	t.Helper()
	st := store.New(store.Options{})
	d := New(st, o)
	t.Cleanup(d.Close)
	return d, st, st.Account("acct_test")
}

// gated answers (200) once gate is closed, or gives up with the client.
func gated(gate <-chan struct{}) func(http.ResponseWriter, *http.Request) {
	return func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
		}
	}
}

// hang answers nothing until the test ends or the client gives up.
func hang(t *testing.T) func(http.ResponseWriter, *http.Request) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return gated(release)
}

// TestHangingAccountDoesNotDelayOthers: account A's receivers never answer (and its attempts
// would wait a minute); account B's deliveries all arrive meanwhile, and A holds no more
// attempts than its bound.
func TestHangingAccountDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	d, st, a := newDispatcher(t, Options{Timeout: time.Minute, MaxInFlight: 4, MaxInFlightPerAccount: 2, MaxInFlightPerEndpoint: 1})
	b := st.Account("acct_b")
	var hanging []*receiver
	for range 6 {
		rc := newReceiver(t, hang(t))
		endpoint(t, a, rc)
		hanging = append(hanging, rc)
	}
	good := newReceiver(t, nil)
	endpoint(t, b, good)
	emit(t, a, 5)
	waitUntil(t, "A's first attempts", func() bool { return held(hanging) > 0 })
	const n = 20
	emit(t, b, n)
	waitUntil(t, "every delivery of B", func() bool { return len(d.Deliveries(b.ID)) == n })
	if h := held(hanging); h > 2 {
		t.Fatalf("account A holds %d attempts, bound 2", h)
	}
	for _, dr := range d.Deliveries(b.ID) {
		if !dr.Delivered {
			t.Fatalf("B's delivery failed: %+v", dr)
		}
	}
	if got := len(good.got()); got != n {
		t.Fatalf("B's receiver got %d, want %d", got, n)
	}
}

func held(rcs []*receiver) int {
	n := 0
	for _, rc := range rcs {
		n += len(rc.got())
	}
	return n
}

// TestBusyAccountDoesNotStarveOthers: account A has thousands of events queued behind a slow
// receiver; account B's one event is delivered before A's queue moves at all, and then every
// event of A arrives, each once.
func TestBusyAccountDoesNotStarveOthers(t *testing.T) {
	t.Parallel()
	_, st, a := newDispatcher(t, Options{Timeout: time.Minute})
	b := st.Account("acct_b")
	bGot := make(chan struct{})
	busy := newReceiver(t, gated(bGot)) // A's receiver answers only once B's event has arrived
	endpoint(t, a, busy)
	other := newReceiver(t, func(http.ResponseWriter, *http.Request) { close(bGot) })
	endpoint(t, b, other)
	const n = 2000
	emit(t, a, n)
	emit(t, b, 1)
	waitUntil(t, "B's event", func() bool { return len(other.got()) == 1 })
	waitUntil(t, "every event of A", func() bool { return len(busy.got()) >= n })
	ids := busy.got()
	slices.Sort(ids)
	if len(slices.Compact(ids)) != n {
		t.Fatalf("A's receiver got %d deliveries of %d distinct events, want %d once each", len(busy.got()), len(ids), n)
	}
}

// TestOverflowDropsOldest: an endpoint's pending queue keeps QueueLimit deliveries; the oldest
// are dropped and logged as dropped, the rest delivered in order.
func TestOverflowDropsOldest(t *testing.T) {
	t.Parallel()
	d, _, a := newDispatcher(t, Options{QueueLimit: 3, MaxInFlightPerEndpoint: 1})
	rec := d.Record(a.ID)
	gate := make(chan struct{})
	rc := newReceiver(t, gated(gate))
	id := endpoint(t, a, rc)
	emit(t, a, 1)
	waitUntil(t, "the first attempt", func() bool { return len(rc.got()) == 1 })
	emit(t, a, 5) // 5 pending behind the one in flight: the 2 oldest go
	events, err := rec.Wait(context.Background(), 6)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "two drops", func() bool { return len(d.Deliveries(a.ID)) == 2 })
	for i, dr := range d.Deliveries(a.ID) {
		want := events[1+i]
		if !dr.Dropped || dr.Error != ClassDropped || dr.Delivered || dr.EventID != want.ID || dr.EventType != want.Type ||
			dr.EndpointID != id || dr.URL != rc.URL.String() || dr.Attempt != 1 {
			t.Fatalf("drop %d = %+v, want event %s", i, dr, want.ID)
		}
	}
	close(gate)
	waitUntil(t, "the kept deliveries", func() bool { return len(rc.got()) == 4 })
	want := []string{events[0].ID, events[3].ID, events[4].ID, events[5].ID}
	if got := rc.got(); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v (oldest dropped, the rest in order)", got, want)
	}
}

// TestBacklogOverflowDropsOldest: events waiting to be fanned out are bounded per account too;
// an event dropped there is logged as dropped with no endpoint.
func TestBacklogOverflowDropsOldest(t *testing.T) {
	t.Parallel()
	d, _, a := newDispatcher(t, Options{BacklogLimit: 3, MaxInFlightPerEndpoint: 1})
	rec := d.Record(a.ID)
	rc := newReceiver(t, nil)
	endpoint(t, a, rc)
	d.fanMu.Lock() // hold the fan-out, so that the backlog fills up
	emit(t, a, 5)
	log := d.Deliveries(a.ID)
	d.fanMu.Unlock()
	events := rec.Events()
	if len(log) != 2 {
		t.Fatalf("log %+v, want two drops", log)
	}
	for i, dr := range log {
		if !dr.Dropped || dr.Error != ClassDropped || dr.EndpointID != "" || dr.URL != "" || dr.EventID != events[i].ID {
			t.Fatalf("drop %d = %+v, want event %s", i, dr, events[i].ID)
		}
	}
	waitUntil(t, "the three kept events", func() bool { return len(rc.got()) == 3 })
	if got := rc.got(); !slices.Equal(got, []string{events[2].ID, events[3].ID, events[4].ID}) {
		t.Fatalf("delivered %v", got)
	}
}

// TestLogBound: each account's delivery log keeps the newest LogLimit entries, oldest first.
func TestLogBound(t *testing.T) {
	t.Parallel()
	d, _, a := newDispatcher(t, Options{LogLimit: 3})
	rc := newReceiver(t, nil)
	target := store.WebhookTarget{ID: "whk_x", URL: rc.URL.String(), Secret: testSecret, Enabled: true}
	var ids []string
	for range 5 {
		ids = append(ids, d.Test(context.Background(), a, target).EventID)
	}
	var got []string
	for _, dr := range d.Deliveries(a.ID) {
		got = append(got, dr.EventID)
	}
	if !slices.Equal(got, ids[2:]) {
		t.Fatalf("log %v, want the newest three %v", got, ids[2:])
	}
}

// TestRecorderBound: a recorder keeps the newest RecorderLimit events; Wait counts them all.
func TestRecorderBound(t *testing.T) {
	t.Parallel()
	d, _, a := newDispatcher(t, Options{RecorderLimit: 2})
	rec := d.Record(a.ID)
	emit(t, a, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	events, err := rec.Wait(ctx, 3)
	if err != nil || len(events) != 2 || events[1].Type != webhooks.EventPatientCreated {
		t.Fatalf("Wait = %d events, %v", len(events), err)
	}
}

// TestLogTotalBound: all accounts' logs together keep LogTotalLimit entries; the account that
// logged least recently gives up its oldest first, and goes once it has none.
func TestLogTotalBound(t *testing.T) {
	t.Parallel()
	d, _, _ := newDispatcher(t, Options{LogLimit: 3, LogTotalLimit: 5})
	add := func(account string, n int) {
		for range n {
			d.log(account, Delivery{EventID: fmt.Sprintf("%s-%d", account, len(d.Deliveries(account)))})
		}
	}
	counts := func() [3]int {
		return [3]int{len(d.Deliveries("a")), len(d.Deliveries("b")), len(d.Deliveries("c"))}
	}
	add("a", 3)
	add("b", 3)
	if got := counts(); got != [3]int{2, 3, 0} {
		t.Fatalf("after a, b: %v", got)
	}
	add("a", 1) // a is now the most recent: b gives one up
	if got := counts(); got != [3]int{3, 2, 0} {
		t.Fatalf("after a again: %v", got)
	}
	add("c", 3)
	if got := counts(); got != [3]int{2, 0, 3} {
		t.Fatalf("after c: %v", got)
	}
	if n := len(d.Deliveries("")); n != 5 {
		t.Fatalf("%d entries in all, want 5", n)
	}
	d.logMu.Lock()
	defer d.logMu.Unlock()
	if _, ok := d.logs["b"]; ok || d.logOrder.Len() != 2 || d.logTotal != 5 {
		t.Fatalf("b's empty log kept (%d logs, total %d)", d.logOrder.Len(), d.logTotal)
	}
}

// TestRing: the log's ring against a plain slice, through growth, wrap-around and drops.
func TestRing(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 2, 5, 17, 40} {
		var r ring[int]
		var want []int
		for i := range 200 {
			if i%7 == 3 && len(want) > 0 {
				r.popOldest()
				want = want[1:]
				continue
			}
			dropped := r.push(i, limit)
			want = append(want, i)
			if len(want) > limit {
				want = want[1:]
				if !dropped {
					t.Fatalf("limit %d: push %d dropped nothing at the bound", limit, i)
				}
			}
			if got := r.all(); !slices.Equal(got, want) || len(r.buf) > limit {
				t.Fatalf("limit %d after %d: %v, want %v (buffer %d)", limit, i, got, want, len(r.buf))
			}
		}
	}
}
