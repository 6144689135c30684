package mockserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// Moving the server clock moves every account: those that follow it and those whose time was
// set, each by the same amount; setting the server clock leaves a set account alone.
func TestAdvanceServerClockMovesAccountsWithTheirOwnTime(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ts := mockserver.NewTest(t, mockserver.WithStartTime(start))
	_, follower, err := ts.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	_, advanced, err := ts.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	set := start.AddDate(-1, 0, 0)
	ts.SetTime(set)                                        // the test's account: a time of its own
	ts.Server.AdvanceTime(advanced.Account, 5*time.Minute) // another account: a clock of its own too
	ts.Server.AdvanceTime("", time.Hour)

	for _, c := range []struct {
		name, account string
		want          time.Time
	}{
		{"server clock", "", start.Add(time.Hour)},
		{"an account following it", follower.Account, start.Add(time.Hour)},
		{"the test's account, set a year back", ts.Account, set.Add(time.Hour)},
		{"an account advanced on its own", advanced.Account, start.Add(time.Hour + 5*time.Minute)},
	} {
		if got := ts.Server.Now(c.account); !got.Equal(c.want) || !ts.Server.Frozen(c.account) {
			t.Errorf("%s: %v (frozen %v), want %v frozen", c.name, got, ts.Server.Frozen(c.account), c.want)
		}
	}
	if !ts.Now().Equal(set.Add(time.Hour)) {
		t.Errorf("ts.Now() = %v, want %v", ts.Now(), set.Add(time.Hour))
	}
	// The API stamps what it writes with the moved time.
	p, _, err := ts.Client.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"})
	if err != nil || !p.CreatedAt.Equal(set.Add(time.Hour)) {
		t.Fatalf("createdAt %v, %v; want %v", p, err, set.Add(time.Hour))
	}

	// SetTime("") sets the server clock and its followers only.
	ts.Server.SetTime("", start)
	if !ts.Server.Now(follower.Account).Equal(start) || !ts.Now().Equal(set.Add(time.Hour)) {
		t.Errorf("after SetTime(\"\"): follower %v, set account %v", ts.Server.Now(follower.Account), ts.Now())
	}
	// RealTime(account) makes the account follow the server clock again.
	ts.RealTime()
	ts.Server.AdvanceTime("", time.Minute)
	if want := start.Add(time.Minute); !ts.Now().Equal(want) {
		t.Errorf("after RealTime(): %v, want %v", ts.Now(), want)
	}
}

// The admin clock takes the same path: advancing the server clock over HTTP moves an account
// whose time was set.
func TestAdminAdvanceMovesAccountsWithTheirOwnTime(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ts := mockserver.NewTest(t, mockserver.WithStartTime(start))
	hs := httptest.NewServer(ts)
	t.Cleanup(hs.Close)
	ts.SetTime(start.Add(-24 * time.Hour))
	if a := (adminCall{"POST", "/__admin/clock", `{"advance":"90m"}`, nil}).do(t, hs.URL); a.status != 200 {
		t.Fatalf("advance: %d %s", a.status, a.body)
	}
	a := (adminCall{"GET", "/__admin/clock?account=" + ts.Account, "", nil}).do(t, hs.URL)
	var got struct {
		Now    time.Time
		Frozen bool
	}
	if err := json.Unmarshal(a.body, &got); err != nil || a.status != 200 {
		t.Fatalf("clock: %d %s", a.status, a.body)
	}
	if want := start.Add(-24*time.Hour + 90*time.Minute); !got.Now.Equal(want) || !got.Frozen {
		t.Errorf("the account's clock after the server's advanced 90m: %+v, want %v frozen", got, want)
	}
}

// The short forms act on the test's account; the explicit form reaches the others.
func TestTestServerShortForms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ts := mockserver.NewTest(t)
	other, otherKey, err := ts.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	rec := ts.RecordEvents()
	defer rec.Stop()
	ids, err := ts.LoadFixtures(mockserver.Fixtures{Patients: []any{patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Snapshot("one"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ts.Client.Patients.Create(ctx, &patients.CreateParams{FirstName: "C", LastName: "D", Email: "c@d.co"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.Patients.Create(ctx, &patients.CreateParams{FirstName: "E", LastName: "F", Email: "e@f.co"}); err != nil {
		t.Fatal(err)
	}
	if n := len(ts.Requests()); n != 1 {
		t.Errorf("ts.Requests(): %d entries, want the test account's one", n)
	}
	if n := len(ts.Server.Requests(otherKey.Account)); n != 1 {
		t.Errorf("ts.Server.Requests(other): %d entries, want 1", n)
	}
	if err := ts.Restore("one"); err != nil {
		t.Fatal(err)
	}
	page, _, err := ts.Client.Patients.List(ctx, nil)
	if err != nil || page.Meta.Total != 1 || page.Data[0].ID != ids.Patients[0] {
		t.Fatalf("after Restore: %+v %v", page, err)
	}
	if err := ts.Reset(); err != nil {
		t.Fatal(err)
	}
	if p, _, err := ts.Client.Patients.List(ctx, nil); err != nil || p.Meta.Total != 0 {
		t.Errorf("after Reset: %+v %v", p, err)
	}
	if p, _, err := other.Patients.List(ctx, nil); err != nil || p.Meta.Total != 1 {
		t.Errorf("another account after ts.Reset(): %+v %v", p, err)
	}
	if events := rec.Events(); len(events) != 2 { // the fixture's and the API's patient.created
		t.Errorf("recorded %d events of the test's account, want 2", len(events))
	}
	if len(ts.AuditEvents()) == 0 || !ts.AuditLog().Verified {
		t.Errorf("the test account's audit log: %+v", ts.AuditLog())
	}
	if page, err := ts.AuditEventsAfter(mockserver.AuditZeroID); err != nil || len(page.Events) == 0 {
		t.Errorf("AuditEventsAfter: %+v %v", page, err)
	}
	if len(ts.Deliveries()) != 0 || ts.Frozen() {
		t.Errorf("deliveries %v, frozen %v", ts.Deliveries(), ts.Frozen())
	}
}
