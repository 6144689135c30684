package httpapi

import (
	"net/http"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

func (a *API) appointmentRoutes() []route {
	return []route{
		{http.MethodGet, "/api/v1/appointments", "appointments:read", a.listAppointments},
		{http.MethodPost, "/api/v1/appointments", "appointments:write", a.createAppointment},
		{http.MethodGet, "/api/v1/appointments/{id}", "appointments:read", a.getAppointment},
		{http.MethodPatch, "/api/v1/appointments/{id}", "appointments:write", a.updateAppointment},
		{http.MethodDelete, "/api/v1/appointments/{id}", "appointments:write", a.cancelAppointment},
	}
}

var (
	appointmentCreateFields = []string{"patientId", "providerId", "service", "startAt", "endAt", "roomId", "notes", "status"}
	appointmentPatchFields  = []string{"patientId", "providerId", "service", "startAt", "endAt", "roomId", "notes", "status", "cancellationReason"}
	appointmentStatuses     = []string{"scheduled", "confirmed", "checked_in", "in_progress", "completed", "cancelled", "no_show"}
	initialStatuses         = []string{"scheduled", "confirmed"}
)

// maxCancellationReason bounds the free-text reason (the protocol sets no limit; notes' is 10,000).
const maxCancellationReason = 1000

// instant reads an RFC 3339 timestamp member, normalized to UTC seconds. A required member that
// is absent or null records "required".
func (f *form) instant(name string, required bool) (*time.Time, presence) {
	s, p := field[string](f, name, "an RFC 3339 timestamp")
	switch p {
	case absent, null:
		if required {
			f.fail(name, "required", "is required")
		}
		return nil, p
	case invalid:
		return nil, p
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		f.fail(name, "invalid_format", "must be an RFC 3339 timestamp such as 2026-11-22T14:03:00Z")
		return nil, invalid
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		f.fail(name, "out_of_range", "must be between the years 0001 and 9999 in UTC")
		return nil, invalid
	}
	t = t.UTC().Truncate(time.Second)
	return &t, present
}

// optional returns &v when the member was present or null (null clears: v is ""), else nil.
func optional(v string, p presence) *string {
	if p == present || p == null {
		return &v
	}
	return nil
}

// readAppointment validates an appointment body (create, or merge patch) and returns the change
// it makes. stored gives the stored times of the appointment being patched, so a patch of only
// one of startAt/endAt is checked against the other in the same pass as every other field.
func readAppointment(f *form, acct *store.Account, patch bool, stored func() (time.Time, time.Time, bool)) store.AppointmentChange {
	var ch store.AppointmentChange
	if patch {
		f.allow(appointmentPatchFields...)
		f.nonNull("patientId", "providerId", "service", "startAt", "endAt", "status")
	} else {
		f.allow(appointmentCreateFields...)
	}
	if v, p := f.str("patientId", !patch, 1, 64); p == present {
		switch {
		case !store.ValidID("pat", v):
			f.fail("patientId", "invalid_format", "must be a pat_ id")
		case !acct.HasPatient(v):
			f.fail("patientId", "not_found", "no such patient")
		default:
			ch.PatientID = &v
		}
	}
	if v, p := f.str("providerId", !patch, 1, 64); p == present {
		ch.ProviderID = &v
	}
	if v, p := f.str("service", !patch, 1, 200); p == present {
		ch.Service = &v
	}
	start, sp := f.instant("startAt", !patch)
	end, ep := f.instant("endAt", !patch)
	ch.StartAt, ch.EndAt = start, end
	if sp == present || ep == present {
		var s, e time.Time
		ok := sp != invalid && ep != invalid && (patch || start != nil && end != nil)
		if ok && patch {
			s, e, ok = stored() // unknown id: the update answers 404
		}
		if start != nil {
			s = *start
		}
		if end != nil {
			e = *end
		}
		if d := store.SlotProblem(s, e); ok && d != "" {
			if end != nil {
				f.fail("endAt", "out_of_range", d)
			} else {
				f.fail("startAt", "out_of_range", d)
			}
		}
	}
	if v, p := f.str("roomId", false, 0, 64); p != invalid {
		ch.RoomID = optional(v, p)
	}
	if v, p := f.str("notes", false, 0, 10000); p != invalid {
		ch.Notes = optional(v, p)
	}
	statuses := initialStatuses
	if patch {
		statuses = appointmentStatuses
	}
	if v, p := f.enum("status", false, statuses...); p == present {
		st := appointments.Status(v)
		ch.Status = &st
	}
	if patch {
		if v, p := f.str("cancellationReason", false, 0, maxCancellationReason); p != invalid {
			ch.CancellationReason = optional(v, p)
		}
	}
	return ch
}

func (a *API) createAppointment(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	ch := readAppointment(f, rq.acct, false, nil)
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	ap := appointments.Appointment{
		PatientID: *ch.PatientID, ProviderID: *ch.ProviderID, Service: *ch.Service,
		StartAt: *ch.StartAt, EndAt: *ch.EndAt, Status: appointments.StatusScheduled,
	}
	if ch.RoomID != nil {
		ap.RoomID = *ch.RoomID
	}
	if ch.Notes != nil {
		ap.Notes = *ch.Notes
	}
	if ch.Status != nil {
		ap.Status = *ch.Status
	}
	ap, err = rq.acct.CreateAppointment(ap, rq.backdate)
	rq.audit = auditInfo{"create", "appointment", ap.ID}
	return created, ap, err
}

func (a *API) getAppointment(rq *request) (int, any, error) {
	id, err := rq.pathID("apt", "appointment")
	if err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"read", "appointment", id}
	ap, err := rq.acct.GetAppointment(id)
	return ok, ap, err
}

func (a *API) updateAppointment(rq *request) (int, any, error) {
	id, err := rq.pathID("apt", "appointment")
	if err != nil {
		return 0, nil, err
	}
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	ch := readAppointment(f, rq.acct, true, func() (time.Time, time.Time, bool) { return rq.acct.AppointmentSlot(id) })
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"update", "appointment", id}
	ap, err := rq.acct.UpdateAppointment(id, ch)
	return ok, ap, err
}

func (a *API) cancelAppointment(rq *request) (int, any, error) {
	id, err := rq.pathID("apt", "appointment")
	if err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"delete", "appointment", id}
	if err := rq.acct.CancelAppointment(id); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

func (a *API) listAppointments(rq *request) (int, any, error) {
	q := rq.parseQuery("page", "perPage", "patientId", "providerId", "status", "from", "to")
	w := q.window(false)
	filter := store.AppointmentFilter{
		PatientID:  q.str("patientId", 64),
		ProviderID: q.str("providerId", 64),
		From:       q.instant("from"),
		To:         q.instant("to"),
	}
	if filter.PatientID != "" && !store.ValidID("pat", filter.PatientID) {
		q.fail("patientId", "invalid_format", "must be a pat_ id")
	}
	for _, s := range q.list("status", appointmentStatuses...) {
		filter.Statuses = append(filter.Statuses, appointments.Status(s))
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"list", "appointment", ""}
	items, total, err := rq.acct.ListAppointments(filter, w)
	return ok, list(items, total, w), err
}
