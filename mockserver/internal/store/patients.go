package store

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// PatientRecord is a stored patient: PHI sealed, the rest in the clear.
type PatientRecord struct {
	ID         string    `json:"id"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	Tags       []string  `json:"tags,omitempty"`
	EmailIndex string    `json:"emailIndex"` // blind index for the exact email filter
	Sealed     []byte    `json:"sealed"`     // the PHI fields, AES-256-GCM
}

// sealPatient sets r's sealed PHI, email index and tags from p. It touches no account state,
// so creates run it before taking the lock.
func (a *Account) sealPatient(r *PatientRecord, p *patients.Patient) {
	var buf [256]byte
	r.Sealed = a.store.sealer.Seal(encodePHI(buf[:0], p))
	r.EmailIndex = a.store.sealer.Index(p.Email)
	r.Tags = slices.Clone(p.Tags)
}

// openPatient returns the full patient of r.
func (a *Account) openPatient(r *PatientRecord) (patients.Patient, error) {
	var p patients.Patient
	b, err := a.store.sealer.Open(r.Sealed)
	if err != nil {
		return p, err
	}
	if err := decodePHI(b, &p); err != nil {
		return p, err
	}
	p.ID, p.CreatedAt, p.UpdatedAt, p.Tags = r.ID, r.CreatedAt, r.UpdatedAt, slices.Clone(r.Tags)
	return p, nil
}

// CreatePatient stores a validated patient; createdAt may be backdated (fixtures) when non-zero.
func (a *Account) CreatePatient(p patients.Patient, createdAt time.Time) (patients.Patient, error) {
	r := &PatientRecord{}
	a.sealPatient(r, &p) // the crypto, outside the lock
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.Now()
	if createdAt.IsZero() {
		createdAt = now
	}
	r.ID, r.CreatedAt, r.UpdatedAt = a.store.ids.New("pat", createdAt), createdAt, createdAt
	a.data.Patients.insert(r)
	a.emit(webhooks.EventPatientCreated, &webhooks.PatientData{ID: r.ID})
	return a.openPatient(r)
}

// GetPatient returns the patient, or 404.
func (a *Account) GetPatient(id string) (patients.Patient, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.data.Patients.get(id)
	if !ok {
		return patients.Patient{}, NotFound("patient")
	}
	return a.openPatient(r)
}

// PatientExists reports whether the id names a patient of the account; the caller may hold a.mu.
func (a *Account) patientExists(id string) bool {
	_, ok := a.data.Patients.get(id)
	return ok
}

// UpdatePatient applies change to the patient. updatedAt moves (and patient.updated is
// emitted) only when something changed.
func (a *Account) UpdatePatient(id string, change func(*patients.Patient)) (patients.Patient, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.data.Patients.get(id)
	if !ok {
		return patients.Patient{}, NotFound("patient")
	}
	before, err := a.openPatient(r)
	if err != nil {
		return before, err
	}
	after, _ := a.openPatient(r)
	change(&after)
	beforeJSON, _ := json.Marshal(before)
	afterJSON, _ := json.Marshal(after)
	if string(beforeJSON) == string(afterJSON) {
		return before, nil
	}
	a.sealPatient(r, &after)
	r.UpdatedAt = a.Now()
	a.emit(webhooks.EventPatientUpdated, &webhooks.PatientData{ID: r.ID})
	return a.openPatient(r)
}

// PatientFilter selects patients; zero fields match everything.
type PatientFilter struct {
	Q                      string
	Email                  string
	CreatedFrom, CreatedTo time.Time
}

// ListPatients returns a page of matching patients and the number matching.
func (a *Account) ListPatients(f PatientFilter, w Window) ([]patients.Patient, int, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var keep func(*PatientRecord) bool
	if f != (PatientFilter{}) {
		emailIndex := ""
		if f.Email != "" {
			emailIndex = a.store.sealer.Index(f.Email)
		}
		q := strings.ToLower(f.Q)
		keep = func(r *PatientRecord) bool {
			if !f.CreatedFrom.IsZero() && r.CreatedAt.Before(f.CreatedFrom) {
				return false
			}
			if !f.CreatedTo.IsZero() && !r.CreatedAt.Before(f.CreatedTo) {
				return false
			}
			if emailIndex != "" && r.EmailIndex != emailIndex {
				return false
			}
			if q != "" {
				p, err := a.openPatient(r)
				if err != nil {
					return false
				}
				if !strings.Contains(strings.ToLower(p.FirstName), q) && !strings.Contains(strings.ToLower(p.LastName), q) &&
					!strings.Contains(strings.ToLower(p.Email), q) {
					return false
				}
			}
			return true
		}
	}
	recs, total := a.data.Patients.page(w, keep)
	out := make([]patients.Patient, 0, len(recs))
	for _, r := range recs {
		p, err := a.openPatient(r)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, total, nil
}
