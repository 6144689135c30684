package store

import (
	"slices"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/webhooks"
)

// Appointment length bounds (docs/protocol.md §9 Appointment). MaxAppointmentLength also bounds the
// conflict scan: an appointment overlapping [s, e) starts after s-MaxAppointmentLength.
const (
	MinAppointmentLength = 5 * time.Minute
	MaxAppointmentLength = 720 * time.Minute
)

// AppointmentRecord is a stored appointment: the notes (PHI) sealed, the rest in the clear so
// that conflicts, lists and reports never open PHI.
type AppointmentRecord struct {
	ID                 string              `json:"id"`
	PatientID          string              `json:"patientId"`
	ProviderID         string              `json:"providerId"`
	Service            string              `json:"service"`
	StartAt            time.Time           `json:"startAt"`
	EndAt              time.Time           `json:"endAt"`
	RoomID             string              `json:"roomId,omitempty"`
	Status             appointments.Status `json:"status"`
	CancelledAt        time.Time           `json:"cancelledAt,omitzero"`
	CancellationReason string              `json:"cancellationReason,omitempty"`
	CreatedAt          time.Time           `json:"createdAt"`
	UpdatedAt          time.Time           `json:"updatedAt"`
	// Sealed is the notes, AES-256-GCM; nil when there are none.
	Sealed []byte `json:"sealed,omitempty"`
}

// transitions is the protocol's state machine: the statuses each status may move to.
var transitions = map[appointments.Status][]appointments.Status{
	appointments.StatusScheduled:  {appointments.StatusConfirmed, appointments.StatusCheckedIn, appointments.StatusCancelled, appointments.StatusNoShow},
	appointments.StatusConfirmed:  {appointments.StatusCheckedIn, appointments.StatusCancelled, appointments.StatusNoShow},
	appointments.StatusCheckedIn:  {appointments.StatusInProgress, appointments.StatusCompleted},
	appointments.StatusInProgress: {appointments.StatusCompleted},
}

// CanTransition reports whether the state machine allows from → to (to ≠ from).
func CanTransition(from, to appointments.Status) bool {
	return slices.Contains(transitions[from], to)
}

// editable reports whether time, provider, room and patient may still change.
func editable(s appointments.Status) bool {
	return s == appointments.StatusScheduled || s == appointments.StatusConfirmed
}

// SlotProblem says why endAt does not fit startAt (empty when it does): endAt must be 5 to 720
// minutes after startAt.
func SlotProblem(startAt, endAt time.Time) string {
	switch d := endAt.Sub(startAt); {
	case d <= 0:
		return "must be after startAt"
	case d < MinAppointmentLength:
		return "must be at least 5 minutes after startAt"
	case d > MaxAppointmentLength:
		return "must be at most 720 minutes after startAt"
	}
	return ""
}

func (a *Account) sealNotes(r *AppointmentRecord, notes string) {
	r.Sealed = a.sealText("appointment", r.ID, "notes", notes)
}

func (r *AppointmentRecord) sealedFields() []sealedField { return []sealedField{{"notes", &r.Sealed}} }

func (a *Account) openNotes(r *AppointmentRecord) (string, error) {
	if r.Sealed == nil {
		return "", nil
	}
	b, err := a.open("appointment", r.ID, "notes", r.Sealed)
	return string(b), err
}

// openAppointment returns the full appointment of r.
func (a *Account) openAppointment(r *AppointmentRecord) (appointments.Appointment, error) {
	notes, err := a.openNotes(r)
	if err != nil {
		return appointments.Appointment{}, err
	}
	return appointments.Appointment{
		ID: r.ID, PatientID: r.PatientID, ProviderID: r.ProviderID, Service: r.Service,
		StartAt: r.StartAt, EndAt: r.EndAt, RoomID: r.RoomID, Notes: notes, Status: r.Status,
		CancelledAt: r.CancelledAt, CancellationReason: r.CancellationReason,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}, nil
}

// eventData is the PHI-free event payload of r.
func eventData(r *AppointmentRecord, previous appointments.Status) *webhooks.AppointmentData {
	return &webhooks.AppointmentData{
		Object: "appointment", ID: r.ID, PatientID: r.PatientID, ProviderID: r.ProviderID, RoomID: r.RoomID,
		Status: string(r.Status), PreviousStatus: string(previous), StartAt: r.StartAt, EndAt: r.EndAt,
	}
}

// conflictWith returns the id of the first active appointment (by startAt, id) other than c
// that overlaps [c.StartAt, c.EndAt) with the same provider, patient or room; "" if none. The
// caller holds a.mu.
func (a *Account) conflictWith(c *AppointmentRecord) string {
	order := a.data.Appointments.order
	lo := c.StartAt.Add(-MaxAppointmentLength)
	i, _ := slices.BinarySearchFunc(order, lo, func(e *AppointmentRecord, t time.Time) int { return e.StartAt.Compare(t) })
	for _, o := range order[i:] {
		if !o.StartAt.Before(c.EndAt) {
			break
		}
		if o.ID == c.ID || !o.Status.Active() || !o.EndAt.After(c.StartAt) {
			continue
		}
		if o.ProviderID == c.ProviderID || o.PatientID == c.PatientID || (c.RoomID != "" && o.RoomID == c.RoomID) {
			return o.ID
		}
	}
	return ""
}

func conflict(id string) error {
	return breaks("appointment_conflict", "the time overlaps another active appointment of the same provider, room or patient",
		map[string]any{"conflictingId": id})
}

func invalidTransition(from, to appointments.Status, detail string) error {
	return breaks("invalid_state_transition", detail, map[string]any{"from": string(from), "to": string(to)})
}

// AppointmentInput is an appointment create or merge-patch body (docs/protocol.md §9
// Appointment), decoded.
type AppointmentInput struct {
	Members
	PatientID, ProviderID, Service Field[string]
	StartAt, EndAt                 Field[string] // RFC 3339
	RoomID, Notes                  Field[string]
	Status                         Field[string]
	// CancellationReason is for patches only.
	CancellationReason Field[string]
}

var (
	appointmentStatuses = []string{"scheduled", "confirmed", "checked_in", "in_progress", "completed", "cancelled", "no_show"}
	initialStatuses     = []string{"scheduled", "confirmed"}
)

// maxCancellationReason bounds the free-text reason (the protocol sets no limit; notes' is 10,000).
const maxCancellationReason = 1000

// checkAppointment validates an appointment body (create, or merge patch) and returns the change
// it makes. stored is the appointment patched (nil for a create, or an unknown id), so a patch
// of only one of startAt/endAt is checked against the other in the same pass as every other
// field. The caller holds a.mu: the patient a body names must exist.
func (a *Account) checkAppointment(in AppointmentInput, patch bool, stored *AppointmentRecord) (AppointmentChange, error) {
	var ch AppointmentChange
	c := newChecker()
	c.members(in.Members)
	if patch {
		c.nonNull(namedState{"patientId", in.PatientID.State}, namedState{"providerId", in.ProviderID.State},
			namedState{"service", in.Service.State}, namedState{"startAt", in.StartAt.State},
			namedState{"endAt", in.EndAt.State}, namedState{"status", in.Status.State})
	}
	if v, p := c.str("patientId", in.PatientID, !patch, 1, 64); p == Present {
		switch {
		case !wire.IsID(v, "pat"):
			c.fail("patientId", "invalid_format", "must be a pat_ id")
		case !a.patientExists(v):
			c.fail("patientId", "not_found", "no such patient")
		default:
			ch.PatientID = &v
		}
	}
	if v, p := c.str("providerId", in.ProviderID, !patch, 1, 64); p == Present {
		ch.ProviderID = &v
	}
	if v, p := c.str("service", in.Service, !patch, 1, 200); p == Present {
		ch.Service = &v
	}
	start, sp := c.instant("startAt", in.StartAt, !patch)
	end, ep := c.instant("endAt", in.EndAt, !patch)
	ch.StartAt, ch.EndAt = start, end
	if sp == Present || ep == Present {
		var s, e time.Time
		ok := sp != Invalid && ep != Invalid && (patch || start != nil && end != nil)
		if ok && patch {
			ok = stored != nil // unknown id: the update answers 404
			if ok {
				s, e = stored.StartAt, stored.EndAt
			}
		}
		if start != nil {
			s = *start
		}
		if end != nil {
			e = *end
		}
		if d := SlotProblem(s, e); ok && d != "" {
			if end != nil {
				c.fail("endAt", "out_of_range", d)
			} else {
				c.fail("startAt", "out_of_range", d)
			}
		}
	}
	if v, p := c.str("roomId", in.RoomID, false, 0, 64); p != Invalid {
		ch.RoomID = optional(v, p)
	}
	if v, p := c.text("notes", in.Notes, false, 0, 10000); p != Invalid {
		ch.Notes = optional(v, p)
	}
	statuses := initialStatuses
	if patch {
		statuses = appointmentStatuses
	}
	if v, p := c.enum("status", in.Status, false, statuses...); p == Present {
		st := appointments.Status(v)
		ch.Status = &st
	}
	if patch {
		if v, p := c.str("cancellationReason", in.CancellationReason, false, 0, maxCancellationReason); p != Invalid {
			ch.CancellationReason = optional(v, p)
		}
	}
	return ch, c.done()
}

// CreateAppointment validates in and books the appointment (status scheduled, or confirmed when
// in says so) after checking, atomically, that the patient exists and nothing active overlaps
// it; createdAt may be backdated (fixtures) when non-zero.
func (a *Account) CreateAppointment(in AppointmentInput, createdAt time.Time) (appointments.Appointment, error) {
	t := a.begin()
	defer t.end()
	ch, err := a.checkAppointment(in, false, nil)
	if err != nil {
		return appointments.Appointment{}, err
	}
	ap := appointments.Appointment{
		PatientID: *ch.PatientID, ProviderID: *ch.ProviderID, Service: *ch.Service,
		StartAt: *ch.StartAt, EndAt: *ch.EndAt, Status: appointments.StatusScheduled,
	}
	setIf(&ap.RoomID, ch.RoomID)
	setIf(&ap.Notes, ch.Notes)
	setIf(&ap.Status, ch.Status)
	return a.book(&t, ap, createdAt)
}

// createAppointment books a valid appointment.
func (a *Account) createAppointment(ap appointments.Appointment, createdAt time.Time) (appointments.Appointment, error) {
	t := a.begin()
	defer t.end()
	return a.book(&t, ap, createdAt)
}

// book books ap within t, keeping the invariants (a known patient, a slot of legal length, an
// initial status, no overlap).
func (a *Account) book(t *tx, ap appointments.Appointment, createdAt time.Time) (appointments.Appointment, error) {
	ap.StartAt, ap.EndAt = wire.Time(ap.StartAt), wire.Time(ap.EndAt)
	if ap.Status == "" {
		ap.Status = appointments.StatusScheduled
	}
	var errs FieldErrors
	if d := SlotProblem(ap.StartAt, ap.EndAt); d != "" {
		errs.Add("/endAt", "out_of_range", d)
	}
	if !editable(ap.Status) {
		errs.Add("/status", "invalid_value", "must be scheduled or confirmed")
	}
	if !a.patientExists(ap.PatientID) {
		errs.Add("/patientId", "not_found", "no such patient")
	}
	if err := errs.Err(); err != nil {
		return appointments.Appointment{}, err
	}
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	createdAt = wire.Time(createdAt)
	r := &AppointmentRecord{
		ID: a.store.ids.New("apt", createdAt), PatientID: ap.PatientID, ProviderID: ap.ProviderID, Service: ap.Service,
		StartAt: ap.StartAt, EndAt: ap.EndAt, RoomID: ap.RoomID, Status: ap.Status, CreatedAt: createdAt, UpdatedAt: createdAt,
	}
	if id := a.conflictWith(r); id != "" {
		return appointments.Appointment{}, conflict(id)
	}
	a.sealNotes(r, ap.Notes)
	a.data.Appointments.insert(r)
	t.put("appointment", r.ID)
	t.emit(webhooks.EventAppointmentCreated, eventData(r, ""))
	return a.openAppointment(r)
}

// GetAppointment returns the appointment, or 404.
func (a *Account) GetAppointment(id string) (appointments.Appointment, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.data.Appointments.get(id)
	if !ok {
		return appointments.Appointment{}, NotFound("appointment")
	}
	return a.openAppointment(r)
}

// AppointmentChange is a valid merge patch of an appointment: nil fields are unchanged; an
// empty RoomID, Notes or CancellationReason clears it.
type AppointmentChange struct {
	PatientID, ProviderID, Service *string
	StartAt, EndAt                 *time.Time
	RoomID, Notes                  *string
	Status                         *appointments.Status
	CancellationReason             *string
}

// UpdateAppointment validates in, a merge patch, and applies it atomically, in the protocol's
// order: the body's fields (422), the id (404), field rules that depend on the stored
// appointment (422), then the state machine (409 invalid_state_transition), the edit lock (409
// appointment_locked) and conflicts (409 appointment_conflict). A change that changes nothing
// (such as the current status again) leaves the record, its updatedAt and the event log
// untouched. Cancelling stamps cancelledAt and emits appointment.cancelled; any other change
// emits appointment.updated.
func (a *Account) UpdateAppointment(id string, in AppointmentInput) (appointments.Appointment, error) {
	t := a.begin()
	defer t.end()
	stored, _ := a.data.Appointments.get(id)
	ch, err := a.checkAppointment(in, true, stored)
	if err != nil {
		return appointments.Appointment{}, err
	}
	return a.update(&t, id, ch)
}

// updateAppointment applies a valid change.
func (a *Account) updateAppointment(id string, ch AppointmentChange) (appointments.Appointment, error) {
	t := a.begin()
	defer t.end()
	return a.update(&t, id, ch)
}

// update applies ch to the appointment within t.
func (a *Account) update(t *tx, id string, ch AppointmentChange) (appointments.Appointment, error) {
	r, ok := a.data.Appointments.get(id)
	if !ok {
		return appointments.Appointment{}, NotFound("appointment")
	}
	notes, err := a.openNotes(r)
	if err != nil {
		return appointments.Appointment{}, err
	}
	next, nextNotes := *r, notes
	setIf(&next.PatientID, ch.PatientID)
	setIf(&next.ProviderID, ch.ProviderID)
	setIf(&next.Service, ch.Service)
	setIf(&next.RoomID, ch.RoomID)
	setIf(&nextNotes, ch.Notes)
	setIf(&next.CancellationReason, ch.CancellationReason)
	setIf(&next.Status, ch.Status)
	if ch.StartAt != nil {
		next.StartAt = wire.Time(*ch.StartAt)
	}
	if ch.EndAt != nil {
		next.EndAt = wire.Time(*ch.EndAt)
	}

	var errs FieldErrors
	if next.PatientID != r.PatientID && !a.patientExists(next.PatientID) {
		errs.Add("/patientId", "not_found", "no such patient")
	}
	if ch.StartAt != nil || ch.EndAt != nil {
		if d := SlotProblem(next.StartAt, next.EndAt); d != "" {
			ptr := "/endAt"
			if ch.EndAt == nil {
				ptr = "/startAt"
			}
			errs.Add(ptr, "out_of_range", d)
		}
	}
	if next.CancellationReason != "" && next.CancellationReason != r.CancellationReason && next.Status != appointments.StatusCancelled {
		errs.Add("/cancellationReason", "invalid_value", "can only be set when the appointment is cancelled")
	}
	if err := errs.Err(); err != nil {
		return appointments.Appointment{}, err
	}

	now := a.Now()
	from, to := r.Status, next.Status
	if to != from {
		if !CanTransition(from, to) {
			return appointments.Appointment{}, invalidTransition(from, to, "the appointment cannot move from "+string(from)+" to "+string(to))
		}
		if to == appointments.StatusNoShow && now.Before(next.StartAt) {
			return appointments.Appointment{}, invalidTransition(from, to, "an appointment can be marked no_show only once it has started")
		}
		if to == appointments.StatusCancelled {
			next.CancelledAt = now
		}
	}
	moved := !next.StartAt.Equal(r.StartAt) || !next.EndAt.Equal(r.EndAt) || next.ProviderID != r.ProviderID ||
		next.RoomID != r.RoomID || next.PatientID != r.PatientID
	if moved && !editable(from) {
		return appointments.Appointment{}, breaks("appointment_locked",
			"time, provider, room and patient can change only while the appointment is scheduled or confirmed", nil)
	}
	if moved && to.Active() {
		if cid := a.conflictWith(&next); cid != "" {
			return appointments.Appointment{}, conflict(cid)
		}
	}
	if !moved && to == from && next.Service == r.Service && next.CancellationReason == r.CancellationReason && nextNotes == notes {
		return a.openAppointment(r)
	}

	done := func() {}
	if !next.StartAt.Equal(r.StartAt) {
		done = a.data.Appointments.reorder(r)
	}
	*r = next
	done()
	if nextNotes != notes {
		a.sealNotes(r, nextNotes)
	}
	r.UpdatedAt = now
	t.put("appointment", r.ID)
	switch {
	case to == from:
		t.emit(webhooks.EventAppointmentUpdated, eventData(r, ""))
	case to == appointments.StatusCancelled:
		t.emit(webhooks.EventAppointmentCancelled, eventData(r, from))
	default:
		t.emit(webhooks.EventAppointmentUpdated, eventData(r, from))
	}
	return a.openAppointment(r)
}

// setIf sets *dst to *v when v is non-nil.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// CancelAppointment cancels a scheduled or confirmed appointment (the record is kept). An
// already cancelled one is left as it is; any other status is 409 invalid_state_transition.
func (a *Account) CancelAppointment(id string) error {
	cancelled := appointments.StatusCancelled
	_, err := a.updateAppointment(id, AppointmentChange{Status: &cancelled})
	return err
}

// AppointmentFilter selects appointments; zero fields match everything.
type AppointmentFilter struct {
	PatientID  string
	ProviderID string
	// Statuses keeps appointments in any of them.
	Statuses []appointments.Status
	// From (inclusive) and To (exclusive) bound startAt.
	From, To time.Time
}

func (f *AppointmentFilter) keep(r *AppointmentRecord) bool {
	return (f.PatientID == "" || r.PatientID == f.PatientID) &&
		(f.ProviderID == "" || r.ProviderID == f.ProviderID) &&
		(len(f.Statuses) == 0 || slices.Contains(f.Statuses, r.Status)) &&
		(f.From.IsZero() || !r.StartAt.Before(f.From)) &&
		(f.To.IsZero() || r.StartAt.Before(f.To))
}

// ListAppointments returns a page of matching appointments, ascending by (startAt, id), and
// the number matching.
func (a *Account) ListAppointments(f AppointmentFilter, w Window) ([]appointments.Appointment, int, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var keep func(*AppointmentRecord) bool
	if f.PatientID != "" || f.ProviderID != "" || len(f.Statuses) > 0 || !f.From.IsZero() || !f.To.IsZero() {
		keep = f.keep
	}
	recs, total := a.data.Appointments.page(w, keep)
	out := make([]appointments.Appointment, 0, len(recs))
	for _, r := range recs {
		ap, err := a.openAppointment(r)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, ap)
	}
	return out, total, nil
}

// AppointmentsBetween calls fn, in (startAt, id) order, with a copy of every appointment whose
// startAt is in [from, to) (a zero bound is open), without its sealed notes: for reports. fn
// runs under the account's read lock and must not call back into the account.
func (a *Account) AppointmentsBetween(from, to time.Time, fn func(*AppointmentRecord)) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	order := a.data.Appointments.order
	i := 0
	if !from.IsZero() {
		i, _ = slices.BinarySearchFunc(order, from, func(e *AppointmentRecord, t time.Time) int {
			if e.StartAt.Before(t) {
				return -1
			}
			return 1
		})
	}
	for _, r := range order[i:] {
		if !to.IsZero() && !r.StartAt.Before(to) {
			break
		}
		c := *r
		c.Sealed = nil
		fn(&c)
	}
}

// AppointmentStatuses are the appointment statuses (docs/protocol.md §9 Appointment), for list
// filters.
func AppointmentStatuses() []string { return slices.Clone(appointmentStatuses) }
