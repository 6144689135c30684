package medspa

import (
	"context"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
	"github.com/medspa/medspa-go/webhooks"
)

// Client is the MedSpa API client: one service per area, all sharing one call path (package
// client's Engine). It is safe for concurrent use; create one and reuse it.
type Client struct {
	Patients     *patients.Service
	Appointments *appointments.Service
	Invoices     *billing.InvoicesService
	Payments     *billing.PaymentsService
	Products     *inventory.ProductsService
	Inventory    *inventory.StockService
	Webhooks     *webhooks.Service
	Reports      *reports.Service

	engine *client.Engine
}

// New returns a client configured by opts (see the With* options). Without options it reads
// MEDSPA_API_KEY and MEDSPA_BASE_URL.
func New(opts ...Option) (*Client, error) {
	e, err := client.NewEngine(opts...)
	if err != nil {
		return nil, err
	}
	return &Client{
		Patients:     patients.NewService(e),
		Appointments: appointments.NewService(e),
		Invoices:     billing.NewInvoicesService(e),
		Payments:     billing.NewPaymentsService(e),
		Products:     inventory.NewProductsService(e),
		Inventory:    inventory.NewStockService(e),
		Webhooks:     webhooks.NewService(e),
		Reports:      reports.NewService(e),
		engine:       e,
	}, nil
}

// Do sends a call the services do not cover, through the same call path (auth, signing, rate
// limits, retries, bounded reads, errors): method to path (built with Path), params as the
// query (GET, DELETE) or the JSON body (POST, PATCH), the JSON answer decoded into out when out
// is not nil. Errors are as for every call: an *Error for a non-2xx answer, ErrInvalidArgument
// before anything is sent.
//
//	var refund struct{ ID string }
//	err := c.Do(ctx, http.MethodGet, medspa.Path("refunds", id), nil, &refund)
func (c *Client) Do(ctx context.Context, method string, path client.Route, params, out any, opts ...Option) error {
	return c.engine.Do(ctx, method, path, params, out, opts...)
}

// Path builds the path of a call for Do: /api/v1 and the segments, each escaped as one path
// segment; an id that is empty or not one segment makes the call fail with ErrInvalidArgument.
// It is client.Path.
func Path(segments ...string) client.Route { return client.Path(segments...) }

// Ptr returns a pointer to v, for optional fields of create params:
// billing.LineItemParams{UnitAmount: medspa.Ptr[int64](19900)}.
func Ptr[T any](v T) *T { return &v }

// Option configures the client or a single call; it is client.Option.
type Option = client.Option

// Error is an API error (RFC 9457 problem); it is client.Error.
type Error = client.Error

// Timeouts are the default transport's timeouts, for WithTimeouts; it is client.Timeouts.
type Timeouts = client.Timeouts

// Options, re-exported so that one import covers the common case.
var (
	WithAPIKey         = client.WithAPIKey
	WithTokenSource    = client.WithTokenSource
	WithBaseURL        = client.WithBaseURL
	WithHTTPClient     = client.WithHTTPClient
	WithMaxRetries     = client.WithMaxRetries
	WithRetryWait      = client.WithRetryWait
	WithMaxRetryAfter  = client.WithMaxRetryAfter
	WithLogger         = client.WithLogger
	WithUserAgent      = client.WithUserAgent
	WithHeader         = client.WithHeader
	WithIdempotencyKey = client.WithIdempotencyKey
	WithResponseInto   = client.WithResponseInto
	// WithMaxResponseBytes bounds the response bodies read into memory (default 32 MiB).
	WithMaxResponseBytes = client.WithMaxResponseBytes
	// WithMaxPages bounds the pages one All iteration fetches.
	WithMaxPages = client.WithMaxPages
	// WithTimeouts overrides the default transport's dial, TLS, response-header and idle timeouts.
	WithTimeouts = client.WithTimeouts

	WithClientCredentials = client.WithClientCredentials
	WithOAuth2            = client.WithOAuth2
	WithSigning           = client.WithSigning
	WithPlan              = client.WithPlan
	WithRateLimit         = client.WithRateLimit
	// OAuthEndpoint returns the API's OAuth 2.0 endpoints for an oauth2.Config.
	OAuthEndpoint = client.OAuthEndpoint
)

// Plans for WithPlan.
const (
	PlanStarter      = client.PlanStarter
	PlanProfessional = client.PlanProfessional
	PlanEnterprise   = client.PlanEnterprise
)

// Error sentinels, re-exported for errors.Is: one per error code of the API, plus ErrAPI (any
// API error), ErrResponseSignature (a response that failed signature verification) and the
// SDK's own refusals below.
var (
	ErrAPI                    = client.ErrAPI
	ErrMalformedJSON          = client.ErrMalformedJSON
	ErrUnauthorized           = client.ErrUnauthorized
	ErrTokenExpired           = client.ErrTokenExpired
	ErrInvalidSignature       = client.ErrInvalidSignature
	ErrCardDeclined           = client.ErrCardDeclined
	ErrInsufficientScope      = client.ErrInsufficientScope
	ErrIPNotAllowed           = client.ErrIPNotAllowed
	ErrNotFound               = client.ErrNotFound
	ErrMethodNotAllowed       = client.ErrMethodNotAllowed
	ErrAppointmentConflict    = client.ErrAppointmentConflict
	ErrInvalidStateTransition = client.ErrInvalidStateTransition
	ErrAppointmentLocked      = client.ErrAppointmentLocked
	ErrInsufficientStock      = client.ErrInsufficientStock
	ErrDuplicateSKU           = client.ErrDuplicateSKU
	ErrInvoiceNotPayable      = client.ErrInvoiceNotPayable
	ErrIdempotencyKeyInUse    = client.ErrIdempotencyKeyInUse
	ErrPayloadTooLarge        = client.ErrPayloadTooLarge
	ErrUnsupportedMediaType   = client.ErrUnsupportedMediaType
	ErrValidation             = client.ErrValidation
	ErrIdempotencyKeyReused   = client.ErrIdempotencyKeyReused
	ErrAmountExceedsBalance   = client.ErrAmountExceedsBalance
	ErrRateLimited            = client.ErrRateLimited
	ErrQuotaExceeded          = client.ErrQuotaExceeded
	ErrInternal               = client.ErrInternal
	ErrServiceUnavailable     = client.ErrServiceUnavailable
	ErrResponseSignature      = client.ErrResponseSignature
	// ErrInvalidArgument: an id that is not one path segment, or nil params; nothing was sent.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrResponseTooLarge: a response body over WithMaxResponseBytes.
	ErrResponseTooLarge = client.ErrResponseTooLarge
	// ErrPagination: an All iteration whose pages repeat, end early or never end.
	ErrPagination = client.ErrPagination
)

// Set and Null build update fields (JSON Merge Patch).
func Set[T any](v T) client.Optional[T] { return client.Set(v) }

// Null clears an optional field in an update.
func Null[T any]() client.Optional[T] { return client.Null[T]() }
