package store

import (
	"encoding/json"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// PatientRecord is a stored patient: PHI sealed, the rest in the clear. An account may hold a
// million (docs/protocol.md §13), so it is compact: 96 bytes, plus its id and its sealed PHI
// (compact.go). Most patients have no tags: a pointer (nil) is 8 bytes, a slice 24.
type PatientRecord struct {
	ID         string     `json:"id"`
	CreatedAt  instant    `json:"createdAt"`
	UpdatedAt  instant    `json:"updatedAt"`
	Tags       *[]string  `json:"tags,omitempty"`
	EmailIndex indexValue `json:"emailIndex"` // blind index for the exact email filter
	Sealed     sealedJSON `json:"sealed"`     // the PHI fields, AES-256-GCM
}

// patientKey is the patient table's list order (docs/protocol.md §3).
func patientKey(r *PatientRecord) sortKey { return sortKey{r.CreatedAt.Time(), r.ID} }

// sealPatient sets r's sealed PHI (bound to r's id), email index and tags from p. It touches
// no account state, so creates run it before taking the lock.
func (a *Account) sealPatient(r *PatientRecord, p *patients.Patient) {
	var buf [256]byte
	r.Sealed = a.seal("patient", r.ID, "phi", encodePHI(buf[:0], p))
	r.EmailIndex = a.index(p.Email)
	r.Tags = nil
	if len(p.Tags) > 0 {
		tags := slices.Clone(p.Tags)
		r.Tags = &tags
	}
}

func (r *PatientRecord) sealedFields() []sealedField {
	return []sealedField{{"phi", (*[]byte)(&r.Sealed)}}
}

// reindexBlind rebuilds the email index from the sealed PHI, with the account's index key.
func (r *PatientRecord) reindexBlind(a *Account) error {
	p, err := a.openPatient(r)
	if err != nil {
		return err
	}
	r.EmailIndex = a.index(p.Email)
	return nil
}

// plainBuffers hold a patient's PHI plaintext while it is decoded; maxPooledPlain bounds what a
// pool keeps (an unusually long note is left to the collector).
var plainBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledPlain = 16 << 10

// putPlain gives a plaintext buffer back to its pool zeroed: no PHI sits in a pool once the
// patient it held is decoded (the patient's fields are copies).
func putPlain(buf *[]byte) {
	clear((*buf)[:cap(*buf)])
	plainBuffers.Put(buf)
}

// openPatient returns the full patient of r.
func (a *Account) openPatient(r *PatientRecord) (patients.Patient, error) {
	var p patients.Patient
	// The plaintext is opened into a pooled buffer: decodePHI copies what it keeps (one string
	// for every field), so the buffer serves the next patient (BenchmarkFencePatientOpen).
	buf := plainBuffers.Get().(*[]byte)
	defer putPlain(buf)
	b, err := a.store.sealer.openTo((*buf)[:0], r.Sealed, sealedAt{a.ID, "patient", r.ID, "phi"})
	if err != nil {
		return p, err
	}
	if cap(b) <= maxPooledPlain {
		*buf = b
	}
	if err := decodePHI(b, &p); err != nil {
		return p, err
	}
	r.fill(&p)
	return p, nil
}

// fill sets the fields of p that r keeps in the clear.
func (r *PatientRecord) fill(p *patients.Patient) {
	p.ID, p.CreatedAt, p.UpdatedAt = r.ID, r.CreatedAt.Time(), r.UpdatedAt.Time()
	if r.Tags != nil {
		p.Tags = slices.Clone(*r.Tags)
	}
}

// PatientInput is a patient create or merge-patch body (docs/protocol.md §9 Patient), decoded.
type PatientInput struct {
	Members
	FirstName, LastName, Email, Phone Field[string]
	DateOfBirth                       Field[string] // YYYY-MM-DD
	Gender                            Field[string]
	Address                           Field[AddressInput]
	Allergies                         Field[[]string]
	Notes                             Field[string]
	Tags                              Field[[]string]
}

// AddressInput is a patient's address member, decoded.
type AddressInput struct {
	Members
	Line1, Line2, City, State, PostalCode, Country Field[string]
}

// PatientInputOf is the input that creates p (for Go callers such as tests).
func PatientInputOf(p patients.Patient) PatientInput {
	str := func(v string) Field[string] {
		if v == "" {
			return Field[string]{}
		}
		return Given(v)
	}
	in := PatientInput{FirstName: str(p.FirstName), LastName: str(p.LastName), Email: str(p.Email), Phone: str(p.Phone),
		Gender: str(string(p.Gender)), Notes: str(p.Notes)}
	if !p.DateOfBirth.IsZero() {
		in.DateOfBirth = Given(p.DateOfBirth.String())
	}
	if a := p.Address; a != nil {
		in.Address = Given(AddressInput{Line1: str(a.Line1), Line2: str(a.Line2), City: str(a.City), State: str(a.State),
			PostalCode: str(a.PostalCode), Country: str(a.Country)})
	}
	if p.Allergies != nil {
		in.Allergies = Given(p.Allergies)
	}
	if p.Tags != nil {
		in.Tags = Given(p.Tags)
	}
	return in
}

// Patient field rules (docs/protocol.md §9 Patient).
var (
	e164        = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
	countryCode = regexp.MustCompile(`^[A-Z]{2}$`)
	earliestDOB = wire.NewDate(1900, time.January, 1)
	genders     = []string{"female", "male", "other", "unknown"}
)

// checkPatient validates a patient body (create, or merge patch) and returns the change it
// makes: every invalid field at once, or the change.
func checkPatient(in PatientInput, patch bool, today wire.Date) (func(*patients.Patient), error) {
	c := newChecker()
	c.members(in.Members)
	var sets []func(*patients.Patient)
	set := func(p Presence, apply func(*patients.Patient)) {
		if p == Present || p == Null {
			sets = append(sets, apply)
		}
	}
	if patch {
		c.nonNull(namedState{"firstName", in.FirstName.State}, namedState{"lastName", in.LastName.State}, namedState{"email", in.Email.State})
	}
	if v, p := c.str("firstName", in.FirstName, !patch, 1, 100); p == Present {
		set(p, func(x *patients.Patient) { x.FirstName = v })
	}
	if v, p := c.str("lastName", in.LastName, !patch, 1, 100); p == Present {
		set(p, func(x *patients.Patient) { x.LastName = v })
	}
	if v, p := c.str("email", in.Email, !patch, 1, 254); p == Present {
		// net/mail accepts any UTF-8 in the local part (RFC 6532), invisible and bidi-override
		// characters included: those only serve to spoof an address.
		if addr, err := mail.ParseAddress(v); err != nil || addr.Address != v || addr.Name != "" || strings.IndexFunc(v, invisible) >= 0 {
			c.fail("email", "invalid_format", "must be an email address")
		} else {
			set(p, func(x *patients.Patient) { x.Email = v })
		}
	}
	if v, p := c.str("phone", in.Phone, false, 0, 16); p != Invalid {
		if p == Present && !e164.MatchString(v) {
			c.fail("phone", "invalid_format", "must be an E.164 number such as +15551234567")
		} else {
			set(p, func(x *patients.Patient) { x.Phone = v })
		}
	}
	if c.decoded(in.DateOfBirth.Complaint, in.DateOfBirth.State) && in.DateOfBirth.State == Present {
		d, err := wire.ParseDate(in.DateOfBirth.Value)
		switch {
		case err != nil:
			c.fail("dateOfBirth", "invalid_format", "must be a date YYYY-MM-DD")
		case today.Before(d):
			c.fail("dateOfBirth", "out_of_range", "must not be in the future")
		case d.Before(earliestDOB):
			c.fail("dateOfBirth", "out_of_range", "must not be before 1900-01-01")
		default:
			set(Present, func(x *patients.Patient) { x.DateOfBirth = d })
		}
	} else {
		set(in.DateOfBirth.State, func(x *patients.Patient) { x.DateOfBirth = wire.Date{} })
	}
	if v, p := c.enum("gender", in.Gender, false, genders...); p != Invalid {
		set(p, func(x *patients.Patient) { x.Gender = patients.Gender(v) })
	}
	switch addr := in.Address; addr.State {
	case Null:
		set(Null, func(x *patients.Patient) { x.Address = nil })
	case Invalid:
		c.decoded(addr.Complaint, Invalid)
	case Present:
		edits := checkAddress(c.in(c.pointer("address")), addr.Value)
		set(Present, func(x *patients.Patient) { x.Address = mergeAddress(x.Address, edits) })
	}
	if v, p := c.strings("allergies", in.Allergies, 50, 200); p != Invalid {
		set(p, func(x *patients.Patient) { x.Allergies = v })
	}
	if v, p := c.text("notes", in.Notes, false, 0, 10000); p != Invalid {
		set(p, func(x *patients.Patient) { x.Notes = v })
	}
	if v, p := c.strings("tags", in.Tags, 20, 50); p != Invalid {
		set(p, func(x *patients.Patient) { x.Tags = v })
	}
	if err := c.done(); err != nil {
		return nil, err
	}
	return changes(sets), nil
}

// checkAddress validates an address member and returns its edits, one per member sent: a
// value sets the member, null clears it (RFC 7396 merges objects member by member).
func checkAddress(c checker, in AddressInput) []func(*patients.Address) {
	c.members(in.Members)
	var edits []func(*patients.Address)
	for _, m := range []struct {
		name   string
		f      Field[string]
		maxLen int
		member func(*patients.Address) *string
	}{
		{"line1", in.Line1, 200, func(a *patients.Address) *string { return &a.Line1 }},
		{"line2", in.Line2, 200, func(a *patients.Address) *string { return &a.Line2 }},
		{"city", in.City, 100, func(a *patients.Address) *string { return &a.City }},
		{"state", in.State, 100, func(a *patients.Address) *string { return &a.State }},
		{"postalCode", in.PostalCode, 20, func(a *patients.Address) *string { return &a.PostalCode }},
		{"country", in.Country, 2, func(a *patients.Address) *string { return &a.Country }},
	} {
		v, p := c.str(m.name, m.f, false, 0, m.maxLen)
		if m.name == "country" && p == Present && !countryCode.MatchString(v) {
			c.fail("country", "invalid_format", "must be an ISO 3166-1 alpha-2 code such as US")
			continue
		}
		if p == Present || p == Null {
			member := m.member
			edits = append(edits, func(a *patients.Address) { *member(a) = v })
		}
	}
	return edits
}

// mergeAddress applies edits to a copy of addr (nil: no address yet, as in a create) and
// returns it; an address left without members is no address.
func mergeAddress(addr *patients.Address, edits []func(*patients.Address)) *patients.Address {
	var out patients.Address
	if addr != nil {
		out = *addr
	}
	for _, e := range edits {
		e(&out)
	}
	if out == (patients.Address{}) {
		return nil
	}
	return &out
}

// invisible reports control and format characters (zero-width spaces, bidi overrides).
func invisible(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// CreatePatient validates in and stores the patient; createdAt may be backdated (fixtures) when
// non-zero.
func (a *Account) CreatePatient(in PatientInput, createdAt time.Time) (patients.Patient, error) {
	change, err := checkPatient(in, false, wire.DateOf(a.Now()))
	if err != nil {
		return patients.Patient{}, err
	}
	var p patients.Patient
	change(&p)
	return a.createPatient(p, createdAt)
}

// createPatient stores a valid patient. The id comes first: the sealed PHI is bound to it.
func (a *Account) createPatient(p patients.Patient, createdAt time.Time) (patients.Patient, error) {
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	r := &PatientRecord{ID: a.store.ids.New("pat", createdAt), CreatedAt: instantOf(createdAt), UpdatedAt: instantOf(createdAt)}
	a.sealPatient(r, &p) // the crypto, outside the lock
	t := a.begin()
	defer t.end()
	a.data.Patients.insert(r)
	t.put("patient", r.ID)
	t.emit(webhooks.EventPatientCreated, &webhooks.PatientData{ID: r.ID})
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

// UpdatePatient validates in, a merge patch, and applies it to the patient: 422 before 404.
// updatedAt moves (and patient.updated is emitted) only when something changed.
func (a *Account) UpdatePatient(id string, in PatientInput) (patients.Patient, error) {
	change, err := checkPatient(in, true, wire.DateOf(a.Now()))
	if err != nil {
		return patients.Patient{}, err
	}
	return a.updatePatient(id, change)
}

func (a *Account) updatePatient(id string, change func(*patients.Patient)) (patients.Patient, error) {
	t := a.begin()
	defer t.end()
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
	r.UpdatedAt = instantOf(a.Now())
	t.put("patient", r.ID)
	t.emit(webhooks.EventPatientUpdated, &webhooks.PatientData{ID: r.ID})
	return a.openPatient(r)
}

// PatientFilter selects patients; zero fields match everything.
type PatientFilter struct {
	Q                      string
	Email                  string
	CreatedFrom, CreatedTo time.Time
}

// ListPatients returns a page of matching patients and the number matching. The creation
// window narrows the table by binary search (it is in createdAt order); only the email and q
// filters look at each patient in it.
func (a *Account) ListPatients(f PatientFilter, w Window) ([]patients.Patient, int, error) {
	return a.ListPatientsInto(f, w, nil)
}

// ListPatientsInto is ListPatients appending the page to into (a slice the caller reuses).
func (a *Account) ListPatientsInto(f PatientFilter, w Window, into []patients.Patient) ([]patients.Patient, int, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var keep func(*PatientRecord) bool
	if f.Email != "" || f.Q != "" {
		var emailIndex indexValue
		if f.Email != "" {
			emailIndex = a.index(f.Email)
		}
		q := strings.ToLower(f.Q)
		keep = func(r *PatientRecord) bool {
			if emailIndex != (indexValue{}) && r.EmailIndex != emailIndex {
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
	recs, total := a.data.Patients.pageBetween(f.CreatedFrom, f.CreatedTo, w, keep)
	out, err := a.openPatients(recs, into)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// openPatients appends the full patients of recs to out, as openPatient would one by one, but
// a page at a time: one plaintext buffer and one associated-data buffer from their pools for the
// page, and every patient's PHI decoded from one string (one allocation for the page, not one a
// patient). A fenced optimisation kept by BenchmarkFencePatientPageOpen (BENCHMARKS.md).
func (a *Account) openPatients(recs []*PatientRecord, out []patients.Patient) ([]patients.Patient, error) {
	if len(recs) == 0 {
		return out, nil
	}
	buf, ad := plainBuffers.Get().(*[]byte), adBuffers.Get().(*[]byte)
	defer adBuffers.Put(ad)
	defer putPlain(buf)
	var endsArray [100]int // a page's (perPage ≤ 100) without an allocation
	ends, b := endsArray[:0], (*buf)[:0]
	// Every record's associated data starts with the same account and kind: made once a page.
	*ad = sealedAt{a.ID, "patient", "", ""}.ad((*ad)[:0])
	prefix := len(*ad) - 2 // the empty id and field's terminators
	for _, r := range recs {
		*ad = append(append(append((*ad)[:prefix], r.ID...), 0), "phi\x00"...)
		var err error
		if b, err = a.store.sealer.openADTo(b, r.Sealed, *ad); err != nil {
			return out, err
		}
		ends = append(ends, len(b))
	}
	if cap(b) <= maxPooledPlain {
		*buf = b
	}
	plain, start := string(b), 0
	out = slices.Grow(out, len(recs))
	for i, r := range recs {
		var p patients.Patient
		if err := decodePHIString(plain[start:ends[i]], &p); err != nil {
			return out, err
		}
		start = ends[i]
		r.fill(&p)
		out = append(out, p)
	}
	return out, nil
}
