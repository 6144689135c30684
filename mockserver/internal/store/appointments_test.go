package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// fixture is an account whose clock is frozen at t0, with two patients.
type fixture struct {
	t      *testing.T
	clk    *clock.Clock
	acct   *Account
	p1, p2 string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := clock.New()
	clk.Set(t0)
	st := New(Options{Clock: clk})
	a := st.Account("acct")
	fx := &fixture{t: t, clk: clk, acct: a}
	for i, dst := range []*string{&fx.p1, &fx.p2} {
		p, err := a.createPatient(patients.Patient{FirstName: "P", LastName: fmt.Sprint(i), Email: "p@example.com"}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		*dst = p.ID
	}
	return fx
}

// book creates an appointment starting at t0+startMin for durMin minutes.
func (fx *fixture) book(patient, provider, room string, startMin, durMin int) (appointments.Appointment, error) {
	start := t0.Add(time.Duration(startMin) * time.Minute)
	return fx.acct.createAppointment(appointments.Appointment{
		PatientID: patient, ProviderID: provider, Service: "Facial", RoomID: room, Notes: "secret clinical note",
		StartAt: start, EndAt: start.Add(time.Duration(durMin) * time.Minute),
	}, time.Time{})
}

func (fx *fixture) mustBook(patient, provider, room string, startMin, durMin int) appointments.Appointment {
	fx.t.Helper()
	ap, err := fx.book(patient, provider, room, startMin, durMin)
	if err != nil {
		fx.t.Fatalf("book: %v", err)
	}
	return ap
}

// setStatus moves ap to status through legal transitions from scheduled.
func (fx *fixture) reach(id string, status appointments.Status) {
	fx.t.Helper()
	path := map[appointments.Status][]appointments.Status{
		appointments.StatusScheduled:  nil,
		appointments.StatusConfirmed:  {"confirmed"},
		appointments.StatusCheckedIn:  {"checked_in"},
		appointments.StatusInProgress: {"checked_in", "in_progress"},
		appointments.StatusCompleted:  {"checked_in", "completed"},
		appointments.StatusCancelled:  {"cancelled"},
		appointments.StatusNoShow:     {"no_show"},
	}[status]
	for _, s := range path {
		if _, err := fx.acct.updateAppointment(id, AppointmentChange{Status: &s}); err != nil {
			fx.t.Fatalf("reach %s via %s: %v", status, s, err)
		}
	}
}

var allStatuses = []appointments.Status{"scheduled", "confirmed", "checked_in", "in_progress", "completed", "cancelled", "no_show"}

// TestStateMachineMatrix tries every (from, to) pair of the seven statuses.
func TestStateMachineMatrix(t *testing.T) {
	t.Parallel()
	allowed := map[[2]appointments.Status]bool{}
	for _, p := range [][2]appointments.Status{
		{"scheduled", "confirmed"}, {"scheduled", "checked_in"}, {"scheduled", "cancelled"}, {"scheduled", "no_show"},
		{"confirmed", "checked_in"}, {"confirmed", "cancelled"}, {"confirmed", "no_show"},
		{"checked_in", "in_progress"}, {"checked_in", "completed"},
		{"in_progress", "completed"},
	} {
		allowed[p] = true
	}
	fx := newFixture(t)
	fx.clk.Set(t0.Add(7 * 24 * time.Hour)) // every appointment below has started: no_show is timely
	slot := 0
	for _, from := range allStatuses {
		for _, to := range allStatuses {
			t.Run(string(from)+"→"+string(to), func(t *testing.T) {
				fx.t = t
				slot += 60 // a fresh provider and slot per pair; the patient alternates
				ap := fx.mustBook(fx.p1, fmt.Sprint("prv_", slot), "", slot, 30)
				fx.reach(ap.ID, from)
				before, _ := fx.acct.GetAppointment(ap.ID)
				nEvents := len(fx.acct.Events())
				fx.clk.Advance(time.Minute)
				got, err := fx.acct.updateAppointment(ap.ID, AppointmentChange{Status: &to})
				switch {
				case from == to:
					if err != nil {
						t.Fatalf("same status: %v", err)
					}
					if got != before {
						t.Errorf("same status changed the appointment:\n%+v\n%+v", before, got)
					}
					if n := len(fx.acct.Events()); n != nEvents {
						t.Errorf("same status emitted %d events", n-nEvents)
					}
				case allowed[[2]appointments.Status{from, to}]:
					if err != nil {
						t.Fatalf("allowed transition refused: %v", err)
					}
					if got.Status != to || !got.UpdatedAt.After(before.UpdatedAt) {
						t.Errorf("status %s updatedAt %v (before %v)", got.Status, got.UpdatedAt, before.UpdatedAt)
					}
					if (to == appointments.StatusCancelled) != !got.CancelledAt.IsZero() {
						t.Errorf("cancelledAt %v for %s", got.CancelledAt, to)
					}
				default:
					p := asProblem(t, err)
					if p.Status != 409 || p.Code != "invalid_state_transition" || p.Extra["from"] != string(from) || p.Extra["to"] != string(to) {
						t.Errorf("got %d %s %v", p.Status, p.Code, p.Extra)
					}
					if after, _ := fx.acct.GetAppointment(ap.ID); after != before {
						t.Errorf("a refused transition changed the appointment")
					}
				}
			})
		}
	}
}

func TestNoShowOnlyOnceStarted(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	ap := fx.mustBook(fx.p1, "prv_1", "", 60, 30) // starts at t0+1h
	noShow := appointments.StatusNoShow
	for _, now := range []time.Time{t0, t0.Add(59*time.Minute + 59*time.Second)} {
		fx.clk.Set(now)
		_, err := fx.acct.updateAppointment(ap.ID, AppointmentChange{Status: &noShow})
		if p := asProblem(t, err); p.Code != "invalid_state_transition" || p.Extra["from"] != "scheduled" || p.Extra["to"] != "no_show" {
			t.Fatalf("no_show at %v: %v %v", now, p, p.Extra)
		}
	}
	fx.clk.Set(t0.Add(time.Hour)) // now == startAt
	got, err := fx.acct.updateAppointment(ap.ID, AppointmentChange{Status: &noShow})
	if err != nil || got.Status != noShow {
		t.Fatalf("no_show at start: %v %v", got.Status, err)
	}
}

func TestConflicts(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	base := fx.mustBook(fx.p1, "prv_a", "room_1", 60, 60) // [60, 120)
	cases := []struct {
		name                    string
		patient, provider, room string
		start, dur              int
		conflict                bool
	}{
		{"same provider overlapping", fx.p2, "prv_a", "", 90, 60, true},
		{"same provider inside", fx.p2, "prv_a", "room_2", 70, 10, true},
		{"same provider enclosing", fx.p2, "prv_a", "", 30, 120, true},
		{"same room", fx.p2, "prv_b", "room_1", 100, 30, true},
		{"same patient", fx.p1, "prv_b", "room_2", 61, 5, true},
		{"adjacent before (end == start)", fx.p1, "prv_a", "room_1", 30, 30, false},
		{"adjacent after (start == end)", fx.p1, "prv_a", "room_1", 120, 30, false},
		{"other provider, room and patient", fx.p2, "prv_b", "room_2", 60, 60, false},
		{"no room never matches another without room", fx.p2, "prv_c", "", 60, 60, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ap, err := fx.book(tc.patient, tc.provider, tc.room, tc.start, tc.dur)
			if !tc.conflict {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				_ = fx.acct.CancelAppointment(ap.ID) // free the slot for the next case
				return
			}
			p := asProblem(t, err)
			if p.Status != 409 || p.Code != "appointment_conflict" || p.Extra["conflictingId"] != base.ID {
				t.Fatalf("got %v %v", p, p.Extra)
			}
		})
	}
}

func TestInactiveAppointmentsDoNotBlock(t *testing.T) {
	t.Parallel()
	for _, st := range []appointments.Status{"cancelled", "no_show", "completed"} {
		t.Run(string(st), func(t *testing.T) {
			fx := newFixture(t)
			fx.clk.Set(t0.Add(2 * time.Hour)) // started, so no_show is allowed
			old := fx.mustBook(fx.p1, "prv_a", "room_1", 60, 60)
			fx.reach(old.ID, st)
			fx.mustBook(fx.p1, "prv_a", "room_1", 60, 60)
		})
	}
}

func TestRescheduleAndLocks(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	a1 := fx.mustBook(fx.p1, "prv_a", "", 60, 60)
	a2 := fx.mustBook(fx.p2, "prv_b", "room_1", 180, 30)
	at := func(min int) *time.Time { v := t0.Add(time.Duration(min) * time.Minute); return &v }
	str := func(s string) *string { return &s }

	// Into a conflict: refused, nothing changes.
	_, err := fx.acct.updateAppointment(a2.ID, AppointmentChange{ProviderID: str("prv_a"), StartAt: at(90), EndAt: at(120)})
	if p := asProblem(t, err); p.Code != "appointment_conflict" || p.Extra["conflictingId"] != a1.ID {
		t.Fatalf("reschedule into conflict: %v %v", p, p.Extra)
	}
	if got, _ := fx.acct.GetAppointment(a2.ID); got != a2 {
		t.Fatalf("a refused reschedule changed the appointment")
	}
	// Moving within its own slot never conflicts with itself.
	got, err := fx.acct.updateAppointment(a1.ID, AppointmentChange{StartAt: at(70)})
	if err != nil || !got.StartAt.Equal(*at(70)) || !got.EndAt.Equal(*at(120)) {
		t.Fatalf("self overlap: %+v %v", got, err)
	}
	// Reschedule before a2: the list order follows startAt.
	if _, err := fx.acct.updateAppointment(a2.ID, AppointmentChange{StartAt: at(0), EndAt: at(30)}); err != nil {
		t.Fatal(err)
	}
	list, _, _ := fx.acct.ListAppointments(AppointmentFilter{}, Window{Page: 1, PerPage: 10})
	if len(list) != 2 || list[0].ID != a2.ID || list[1].ID != a1.ID {
		t.Fatalf("order after reschedule: %v", list)
	}
	// Only one of the times, checked against the stored other one.
	_, err = fx.acct.updateAppointment(a1.ID, AppointmentChange{StartAt: at(119)})
	if p := asProblem(t, err); p.Status != 422 || len(p.Errors) != 1 || p.Errors[0].Pointer != "/startAt" {
		t.Fatalf("startAt past endAt: %v %v", p, p.Errors)
	}

	// Locked outside scheduled/confirmed.
	fx.reach(a1.ID, appointments.StatusCheckedIn)
	for name, ch := range map[string]AppointmentChange{
		"startAt":    {StartAt: at(75)},
		"endAt":      {EndAt: at(125)},
		"providerId": {ProviderID: str("prv_z")},
		"roomId":     {RoomID: str("room_9")},
		"patientId":  {PatientID: &fx.p2},
	} {
		_, err := fx.acct.updateAppointment(a1.ID, ch)
		if p := asProblem(t, err); p.Status != 409 || p.Code != "appointment_locked" {
			t.Errorf("%s: %v", name, p)
		}
	}
	// Same values are no change, and other fields stay editable.
	got, err = fx.acct.updateAppointment(a1.ID, AppointmentChange{StartAt: at(70), Service: str("Peel"), Notes: str("")})
	if err != nil || got.Service != "Peel" || got.Notes != "" {
		t.Fatalf("edit of a checked-in appointment: %+v %v", got, err)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	ap := fx.mustBook(fx.p1, "prv_a", "", 60, 60)
	fx.clk.Advance(time.Minute)
	if err := fx.acct.CancelAppointment(ap.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := fx.acct.GetAppointment(ap.ID)
	if got.Status != "cancelled" || !got.CancelledAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("%+v", got)
	}
	fx.clk.Advance(time.Minute)
	if err := fx.acct.CancelAppointment(ap.ID); err != nil {
		t.Fatalf("second cancel: %v", err)
	}
	if again, _ := fx.acct.GetAppointment(ap.ID); again != got {
		t.Fatalf("second cancel changed the appointment")
	}
	b := fx.mustBook(fx.p1, "prv_a", "", 60, 60)
	fx.reach(b.ID, appointments.StatusInProgress)
	p := asProblem(t, fx.acct.CancelAppointment(b.ID))
	if p.Code != "invalid_state_transition" || p.Extra["from"] != "in_progress" || p.Extra["to"] != "cancelled" {
		t.Fatalf("%v %v", p, p.Extra)
	}
	if p := asProblem(t, fx.acct.CancelAppointment("apt_00000000000000000000000000000000")); p.Status != 404 {
		t.Fatal(p)
	}
	// A reason goes with the cancellation, not before it.
	c := fx.mustBook(fx.p2, "prv_c", "", 60, 60)
	reason := "patient unwell"
	_, err := fx.acct.updateAppointment(c.ID, AppointmentChange{CancellationReason: &reason})
	if p := asProblem(t, err); p.Status != 422 || p.Errors[0].Pointer != "/cancellationReason" {
		t.Fatalf("%v", p)
	}
	cancelled := appointments.StatusCancelled
	got, err = fx.acct.updateAppointment(c.ID, AppointmentChange{Status: &cancelled, CancellationReason: &reason})
	if err != nil || got.CancellationReason != reason || got.CancelledAt.IsZero() {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestCreateRules(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	_, err := fx.book("pat_00000000000000000000000000000000", "prv", "", 0, 30)
	if p := asProblem(t, err); p.Status != 422 || p.Errors[0].Pointer != "/patientId" || p.Errors[0].Code != "not_found" {
		t.Fatalf("%v %v", p, p.Errors)
	}
	for _, dur := range []int{-5, 0, 4, 721} {
		if _, err := fx.book(fx.p1, "prv", "", 0, dur); asProblem(t, err).Status != 422 {
			t.Errorf("duration %d accepted", dur)
		}
	}
	for _, dur := range []int{5, 720} {
		ap := fx.mustBook(fx.p1, "prv", "", 0, dur)
		_ = fx.acct.CancelAppointment(ap.ID)
	}
	backdated := t0.Add(-30 * 24 * time.Hour)
	ap, err := fx.acct.createAppointment(appointments.Appointment{
		PatientID: fx.p1, ProviderID: "prv", Service: "s", StartAt: t0, EndAt: t0.Add(time.Hour), Status: "confirmed",
	}, backdated)
	if err != nil || !ap.CreatedAt.Equal(backdated) || ap.Status != "confirmed" {
		t.Fatalf("%+v %v", ap, err)
	}
}

func TestNotesSealedAndEvents(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	ap := fx.mustBook(fx.p1, "prv_a", "room_1", 60, 60)
	confirmed, cancelled := appointments.StatusConfirmed, appointments.StatusCancelled
	notes := "new secret note"
	steps := []AppointmentChange{
		{Status: &confirmed},
		{Notes: &notes},
		{Status: &confirmed}, // no-op: no event
		{Status: &cancelled},
	}
	for _, ch := range steps {
		if _, err := fx.acct.updateAppointment(ap.ID, ch); err != nil {
			t.Fatal(err)
		}
	}
	_ = fx.acct.CancelAppointment(ap.ID) // already cancelled: no event
	var evs []Event
	for _, e := range fx.acct.Events() {
		if strings.HasPrefix(string(e.Type), "appointment.") {
			evs = append(evs, e)
		}
	}
	want := []struct {
		typ          webhooks.EventType
		status, prev string
	}{
		{webhooks.EventAppointmentCreated, "scheduled", ""},
		{webhooks.EventAppointmentUpdated, "confirmed", "scheduled"},
		{webhooks.EventAppointmentUpdated, "confirmed", ""},
		{webhooks.EventAppointmentCancelled, "cancelled", "confirmed"},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d appointment events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, w := range want {
		d, ok := evs[i].Data.(*webhooks.AppointmentData)
		if evs[i].Type != w.typ || !ok || d.Status != w.status || d.PreviousStatus != w.prev || d.ID != ap.ID ||
			d.PatientID != fx.p1 || d.ProviderID != "prv_a" || d.RoomID != "room_1" || !d.StartAt.Equal(ap.StartAt) || !d.EndAt.Equal(ap.EndAt) {
			t.Errorf("event %d: %s %+v", i, evs[i].Type, evs[i].Data)
		}
	}
	// Neither events nor the persisted data carry the notes in the clear.
	fx.acct.mu.RLock()
	state, err := json.Marshal(fx.acct.data)
	fx.acct.mu.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	evJSON, _ := json.Marshal(fx.acct.Events())
	for _, b := range [][]byte{state, evJSON} {
		if strings.Contains(string(b), "secret") {
			t.Errorf("plaintext notes in %.200s", b)
		}
	}
	// Round trip of the data (snapshots): the notes come back.
	restored := newData()
	if err := json.Unmarshal(state, restored); err != nil {
		t.Fatal(err)
	}
	fx.acct.mu.Lock()
	fx.acct.data = restored
	fx.acct.mu.Unlock()
	if got, err := fx.acct.GetAppointment(ap.ID); err != nil || got.Notes != notes {
		t.Fatalf("after restore: %q %v", got.Notes, err)
	}
}

func TestAppointmentsBetween(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	var ids []string
	for i := range 5 {
		ids = append(ids, fx.mustBook(fx.p1, "prv", "", i*60, 30).ID)
	}
	var got []string
	fx.acct.AppointmentsBetween(t0.Add(60*time.Minute), t0.Add(180*time.Minute), func(r *AppointmentRecord) {
		if r.Sealed != nil {
			t.Error("sealed notes handed out")
		}
		got = append(got, r.ID)
	})
	if fmt.Sprint(got) != fmt.Sprint(ids[1:3]) {
		t.Fatalf("got %v want %v", got, ids[1:3])
	}
	got = nil
	fx.acct.AppointmentsBetween(time.Time{}, time.Time{}, func(r *AppointmentRecord) { got = append(got, r.ID) })
	if len(got) != 5 {
		t.Fatalf("unbounded: %v", got)
	}
}

// TestConcurrentBookingsStore races creates for one slot straight at the store.
func TestConcurrentBookingsStore(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var won []string
	var conflicts []string
	for i := range 50 {
		wg.Go(func() {
			ap, err := fx.book(fx.p1, "prv", "", i%7, 30) // overlapping starts
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won = append(won, ap.ID)
				return
			}
			if p, ok := viewOf(err); ok && p.Code == "appointment_conflict" {
				conflicts = append(conflicts, p.Extra["conflictingId"].(string))
			}
		})
	}
	wg.Wait()
	if len(won) != 1 || len(conflicts) != 49 {
		t.Fatalf("%d won, %d conflicts", len(won), len(conflicts))
	}
	for _, c := range conflicts {
		if c != won[0] {
			t.Fatalf("conflictingId %s, winner %s", c, won[0])
		}
	}
}
