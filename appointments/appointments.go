// Package appointments is the appointments area of the MedSpa API: book, fetch, reschedule,
// move through the visit's states, cancel and list appointments.
//
// The server refuses overlapping active appointments for the same provider, room or patient
// (medspa.ErrAppointmentConflict, with the other appointment's id in
// medspa.Error.ConflictingID), and moves Status only along the protocol's state machine
// (medspa.ErrInvalidStateTransition, with medspa.Error.From and medspa.Error.To). Notes are
// protected health information; the SDK never logs them.
package appointments

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/wire"
)

// Status is the state of an appointment.
//
//	scheduled   → confirmed, checked_in, cancelled, no_show
//	confirmed   → checked_in, cancelled, no_show
//	checked_in  → in_progress, completed
//	in_progress → completed
//
// Completed, cancelled and no_show are terminal; no_show is accepted only once the appointment
// has started.
type Status string

// Statuses.
const (
	StatusScheduled  Status = "scheduled"
	StatusConfirmed  Status = "confirmed"
	StatusCheckedIn  Status = "checked_in"
	StatusInProgress Status = "in_progress"
	StatusCompleted  Status = "completed"
	StatusCancelled  Status = "cancelled"
	StatusNoShow     Status = "no_show"
)

// Validate refuses a Status other than the seven above (medspa.ErrInvalidArgument): the call
// path runs it before anything is sent.
func (s Status) Validate() error {
	return client.CheckEnum(s, StatusScheduled, StatusConfirmed, StatusCheckedIn, StatusInProgress,
		StatusCompleted, StatusCancelled, StatusNoShow)
}

// Active reports whether s is an active status (scheduled, confirmed, checked_in,
// in_progress): only active appointments block a slot.
func (s Status) Active() bool {
	switch s {
	case StatusScheduled, StatusConfirmed, StatusCheckedIn, StatusInProgress:
		return true
	}
	return false
}

// Appointment is a booked visit of a patient with a provider, over [StartAt, EndAt).
type Appointment struct {
	ID         string `json:"id"`
	PatientID  string `json:"patientId"`
	ProviderID string `json:"providerId"`
	Service    string `json:"service"`
	// StartAt is inclusive, EndAt exclusive; both UTC, second precision.
	StartAt time.Time `json:"startAt"`
	EndAt   time.Time `json:"endAt"`
	RoomID  string    `json:"roomId,omitempty"`
	// Notes are clinical notes (PHI).
	Notes  string `json:"notes,omitempty"`
	Status Status `json:"status"`
	// CancelledAt is set when the appointment was cancelled, with the reason if one was given.
	CancelledAt        time.Time `json:"cancelledAt,omitzero"`
	CancellationReason string    `json:"cancellationReason,omitempty"`
	CreatedAt          time.Time `json:"createdAt"`
	UpdatedAt          time.Time `json:"updatedAt"`
}

// CreateParams are the fields of a new appointment. PatientID, ProviderID, Service, StartAt
// and EndAt are required; EndAt must be 5 to 720 minutes after StartAt.
type CreateParams struct {
	// PatientID is the patient's id (pat_…); an unknown one is medspa.ErrValidation with field
	// code not_found.
	PatientID string `json:"patientId"`
	// ProviderID is an opaque string of your choosing (1 to 64 characters, e.g. "prv_9") that
	// names who sees the patient: the API has no provider resource behind it and checks only its
	// length. It keys the conflict check (one active appointment per provider at a
	// time) and the provider buckets of the revenue and appointments reports.
	ProviderID string `json:"providerId"`
	// Service is free text, at most 200 characters, naming the treatment ("Botox consult"):
	// no catalogue is behind it. Reports group by its exact value.
	Service string    `json:"service"`
	StartAt time.Time `json:"startAt"`
	EndAt   time.Time `json:"endAt"`
	// RoomID is opaque too, at most 64 characters, with no resource behind it; when set it also
	// keys the conflict check.
	RoomID string `json:"roomId,omitempty"`
	// Notes are clinical notes (PHI), at most 10,000 characters.
	Notes string `json:"notes,omitempty"`
	// Status is StatusScheduled (the default) or StatusConfirmed.
	Status Status `json:"status,omitempty"`
}

// MarshalJSON writes StartAt and EndAt as the protocol writes timestamps, whatever their
// location and precision: UTC, "Z", whole seconds (docs/protocol.md §2).
func (p CreateParams) MarshalJSON() ([]byte, error) {
	type plain CreateParams // without this method
	return json.Marshal(struct {
		plain
		StartAt string `json:"startAt"`
		EndAt   string `json:"endAt"`
	}{plain(p), wire.FormatTime(p.StartAt), wire.FormatTime(p.EndAt)})
}

// UpdateParams is a merge patch: fields left zero are unchanged, medspa.Set sets one,
// medspa.Null clears an optional one (RoomID, Notes, CancellationReason). PatientID,
// StartAt, EndAt, ProviderID and RoomID change only while the appointment is scheduled or
// confirmed (medspa.ErrAppointmentLocked otherwise). Status moves along the state machine;
// setting StatusCancelled records CancellationReason if given.
type UpdateParams struct {
	PatientID          client.Optional[string]    `json:"patientId,omitzero"`
	ProviderID         client.Optional[string]    `json:"providerId,omitzero"`
	Service            client.Optional[string]    `json:"service,omitzero"`
	StartAt            client.Optional[time.Time] `json:"startAt,omitzero"`
	EndAt              client.Optional[time.Time] `json:"endAt,omitzero"`
	RoomID             client.Optional[string]    `json:"roomId,omitzero"`
	Notes              client.Optional[string]    `json:"notes,omitzero"`
	Status             client.Optional[Status]    `json:"status,omitzero"`
	CancellationReason client.Optional[string]    `json:"cancellationReason,omitzero"`
}

// ListParams filter and page an appointment list, ordered by (StartAt, ID); filters combine
// with AND.
type ListParams struct {
	client.ListOptions
	PatientID  string `url:"patientId,omitempty"`
	ProviderID string `url:"providerId,omitempty"`
	// Status keeps appointments in any of these statuses.
	Status []Status `url:"status,omitempty"`
	// From (inclusive) and To (exclusive) bound StartAt.
	From time.Time `url:"from,omitempty"`
	To   time.Time `url:"to,omitempty"`
}

// Service calls the appointments endpoints. Get one from medspa.New (the client's Appointments
// field). Every method but All also returns the metadata of the server's answer
// (*medspa.Response: status, request id, rate limit, attempts), with the result or the error;
// it is nil when no answer arrived.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type Service struct{ e *client.Engine }

// NewService returns a Service sending through e (medspa.New does this for you).
func NewService(e *client.Engine) *Service { return &Service{e: e} }

// Create books an appointment and returns it. An overlap with another active appointment of
// the provider, room or patient is medspa.ErrAppointmentConflict (medspa.Error.ConflictingID).
func (s *Service) Create(ctx context.Context, params *CreateParams, opts ...client.RequestOption) (*Appointment, *client.Response, error) {
	return client.Call[Appointment](ctx, s.e, http.MethodPost, client.Path("appointments"), params, opts...)
}

// Get returns the appointment with the given id (medspa.ErrNotFound if there is none).
func (s *Service) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Appointment, *client.Response, error) {
	return client.Call[Appointment](ctx, s.e, http.MethodGet, client.Path("appointments", id), nil, opts...)
}

// Update applies params to the appointment (reschedule, change status, edit) and returns the
// appointment as it is now. A status the state machine does not allow is
// medspa.ErrInvalidStateTransition; moving a visit that is under way, medspa.ErrAppointmentLocked.
func (s *Service) Update(ctx context.Context, id string, params *UpdateParams, opts ...client.RequestOption) (*Appointment, *client.Response, error) {
	return client.Call[Appointment](ctx, s.e, http.MethodPatch, client.Path("appointments", id), params, opts...)
}

// Cancel cancels a scheduled or confirmed appointment, recording reason ("" records none), and
// returns it as it is now: Status cancelled, CancelledAt and CancellationReason set. The record
// is kept. It is one PATCH of status and reason (docs/protocol.md §9), so a retry, or
// cancelling an already cancelled appointment with the same reason, changes nothing and returns
// the same appointment; another reason replaces the stored one. An appointment that is checked
// in, in progress or done is medspa.ErrInvalidStateTransition.
func (s *Service) Cancel(ctx context.Context, id, reason string, opts ...client.RequestOption) (*Appointment, *client.Response, error) {
	params := &UpdateParams{Status: client.Set(StatusCancelled)}
	if reason != "" {
		params.CancellationReason = client.Set(reason)
	}
	return s.Update(ctx, id, params, opts...)
}

// List returns one page of appointments.
func (s *Service) List(ctx context.Context, params *ListParams, opts ...client.RequestOption) (*client.Page[Appointment], *client.Response, error) {
	return client.List[Appointment](ctx, s.e, client.Path("appointments"), params, opts...)
}

// All iterates over every appointment matching params, fetching pages as needed; an error ends
// the iteration.
func (s *Service) All(ctx context.Context, params *ListParams, opts ...client.RequestOption) iter.Seq2[Appointment, error] {
	return client.All[Appointment](ctx, s.e, client.Path("appointments"), params, opts...)
}
