package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

var (
	appointmentCreateFields = []string{"patientId", "providerId", "service", "startAt", "endAt", "roomId", "notes", "status"}
	appointmentPatchFields  = append(appointmentCreateFields[:len(appointmentCreateFields):len(appointmentCreateFields)], "cancellationReason")
)

// decodeAppointment reads an appointment body (create, or merge patch with cancellationReason).
func decodeAppointment(f *form, patch bool) store.AppointmentInput {
	in := store.AppointmentInput{
		PatientID: f.str("patientId"), ProviderID: f.str("providerId"), Service: f.str("service"),
		StartAt: f.instant("startAt"), EndAt: f.instant("endAt"), RoomID: f.str("roomId"), Notes: f.str("notes"),
		Status: f.str("status"),
	}
	if patch {
		in.Members = f.members(appointmentPatchFields...)
		in.CancellationReason = f.str("cancellationReason")
	} else {
		in.Members = f.members(appointmentCreateFields...)
	}
	return in
}

// decodeNewAppointment reads an appointment create body.
func decodeNewAppointment(f *form) store.AppointmentInput { return decodeAppointment(f, false) }

func (a *API) createAppointment(rq *request) (int, any, error) {
	ap, err := fromRequest(rq, decodeNewAppointment, rq.acct.CreateAppointment)
	rq.created = ap.ID
	return created, ap, err
}

func (a *API) getAppointment(rq *request) (int, any, error) {
	id, err := rq.pathID("apt", "appointment")
	if err != nil {
		return 0, nil, err
	}
	ap, err := rq.acct.GetAppointment(id)
	return ok, ap, err
}

func (a *API) updateAppointment(rq *request) (int, any, error) {
	id, err := rq.pathID("apt", "appointment")
	if err != nil {
		return 0, nil, err
	}
	f, err := rq.form()
	if err != nil {
		return 0, nil, err
	}
	ap, err := rq.acct.UpdateAppointment(id, decodeAppointment(f, true))
	return ok, ap, err
}

func (a *API) cancelAppointment(rq *request) (int, any, error) {
	id, err := rq.pathID("apt", "appointment")
	if err != nil {
		return 0, nil, err
	}
	if err := rq.acct.CancelAppointment(id); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

func (a *API) listAppointments(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(false)
	filter := store.AppointmentFilter{
		PatientID:  q.id("patientId", "pat"),
		ProviderID: q.str("providerId", 64),
		From:       q.instant("from"),
		To:         q.instant("to"),
	}
	for _, s := range q.list("status", store.AppointmentStatuses()...) {
		filter.Statuses = append(filter.Statuses, appointments.Status(s))
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total, err := rq.acct.ListAppointments(filter, w)
	return ok, list(items, total, w), err
}
