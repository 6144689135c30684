package appointments_test

import (
	"context"
	"errors"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/wiretest"
)

const appointmentJSON = `{"id":"` + wiretest.AppointmentID + `","patientId":"` + wiretest.PatientID + `","providerId":"prv_9",` +
	`"service":"Botox","startAt":"2026-11-22T14:03:00Z","endAt":"2026-11-22T15:03:00Z","status":"scheduled",` +
	`"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","reminderSent":true}`

const cancelledJSON = `{"id":"` + wiretest.AppointmentID + `","patientId":"` + wiretest.PatientID + `","providerId":"prv_9",` +
	`"service":"Botox","startAt":"2026-11-22T14:03:00Z","endAt":"2026-11-22T15:03:00Z","status":"cancelled",` +
	`"cancelledAt":"2026-11-22T11:00:00Z","cancellationReason":"patient ill",` +
	`"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T11:00:00Z"}`

var wantCancelled = &appointments.Appointment{
	ID: wiretest.AppointmentID, PatientID: wiretest.PatientID, ProviderID: "prv_9", Service: "Botox",
	StartAt: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC), EndAt: time.Date(2026, 11, 22, 15, 3, 0, 0, time.UTC),
	Status: appointments.StatusCancelled, CancelledAt: time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC), CancellationReason: "patient ill",
	CreatedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC),
}

var wantAppointment = &appointments.Appointment{
	ID: wiretest.AppointmentID, PatientID: wiretest.PatientID, ProviderID: "prv_9", Service: "Botox",
	StartAt: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC), EndAt: time.Date(2026, 11, 22, 15, 3, 0, 0, time.UTC),
	Status: appointments.StatusScheduled, CreatedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
	UpdatedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
}

// TestWire holds every method of the appointments service to the protocol (docs/protocol.md §2,
// §3, §9): exactly what it sends, times as UTC "Z" whole seconds whatever the caller's zone and
// precision, and what it makes of the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	path := "/api/v1/appointments"
	one := path + "/" + wiretest.AppointmentID
	wiretest.Run(t, []wiretest.Case{{
		Name: "Create writes UTC whole seconds",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: wiretest.PatientID, ProviderID: "prv_9", Service: "Botox",
				StartAt: wiretest.OddTime, EndAt: wiretest.OddTime.Add(time.Hour), RoomID: "room-2", Status: appointments.StatusConfirmed})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: path, Body: `{"patientId":"` + wiretest.PatientID + `","providerId":"prv_9",` +
				`"service":"Botox","roomId":"room-2","status":"confirmed","startAt":"2026-11-22T14:03:00Z","endAt":"2026-11-22T15:03:00Z"}`},
			Status: 201, Answer: appointmentJSON,
		},
		Check: wiretest.Equal(wantAppointment),
	}, {
		Name: "Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Get(ctx, wiretest.AppointmentID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one}, Answer: appointmentJSON},
		Check:    wiretest.Equal(wantAppointment),
	}, {
		Name: "Update writes UTC whole seconds",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Update(ctx, wiretest.AppointmentID, &appointments.UpdateParams{StartAt: client.Set(wiretest.OddTime),
				EndAt: client.Set(wiretest.OddTime.Add(90 * time.Minute)), RoomID: client.Null[string](), Status: client.Set(appointments.StatusConfirmed)})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "PATCH", Path: one,
				Body: `{"startAt":"2026-11-22T14:03:00Z","endAt":"2026-11-22T15:33:00Z","roomId":null,"status":"confirmed"}`},
			Answer: appointmentJSON,
		},
		Check: wiretest.Equal(wantAppointment),
	}, {
		// Cancel is one PATCH of status and reason (docs/protocol.md §9), answered with the
		// cancelled appointment.
		Name: "Cancel with a reason",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Cancel(ctx, wiretest.AppointmentID, "patient ill")
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "PATCH", Path: one, Body: `{"status":"cancelled","cancellationReason":"patient ill"}`},
			Answer: cancelledJSON,
		},
		Check: wiretest.Equal(wantCancelled),
	}, {
		Name: "Cancel without a reason",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Cancel(ctx, wiretest.AppointmentID, "")
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{"status":"cancelled"}`}, Answer: cancelledJSON},
		Check:    wiretest.Equal(wantCancelled),
	}, {
		// A retry resends the same PATCH: it is idempotent on the server (the current status
		// again changes nothing), so a 503 is retried like any PATCH.
		Name: "Cancel retried after a 503",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Cancel(ctx, wiretest.AppointmentID, "patient ill")
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "PATCH", Path: one, Body: `{"status":"cancelled","cancellationReason":"patient ill"}`},
			Status: 503, Answer: `{"code":"service_unavailable","status":503}`,
		},
		Then: []wiretest.Exchange{{
			Want:   wiretest.Want{Method: "PATCH", Path: one, Body: `{"status":"cancelled","cancellationReason":"patient ill"}`},
			Answer: cancelledJSON,
		}},
		Check: wiretest.Equal(wantCancelled),
	}, {
		Name: "List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.List(ctx, &appointments.ListParams{ListOptions: client.ListOptions{PerPage: 10},
				PatientID: wiretest.PatientID, ProviderID: "prv 9", Status: []appointments.Status{appointments.StatusScheduled, appointments.StatusConfirmed},
				From: wiretest.OddTime, To: wiretest.OddTime.AddDate(0, 0, 7)})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: path, Query: "from=" + wiretest.OddTimeQuery + "&patientId=" + wiretest.PatientID +
				"&perPage=10&providerId=prv+9&status=scheduled%2Cconfirmed&to=2026-11-29T14%3A03%3A00Z"},
			Answer: wiretest.Page(appointmentJSON, 1, 1, 10),
		},
		Check: func(t *testing.T, got any) {
			if p := got.(*client.Page[appointments.Appointment]); len(p.Data) != 1 || p.HasMore() {
				t.Errorf("page %+v", p)
			}
		},
	}, {
		Name: "All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Appointments.All(ctx, &appointments.ListParams{ProviderID: "prv_9"}))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: path, Query: "page=1&providerId=prv_9"},
			Answer: wiretest.Page(`{"id":"apt_1"},{"id":"apt_2"}`, 3, 1, 2)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: path, Query: "page=2&providerId=prv_9"},
			Answer: wiretest.Page(`{"id":"apt_3"}`, 3, 2, 2)}},
		Check: wiretest.Yielded(3),
	}, {
		Name: "Create conflict",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: wiretest.PatientID, ProviderID: "prv_9", Service: "Botox",
				StartAt: wiretest.OddTime.Truncate(time.Second), EndAt: wiretest.OddTime.Add(time.Hour).Truncate(time.Second)})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: path, Body: `{"patientId":"` + wiretest.PatientID + `","providerId":"prv_9",` +
				`"service":"Botox","startAt":"2026-11-22T14:03:00Z","endAt":"2026-11-22T15:03:00Z"}`},
			Status: 409, Answer: `{"type":"https://docs.medspa.dev/errors/appointment_conflict","title":"Appointment conflict","status":409,` +
				`"code":"appointment_conflict","detail":"overlaps","requestId":"req_1","conflictingId":"` + wiretest.AppointmentID + `"}`,
		},
		Err: func(t *testing.T, err error) {
			var e *medspa.Error
			if !errors.Is(err, medspa.ErrAppointmentConflict) || !errors.As(err, &e) || e.ConflictingID != wiretest.AppointmentID {
				t.Errorf("err %v", err)
			}
		},
	}, {
		// A hostile answer: notes (PHI) where a status is due. The error names the field only.
		Name: "Get with a wrongly typed status",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Appointments.Get(ctx, wiretest.AppointmentID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one},
			Answer: `{"id":"x","status":["allergic to latex"]}`},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "latex") },
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"Get empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Get(ctx, "")
			return err
		},
		"Cancel empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Cancel(ctx, "", "")
			return err
		},
		"Cancel dot": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Cancel(ctx, ".", "")
			return err
		},
		"Cancel a fragment": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Cancel(ctx, "apt_1#x", "")
			return err
		},
		"List an unknown status": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.List(ctx, &appointments.ListParams{Status: []appointments.Status{appointments.StatusScheduled, "canceled"}})
			return err
		},
		"Update to an unknown status": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Update(ctx, wiretest.AppointmentID, &appointments.UpdateParams{Status: client.Set[appointments.Status]("done")})
			return err
		},
		"All with an unknown status": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := wiretest.Count(c.Appointments.All(ctx, &appointments.ListParams{Status: []appointments.Status{"Scheduled"}}))
			return err
		},
		"Update nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Update(ctx, wiretest.AppointmentID, nil)
			return err
		},
		"Create nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Appointments.Create(ctx, nil)
			return err
		},
	})
}
