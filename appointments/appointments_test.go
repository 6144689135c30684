package appointments_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/patients"
)

var ctx = context.Background()

// badCtx marks calls that break the OpenAPI document on purpose (malformed ids, invalid
// bodies), so only the responses are validated.
var badCtx = oapitest.WithoutRequestValidation(ctx)

// t0 is a fixed morning; each env's account clock is frozen at t0 - 24h, so every slot below
// is in the future until a test moves the clock.
var t0 = time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)

type env struct {
	*testenv.Env
	c *medspa.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := testenv.New(t, nil)
	e.Server.SetTime(e.Key.Account, t0.Add(-24*time.Hour))
	return &env{Env: e, c: e.Client}
}

// at is t0 plus min minutes.
func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func (e *env) patient(t *testing.T, name string) string {
	t.Helper()
	p, _, err := e.c.Patients.Create(ctx, &patients.CreateParams{FirstName: name, LastName: "Test", Email: name + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func (e *env) book(t *testing.T, p appointments.CreateParams) *appointments.Appointment {
	t.Helper()
	if p.Service == "" {
		p.Service = "Facial"
	}
	ap, _, err := e.c.Appointments.Create(ctx, &p)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return ap
}

func (e *env) setStatus(t *testing.T, id string, s appointments.Status) *appointments.Appointment {
	t.Helper()
	ap, _, err := e.c.Appointments.Update(ctx, id, &appointments.UpdateParams{Status: client.Set(s)})
	if err != nil {
		t.Fatalf("status %s: %v", s, err)
	}
	return ap
}

// apiError returns err as a *client.Error that matches sentinel.
func apiError(t *testing.T, err, sentinel error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, sentinel) {
		t.Fatalf("want %v, got %v", sentinel, err)
	}
	return e
}

func TestCreateGetRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	local := time.FixedZone("X", -5*3600)
	ap := e.book(t, appointments.CreateParams{
		PatientID: pid, ProviderID: "prv_9", Service: "Botox — forehead",
		StartAt: at(0).In(local).Add(400 * time.Millisecond), EndAt: at(45).In(local),
		RoomID: "room_2", Notes: "Allergic to lidocaine.", Status: appointments.StatusConfirmed,
	})
	now := t0.Add(-24 * time.Hour)
	want := appointments.Appointment{
		ID: ap.ID, PatientID: pid, ProviderID: "prv_9", Service: "Botox — forehead", StartAt: at(0), EndAt: at(45),
		RoomID: "room_2", Notes: "Allergic to lidocaine.", Status: appointments.StatusConfirmed, CreatedAt: now, UpdatedAt: now,
	}
	if *ap != want {
		t.Fatalf("created\n got %+v\nwant %+v", *ap, want)
	}
	if ap.StartAt.Location() != time.UTC {
		t.Errorf("startAt not in UTC: %v", ap.StartAt)
	}
	got, _, err := e.c.Appointments.Get(ctx, ap.ID)
	if err != nil || *got != want {
		t.Fatalf("Get: %+v %v", got, err)
	}
	// Default status, no room, no notes.
	plain := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv_9", StartAt: at(45), EndAt: at(60)})
	if plain.Status != appointments.StatusScheduled || plain.RoomID != "" || plain.Notes != "" || !plain.CancelledAt.IsZero() {
		t.Fatalf("%+v", plain)
	}
	for _, id := range []string{"apt_00000000000000000000000000000000", "apt_123", "pat_00000000000000000000000000000000"} {
		_, _, err := e.c.Appointments.Get(badCtx, id)
		apiError(t, err, client.ErrNotFound)
	}
}

func TestUpdateMergePatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p1, p2 := e.patient(t, "ada"), e.patient(t, "bob")
	ap := e.book(t, appointments.CreateParams{PatientID: p1, ProviderID: "prv_1", StartAt: at(0), EndAt: at(30), RoomID: "r1", Notes: "n"})
	e.Server.AdvanceTime(e.Key.Account, time.Minute)
	got, _, err := e.c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{
		PatientID: client.Set(p2), ProviderID: client.Set("prv_2"), Service: client.Set("Peel"),
		StartAt: client.Set(at(60)), EndAt: client.Set(at(120)), RoomID: client.Null[string](), Notes: client.Null[string](),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.PatientID != p2 || got.ProviderID != "prv_2" || got.Service != "Peel" || !got.StartAt.Equal(at(60)) ||
		!got.EndAt.Equal(at(120)) || got.RoomID != "" || got.Notes != "" || !got.UpdatedAt.Equal(ap.UpdatedAt.Add(time.Minute)) {
		t.Fatalf("%+v", got)
	}
	// Only endAt: checked against the stored startAt.
	_, _, err = e.c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{EndAt: client.Set(at(60 + 721))})
	if ae := apiError(t, err, client.ErrValidation); len(ae.Fields) != 1 || ae.Fields[0].Pointer != "/endAt" || ae.Fields[0].Code != "out_of_range" {
		t.Fatalf("%+v", ae.Fields)
	}
	// An empty patch changes nothing.
	e.Server.AdvanceTime(e.Key.Account, time.Minute)
	same, _, err := e.c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{})
	if err != nil || *same != *got {
		t.Fatalf("empty patch: %+v %v", same, err)
	}
}

// TestStateMachineOverHTTP walks every (from, to) pair of the seven statuses through PATCH.
func TestStateMachineOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	statuses := []appointments.Status{"scheduled", "confirmed", "checked_in", "in_progress", "completed", "cancelled", "no_show"}
	allowed := map[appointments.Status][]appointments.Status{
		"scheduled":   {"confirmed", "checked_in", "cancelled", "no_show"},
		"confirmed":   {"checked_in", "cancelled", "no_show"},
		"checked_in":  {"in_progress", "completed"},
		"in_progress": {"completed"},
	}
	reach := map[appointments.Status][]appointments.Status{
		"confirmed": {"confirmed"}, "checked_in": {"checked_in"}, "in_progress": {"checked_in", "in_progress"},
		"completed": {"checked_in", "completed"}, "cancelled": {"cancelled"}, "no_show": {"no_show"},
	}
	// Book every pair's appointment in the past of a moved clock, so no_show is timely.
	type pair struct{ from, to appointments.Status }
	ids := map[pair]string{}
	slot := 0
	for _, from := range statuses {
		for _, to := range statuses {
			ids[pair{from, to}] = e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(slot), EndAt: at(slot + 30)}).ID
			slot += 30
		}
	}
	e.Server.SetTime(e.Key.Account, at(slot+60))
	for _, from := range statuses {
		for _, to := range statuses {
			t.Run(string(from)+"→"+string(to), func(t *testing.T) {
				id := ids[pair{from, to}]
				for _, s := range reach[from] {
					e.setStatus(t, id, s)
				}
				before, _, _ := e.c.Appointments.Get(ctx, id)
				e.Server.AdvanceTime(e.Key.Account, time.Second)
				got, _, err := e.c.Appointments.Update(ctx, id, &appointments.UpdateParams{Status: client.Set(to)})
				switch {
				case from == to:
					if err != nil || *got != *before {
						t.Fatalf("same status: %+v %v (before %+v)", got, err, before)
					}
				case slices.Contains(allowed[from], to):
					if err != nil || got.Status != to || !got.UpdatedAt.After(before.UpdatedAt) {
						t.Fatalf("allowed: %+v %v", got, err)
					}
				default:
					ae := apiError(t, err, client.ErrInvalidStateTransition)
					if ae.Status != 409 || ae.From != string(from) || ae.To != string(to) {
						t.Fatalf("%+v", ae)
					}
				}
			})
		}
	}
}

func TestNoShowFollowsTheClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	ap := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(30)})
	_, _, err := e.c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{Status: client.Set(appointments.StatusNoShow)})
	if ae := apiError(t, err, client.ErrInvalidStateTransition); ae.From != "scheduled" || ae.To != "no_show" {
		t.Fatalf("%+v", ae)
	}
	e.Server.SetTime(e.Key.Account, at(0))
	if got := e.setStatus(t, ap.ID, appointments.StatusNoShow); got.Status != appointments.StatusNoShow {
		t.Fatal(got.Status)
	}
}

func TestConflictsAndLocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p1, p2 := e.patient(t, "ada"), e.patient(t, "bob")
	first := e.book(t, appointments.CreateParams{PatientID: p1, ProviderID: "prv_a", RoomID: "r1", StartAt: at(0), EndAt: at(60)})
	for name, p := range map[string]appointments.CreateParams{
		"provider": {PatientID: p2, ProviderID: "prv_a", StartAt: at(30), EndAt: at(90)},
		"room":     {PatientID: p2, ProviderID: "prv_b", RoomID: "r1", StartAt: at(59), EndAt: at(64)},
		"patient":  {PatientID: p1, ProviderID: "prv_b", StartAt: at(-30), EndAt: at(1)},
	} {
		p.Service = "s"
		_, _, err := e.c.Appointments.Create(ctx, &p)
		if ae := apiError(t, err, client.ErrAppointmentConflict); ae.Status != 409 || ae.ConflictingID != first.ID {
			t.Errorf("%s: %+v", name, ae)
		}
	}
	// Adjacent slots are free.
	next := e.book(t, appointments.CreateParams{PatientID: p1, ProviderID: "prv_a", RoomID: "r1", StartAt: at(60), EndAt: at(90)})
	e.book(t, appointments.CreateParams{PatientID: p1, ProviderID: "prv_a", RoomID: "r1", StartAt: at(-30), EndAt: at(0)})
	// Rescheduling into a conflict is refused.
	_, _, err := e.c.Appointments.Update(ctx, next.ID, &appointments.UpdateParams{StartAt: client.Set(at(45))})
	if ae := apiError(t, err, client.ErrAppointmentConflict); ae.ConflictingID != first.ID {
		t.Errorf("%+v", ae)
	}
	// A cancelled appointment frees its slot.
	if _, _, err := e.c.Appointments.Cancel(ctx, first.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.c.Appointments.Update(ctx, next.ID, &appointments.UpdateParams{StartAt: client.Set(at(45))}); err != nil {
		t.Fatalf("reschedule into a cancelled slot: %v", err)
	}
	// Locked once checked in.
	e.setStatus(t, next.ID, appointments.StatusCheckedIn)
	for name, p := range map[string]appointments.UpdateParams{
		"startAt":    {StartAt: client.Set(at(50))},
		"endAt":      {EndAt: client.Set(at(100))},
		"providerId": {ProviderID: client.Set("prv_z")},
		"roomId":     {RoomID: client.Null[string]()},
	} {
		_, _, err := e.c.Appointments.Update(ctx, next.ID, &p)
		if ae := apiError(t, err, client.ErrAppointmentLocked); ae.Status != 409 {
			t.Errorf("%s: %+v", name, ae)
		}
	}
}

// TestConcurrentBooking races 50 bookings of overlapping slots for one provider, per slot:
// exactly one wins, every other answer is a conflict naming the winner.
func TestConcurrentBooking(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var pids []string
	for i := range 5 {
		pids = append(pids, e.patient(t, fmt.Sprint("p", i)))
	}
	for slot := range 3 {
		start := at(slot * 120)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var won []string
		var lost []*client.Error
		for i := range 50 {
			wg.Go(func() {
				off := time.Duration(i%10) * time.Minute
				ap, _, err := e.c.Appointments.Create(ctx, &appointments.CreateParams{
					PatientID: pids[i%len(pids)], ProviderID: "prv_busy", Service: "s",
					StartAt: start.Add(off), EndAt: start.Add(off + 30*time.Minute),
				})
				mu.Lock()
				defer mu.Unlock()
				var ae *client.Error
				switch {
				case err == nil:
					won = append(won, ap.ID)
				case errors.As(err, &ae) && errors.Is(err, client.ErrAppointmentConflict):
					lost = append(lost, ae)
				default:
					t.Errorf("unexpected: %v", err)
				}
			})
		}
		wg.Wait()
		if len(won) != 1 || len(lost) != 49 {
			t.Fatalf("slot %d: %d won, %d conflicts", slot, len(won), len(lost))
		}
		for _, ae := range lost {
			if ae.ConflictingID != won[0] {
				t.Fatalf("slot %d: conflictingId %s, winner %s", slot, ae.ConflictingID, won[0])
			}
		}
	}
	page, _, err := e.c.Appointments.List(ctx, &appointments.ListParams{ProviderID: "prv_busy"})
	if err != nil || page.Meta.Total != 3 {
		t.Fatalf("%v %v", page, err)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	ap := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(30), Status: appointments.StatusConfirmed})
	e.Server.AdvanceTime(e.Key.Account, time.Minute)
	// Cancel returns the cancelled appointment; cancelling again (a retry) changes nothing.
	var cancelled []*appointments.Appointment
	for range 2 {
		got, resp, err := e.c.Appointments.Cancel(ctx, ap.ID, "Patient unwell")
		if err != nil || resp.StatusCode != 200 {
			t.Fatal(err, resp)
		}
		cancelled = append(cancelled, got)
	}
	got, _, _ := e.c.Appointments.Get(ctx, ap.ID)
	if got.Status != appointments.StatusCancelled || !got.CancelledAt.Equal(ap.CreatedAt.Add(time.Minute)) || !got.UpdatedAt.Equal(got.CancelledAt) ||
		got.CancellationReason != "Patient unwell" {
		t.Fatalf("%+v", got)
	}
	for _, c := range cancelled {
		if !reflect.DeepEqual(c, got) {
			t.Errorf("Cancel returned %+v, the appointment is %+v", c, got)
		}
	}
	// The raw answer is 204 with no body.
	b := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(30)})
	resp, body := e.Do(t, "DELETE", "/api/v1/appointments/"+b.ID, "")
	if resp.StatusCode != 204 || len(body) != 0 {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	// With a reason, through PATCH.
	c := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(30)})
	got, _, err := e.c.Appointments.Update(ctx, c.ID, &appointments.UpdateParams{
		Status: client.Set(appointments.StatusCancelled), CancellationReason: client.Set("Patient unwell"),
	})
	if err != nil || got.CancellationReason != "Patient unwell" || got.CancelledAt.IsZero() {
		t.Fatalf("%+v %v", got, err)
	}
	// Not once the visit is under way.
	d := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(30)})
	e.setStatus(t, d.ID, appointments.StatusCheckedIn)
	_, _, err = e.c.Appointments.Cancel(ctx, d.ID, "")
	if ae := apiError(t, err, client.ErrInvalidStateTransition); ae.From != "checked_in" || ae.To != "cancelled" {
		t.Fatalf("%+v", ae)
	}
	for _, id := range []string{"apt_00000000000000000000000000000000", "nope"} {
		_, _, err := e.c.Appointments.Cancel(badCtx, id, "")
		apiError(t, err, client.ErrNotFound)
	}
}

func TestListFiltersOrderAndPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p1, p2 := e.patient(t, "ada"), e.patient(t, "bob")
	// Created out of startAt order: the list is by (startAt, id).
	mk := func(pid, prv string, min int) string {
		return e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: prv, StartAt: at(min), EndAt: at(min + 30)}).ID
	}
	d2a := mk(p1, "prv_a", 24*60) // day 2
	d1a := mk(p1, "prv_a", 0)     // day 1 09:00
	d1b := mk(p2, "prv_b", 0)     // day 1 09:00, other provider
	d1c := mk(p2, "prv_a", 60)    // day 1 10:00
	d3b := mk(p1, "prv_b", 48*60) // day 3
	d2b := mk(p2, "prv_b", 24*60+60)
	e.setStatus(t, d1c, appointments.StatusConfirmed)
	if _, _, err := e.c.Appointments.Cancel(ctx, d3b, ""); err != nil {
		t.Fatal(err)
	}
	firstDay := []string{d1a, d1b}
	slices.Sort(firstDay) // same startAt: by id
	all := append(firstDay, d1c, d2a, d2b, d3b)

	ids := func(p *appointments.ListParams) []string {
		t.Helper()
		var out []string
		for ap, err := range e.c.Appointments.All(ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ap.ID)
		}
		return out
	}
	cases := []struct {
		name string
		p    appointments.ListParams
		want []string
	}{
		{"all, paged by 2", appointments.ListParams{ListOptions: client.ListOptions{PerPage: 2}}, all},
		{"patient", appointments.ListParams{PatientID: p1}, []string{d1a, d2a, d3b}},
		{"provider", appointments.ListParams{ProviderID: "prv_b"}, []string{d1b, d2b, d3b}},
		{"patient and provider", appointments.ListParams{PatientID: p2, ProviderID: "prv_a"}, []string{d1c}},
		{"one status", appointments.ListParams{Status: []appointments.Status{appointments.StatusCancelled}}, []string{d3b}},
		{"statuses", appointments.ListParams{Status: []appointments.Status{"confirmed", "cancelled"}}, []string{d1c, d3b}},
		{"from inclusive", appointments.ListParams{From: at(60)}, []string{d1c, d2a, d2b, d3b}},
		{"to exclusive", appointments.ListParams{To: at(24 * 60)}, all[:3]},
		{"one day", appointments.ListParams{From: at(24 * 60), To: at(48 * 60)}, []string{d2a, d2b}},
		{"nothing", appointments.ListParams{ProviderID: "prv_none"}, nil},
	}
	for _, tc := range cases {
		if got := ids(&tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
	page, _, err := e.c.Appointments.List(ctx, &appointments.ListParams{ListOptions: client.ListOptions{Page: 2, PerPage: 4}})
	if err != nil || page.Meta != (client.Meta{Total: 6, Page: 2, PerPage: 4}) || len(page.Data) != 2 || page.Data[0].ID != all[4] {
		t.Fatalf("page 2: %+v %v", page, err)
	}
	past, _, err := e.c.Appointments.List(ctx, &appointments.ListParams{ListOptions: client.ListOptions{Page: 9}})
	if err != nil || len(past.Data) != 0 || past.Meta.Total != 6 {
		t.Fatalf("past the end: %+v %v", past, err)
	}
}
