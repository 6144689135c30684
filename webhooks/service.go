package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
)

// Endpoint is a registered webhook endpoint.
type Endpoint struct {
	ID          string      `json:"id"` // whk_…
	URL         string      `json:"url"`
	Events      []EventType `json:"events"` // subscribed types, or [EventAll]
	Description string      `json:"description"`
	Enabled     bool        `json:"enabled"` // false once a receiver answered 410 Gone
	// Secret (whsec_…) signs deliveries. It is returned only by Create: store it then.
	Secret    string    `json:"secret,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// CreateParams register an endpoint. URL and Events are required.
type CreateParams struct {
	// URL is absolute https:// (http:// only to loopback hosts).
	URL string `json:"url"`
	// Events lists the types to deliver, without duplicates, or is []EventType{EventAll}.
	Events []EventType `json:"events"`
	// Description is free text, at most 500 characters.
	Description string `json:"description,omitempty"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
}

// UpdateParams are a merge patch of an endpoint: fields left zero are unchanged. URL and Events
// are required fields of an endpoint, so they can be replaced but not cleared; Description can
// be cleared (medspa.Null) and Enabled reset to its default, true (medspa.Null). The values are
// checked as by Create: a URL the server refuses is medspa.ErrValidation.
type UpdateParams struct {
	// URL replaces the endpoint's URL: absolute https:// (http:// only to loopback hosts).
	URL string `json:"url,omitzero"`
	// Events replaces the subscribed types: without duplicates, or []EventType{EventAll}. A
	// non-nil empty list is sent, and refused by the server.
	Events []EventType `json:"events,omitzero"`
	// Description is free text, at most 500 characters; medspa.Null clears it.
	Description client.Optional[string] `json:"description,omitzero"`
	// Enabled turns deliveries off or on; medspa.Null resets it to true. Re-enabling an endpoint
	// does not replay the events it missed.
	Enabled client.Optional[bool] `json:"enabled,omitzero"`
}

// RotateSecretParams say how long the previous secret keeps signing after a rotation.
type RotateSecretParams struct {
	// PreviousSecretExpiresIn is how long deliveries keep carrying the previous secret's
	// signature: whole seconds, from 0 to 7 days (sent as expiresInSeconds). nil keeps the
	// server's default, 24 hours; a pointer to 0 retires the previous secret at once.
	PreviousSecretExpiresIn *time.Duration `json:"-"`
}

// Validate refuses a PreviousSecretExpiresIn that is not a whole number of seconds
// (medspa.ErrInvalidArgument): the wire carries seconds, and rounding would move the moment the
// previous secret stops signing. Out-of-range values go to the server, which names the field.
func (p RotateSecretParams) Validate() error {
	if p.PreviousSecretExpiresIn != nil && *p.PreviousSecretExpiresIn%time.Second != 0 {
		return fmt.Errorf("%w: webhooks.RotateSecretParams.PreviousSecretExpiresIn is not a whole number of seconds", client.ErrInvalidArgument)
	}
	return nil
}

// MarshalJSON writes {"expiresInSeconds": n}, or {} when PreviousSecretExpiresIn is nil.
func (p RotateSecretParams) MarshalJSON() ([]byte, error) {
	var w struct {
		ExpiresInSeconds *int64 `json:"expiresInSeconds,omitempty"`
	}
	if p.PreviousSecretExpiresIn != nil {
		sec := int64(*p.PreviousSecretExpiresIn / time.Second)
		w.ExpiresInSeconds = &sec
	}
	return json.Marshal(w)
}

// ListParams page an endpoint list.
type ListParams struct {
	client.ListOptions
}

// TestResult is the outcome of one test delivery.
type TestResult struct {
	// EventID is the id of the webhook.test event sent (the webhook-id header).
	EventID string `json:"eventId"`
	// Delivered is true when the receiver answered 2xx within the timeout.
	Delivered bool `json:"delivered"`
	// StatusCode is the receiver's status, nil when no response arrived.
	StatusCode *int `json:"statusCode"`
	// DurationMs is how long the attempt took.
	DurationMs int64 `json:"durationMs"`
	// Error says why the delivery failed, as a class (nil on success): "timeout", "dns",
	// "blocked_address", "connection_refused", "connection_reset", "tls", "network",
	// "too_large", "redirect", "status" (StatusCode says which), "invalid_endpoint" or
	// "cancelled". A class never quotes the payload, an address or a resolver's message.
	Error *string `json:"error"`
}

// Service calls the webhooks endpoints, and builds receivers that judge delivery timestamps by
// the client's clock. Get one from medspa.New (the client's Webhooks field). Every method that
// calls the API, but All, also returns the metadata of the server's answer (*medspa.Response:
// status, request id, rate limit, attempts), with the result or the error; it is nil when no
// answer arrived.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type Service struct{ e *client.Engine }

// NewService returns a Service sending through e (medspa.New does this for you).
func NewService(e *client.Engine) *Service { return &Service{e: e} }

// Create registers an endpoint; the result carries its Secret, shown only this once. A URL the
// server refuses (not https, or a private address) is medspa.ErrValidation.
func (s *Service) Create(ctx context.Context, params *CreateParams, opts ...client.RequestOption) (*Endpoint, *client.Response, error) {
	return client.Call[Endpoint](ctx, s.e, http.MethodPost, client.Path("webhooks"), params, opts...)
}

// Get returns the endpoint with the given id (without its secret; medspa.ErrNotFound if there
// is none).
func (s *Service) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Endpoint, *client.Response, error) {
	return client.Call[Endpoint](ctx, s.e, http.MethodGet, client.Path("webhooks", id), nil, opts...)
}

// List returns one page of endpoints.
func (s *Service) List(ctx context.Context, params *ListParams, opts ...client.RequestOption) (*client.Page[Endpoint], *client.Response, error) {
	return client.List[Endpoint](ctx, s.e, client.Path("webhooks"), params, opts...)
}

// All iterates over every endpoint, fetching pages as needed; an error ends the iteration.
func (s *Service) All(ctx context.Context, params *ListParams, opts ...client.RequestOption) iter.Seq2[Endpoint, error] {
	return client.All[Endpoint](ctx, s.e, client.Path("webhooks"), params, opts...)
}

// Update changes an endpoint (a merge patch: see UpdateParams) and returns it, without its
// secret, which neither changes nor shows (see RotateSecret). A URL the server refuses is
// medspa.ErrValidation, an unknown id medspa.ErrNotFound; a refused update changes nothing.
func (s *Service) Update(ctx context.Context, id string, params *UpdateParams, opts ...client.RequestOption) (*Endpoint, *client.Response, error) {
	return client.Call[Endpoint](ctx, s.e, http.MethodPatch, client.Path("webhooks", id), params, opts...)
}

// RotateSecret gives the endpoint a new signing secret at once and returns it (shown only this
// once) with the moment the previous one stops signing, on the server's clock. Until then every
// delivery carries both signatures, the new one first, so receivers that know either secret
// keep accepting deliveries: that is the window to give them the new one (WithSecrets during
// the change). Rotating again while a previous secret still signs replaces it: at most two
// secrets sign. params may be nil (the server's default window, 24 hours). Retries are safe:
// the call's Idempotency-Key returns the same secret and rotates once.
func (s *Service) RotateSecret(ctx context.Context, id string, params *RotateSecretParams, opts ...client.RequestOption) (*SecretRotation, *client.Response, error) {
	return client.Call[SecretRotation](ctx, s.e, http.MethodPost, client.Path("webhooks", id, "rotate-secret"), client.OptionalBody(params), opts...)
}

// Delete removes the endpoint; its pending retries are dropped. The server answers 204 with no
// body, so there is nothing to return but the answer's metadata.
func (s *Service) Delete(ctx context.Context, id string, opts ...client.RequestOption) (*client.Response, error) {
	return s.e.Do(ctx, http.MethodDelete, client.Path("webhooks", id), nil, nil, opts...)
}

// Test sends a webhook.test event to the endpoint at once (no retries) and reports the outcome.
func (s *Service) Test(ctx context.Context, id string, opts ...client.RequestOption) (*TestResult, *client.Response, error) {
	return client.Call[TestResult](ctx, s.e, http.MethodPost, client.Path("webhooks", id, "test"), nil, opts...)
}

// NewHandler is the package's NewHandler with the client's clock (medspa.WithClock) as the
// default now: against a mock server whose clock was moved, the client and its receivers then
// agree on the time. A WithNow among opts still wins; WithSecrets adds the previous secret
// while a rotation's overlap lasts.
func (s *Service) NewHandler(secret string, fn func(ctx context.Context, e *Event) error, opts ...HandlerOption) http.Handler {
	return NewHandler(secret, fn, append([]HandlerOption{WithNow(s.e.Now)}, opts...)...)
}

// Verify is the package's Verify with the client's clock (medspa.WithClock) as the default now.
// A WithNow among opts still wins; WithSecrets adds secrets, as for NewHandler.
func (s *Service) Verify(secret string, header http.Header, body []byte, opts ...VerifyOption) (*Event, error) {
	return Verify(secret, header, body, append([]VerifyOption{WithNow(s.e.Now)}, opts...)...)
}
