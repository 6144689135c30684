// Package patients is the patients area of the MedSpa API: create, fetch, update and list
// patients. Every field but ID, Tags, CreatedAt and UpdatedAt is protected health information;
// the SDK never logs it.
package patients

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
)

// Gender is the FHIR administrative gender.
type Gender string

// Genders.
const (
	GenderFemale  Gender = "female"
	GenderMale    Gender = "male"
	GenderOther   Gender = "other"
	GenderUnknown Gender = "unknown"
)

// Validate refuses a Gender other than the four above (medspa.ErrInvalidArgument): the call
// path runs it before anything is sent.
func (g Gender) Validate() error {
	return client.CheckEnum(g, GenderFemale, GenderMale, GenderOther, GenderUnknown)
}

// Address is a postal address. Country is ISO 3166-1 alpha-2 ("US").
type Address struct {
	Line1      string `json:"line1,omitempty"`
	Line2      string `json:"line2,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
	Country    string `json:"country,omitempty"`
}

// Patient is a patient record.
type Patient struct {
	ID          string      `json:"id"`
	FirstName   string      `json:"firstName"`
	LastName    string      `json:"lastName"`
	Email       string      `json:"email"`
	Phone       string      `json:"phone,omitempty"`
	DateOfBirth client.Date `json:"dateOfBirth,omitzero"`
	Gender      Gender      `json:"gender,omitempty"`
	Address     *Address    `json:"address,omitempty"`
	Allergies   []string    `json:"allergies,omitempty"`
	Notes       string      `json:"notes,omitempty"`
	Tags        []string    `json:"tags,omitempty"`
	CreatedAt   time.Time   `json:"createdAt"`
	UpdatedAt   time.Time   `json:"updatedAt"`
}

// CreateParams are the fields of a new patient. FirstName, LastName and Email are required.
type CreateParams struct {
	FirstName   string      `json:"firstName"`
	LastName    string      `json:"lastName"`
	Email       string      `json:"email"`
	Phone       string      `json:"phone,omitempty"`
	DateOfBirth client.Date `json:"dateOfBirth,omitzero"`
	Gender      Gender      `json:"gender,omitempty"`
	Address     *Address    `json:"address,omitempty"`
	Allergies   []string    `json:"allergies,omitempty"`
	Notes       string      `json:"notes,omitempty"`
	Tags        []string    `json:"tags,omitempty"`
}

// AddressPatch is a merge patch of a patient's address (RFC 7396 merges objects member by
// member): members left zero are unchanged, medspa.Set sets one, medspa.Null clears one. So
// UpdateParams{Address: medspa.Set(AddressPatch{City: medspa.Set("Boston")})} sends
// {"address":{"city":"Boston"}} and the street stays.
type AddressPatch struct {
	Line1      client.Optional[string] `json:"line1,omitzero"`
	Line2      client.Optional[string] `json:"line2,omitzero"`
	City       client.Optional[string] `json:"city,omitzero"`
	State      client.Optional[string] `json:"state,omitzero"`
	PostalCode client.Optional[string] `json:"postalCode,omitzero"`
	// Country is ISO 3166-1 alpha-2 ("US").
	Country client.Optional[string] `json:"country,omitzero"`
}

// UpdateParams is a merge patch: fields left zero are unchanged, medspa.Set sets one,
// medspa.Null clears an optional one (clearing a required field is a validation error).
// Address is a patch of its own: set only the members that change, or medspa.Null to remove
// the whole address.
type UpdateParams struct {
	FirstName   client.Optional[string]       `json:"firstName,omitzero"`
	LastName    client.Optional[string]       `json:"lastName,omitzero"`
	Email       client.Optional[string]       `json:"email,omitzero"`
	Phone       client.Optional[string]       `json:"phone,omitzero"`
	DateOfBirth client.Optional[client.Date]  `json:"dateOfBirth,omitzero"`
	Gender      client.Optional[Gender]       `json:"gender,omitzero"`
	Address     client.Optional[AddressPatch] `json:"address,omitzero"`
	Allergies   client.Optional[[]string]     `json:"allergies,omitzero"`
	Notes       client.Optional[string]       `json:"notes,omitzero"`
	Tags        client.Optional[[]string]     `json:"tags,omitzero"`
}

// ListParams filter and page a patient list; filters combine with AND.
type ListParams struct {
	client.ListOptions
	// Q matches a case-insensitive substring of first name, last name or email.
	Q string `url:"q,omitempty"`
	// Email matches the email exactly, case-insensitively.
	Email string `url:"email,omitempty"`
	// CreatedFrom (inclusive) and CreatedTo (exclusive) bound createdAt.
	CreatedFrom time.Time `url:"createdFrom,omitempty"`
	CreatedTo   time.Time `url:"createdTo,omitempty"`
	// Sort is medspa.SortCreatedAsc (default) or medspa.SortCreatedDesc.
	Sort client.Sort `url:"sort,omitempty"`
}

// Service calls the patients endpoints. Get one from medspa.New (the client's Patients field).
// Every method but All also returns the metadata of the server's answer (*medspa.Response:
// status, request id, rate limit, attempts), with the result or the error; it is nil when no
// answer arrived.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type Service struct{ e *client.Engine }

// NewService returns a Service sending through e (medspa.New does this for you).
func NewService(e *client.Engine) *Service { return &Service{e: e} }

// Create creates a patient and returns it. Invalid fields are medspa.ErrValidation, every one
// listed in medspa.Error.Fields.
func (s *Service) Create(ctx context.Context, params *CreateParams, opts ...client.RequestOption) (*Patient, *client.Response, error) {
	return client.Call[Patient](ctx, s.e, http.MethodPost, client.Path("patients"), params, opts...)
}

// Get returns the patient with the given id (medspa.ErrNotFound if there is none).
func (s *Service) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Patient, *client.Response, error) {
	return client.Call[Patient](ctx, s.e, http.MethodGet, client.Path("patients", id), nil, opts...)
}

// Update applies params (a merge patch) to the patient and returns the patient as it is now.
func (s *Service) Update(ctx context.Context, id string, params *UpdateParams, opts ...client.RequestOption) (*Patient, *client.Response, error) {
	return client.Call[Patient](ctx, s.e, http.MethodPatch, client.Path("patients", id), params, opts...)
}

// List returns one page of patients.
func (s *Service) List(ctx context.Context, params *ListParams, opts ...client.RequestOption) (*client.Page[Patient], *client.Response, error) {
	return client.List[Patient](ctx, s.e, client.Path("patients"), params, opts...)
}

// All iterates over every patient matching params, fetching pages as needed; an error ends the
// iteration.
func (s *Service) All(ctx context.Context, params *ListParams, opts ...client.RequestOption) iter.Seq2[Patient, error] {
	return client.All[Patient](ctx, s.e, client.Path("patients"), params, opts...)
}
