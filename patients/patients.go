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

// UpdateParams is a merge patch: fields left zero are unchanged, client.Set sets one,
// client.Null clears an optional one (clearing a required field is a validation error).
type UpdateParams struct {
	FirstName   client.Optional[string]      `json:"firstName,omitzero"`
	LastName    client.Optional[string]      `json:"lastName,omitzero"`
	Email       client.Optional[string]      `json:"email,omitzero"`
	Phone       client.Optional[string]      `json:"phone,omitzero"`
	DateOfBirth client.Optional[client.Date] `json:"dateOfBirth,omitzero"`
	Gender      client.Optional[Gender]      `json:"gender,omitzero"`
	Address     client.Optional[Address]     `json:"address,omitzero"`
	Allergies   client.Optional[[]string]    `json:"allergies,omitzero"`
	Notes       client.Optional[string]      `json:"notes,omitzero"`
	Tags        client.Optional[[]string]    `json:"tags,omitzero"`
}

// Sort orders of a patient list.
const (
	SortCreatedAsc  = "createdAt"
	SortCreatedDesc = "-createdAt"
)

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
	// Sort is SortCreatedAsc (default) or SortCreatedDesc.
	Sort string `url:"sort,omitempty"`
}

// Service calls the patients endpoints. Get one from medspa.New, or NewService.
type Service struct{ e *client.Engine }

// NewService returns a Service sending through e (medspa.New does this for you).
func NewService(e *client.Engine) *Service { return &Service{e: e} }

// Create creates a patient and returns it.
func (s *Service) Create(ctx context.Context, params *CreateParams, opts ...client.Option) (*Patient, error) {
	return client.Call[Patient](ctx, s.e, http.MethodPost, client.Path("patients"), params, opts...)
}

// Get returns the patient with the given id.
func (s *Service) Get(ctx context.Context, id string, opts ...client.Option) (*Patient, error) {
	return client.Call[Patient](ctx, s.e, http.MethodGet, client.Path("patients", id), nil, opts...)
}

// Update applies params to the patient and returns the result.
func (s *Service) Update(ctx context.Context, id string, params *UpdateParams, opts ...client.Option) (*Patient, error) {
	return client.Call[Patient](ctx, s.e, http.MethodPatch, client.Path("patients", id), params, opts...)
}

// List returns one page of patients.
func (s *Service) List(ctx context.Context, params *ListParams, opts ...client.Option) (*client.Page[Patient], error) {
	return client.List[Patient](ctx, s.e, client.Path("patients"), params, opts...)
}

// All iterates over every patient matching params, fetching pages as needed.
func (s *Service) All(ctx context.Context, params *ListParams, opts ...client.Option) iter.Seq2[Patient, error] {
	return client.All[Patient](ctx, s.e, client.Path("patients"), params, opts...)
}
