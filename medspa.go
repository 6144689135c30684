package medspa

import (
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
	"github.com/medspa/medspa-go/webhooks"
)

// Client is the MedSpa API client: one service per area, all sharing one engine.
type Client struct {
	// Engine is the shared engine, for calls the services do not cover.
	Engine *client.Client

	Patients     *patients.Service
	Appointments *appointments.Service
	Invoices     *billing.InvoicesService
	Payments     *billing.PaymentsService
	Products     *inventory.ProductsService
	Inventory    *inventory.InventoryService
	Webhooks     *webhooks.Service
	Reports      *reports.Service
}

// New returns a client configured by opts (see the With* options). Without options it reads
// MEDSPA_API_KEY and MEDSPA_BASE_URL.
func New(opts ...Option) (*Client, error) {
	e, err := client.New(opts...)
	if err != nil {
		return nil, err
	}
	return &Client{
		Engine:       e,
		Patients:     patients.NewService(e),
		Appointments: appointments.NewService(e),
		Invoices:     billing.NewInvoicesService(e),
		Payments:     billing.NewPaymentsService(e),
		Products:     inventory.NewProductsService(e),
		Inventory:    inventory.NewInventoryService(e),
		Webhooks:     webhooks.NewService(e),
		Reports:      reports.NewService(e),
	}, nil
}

// Option configures the client or a single call; it is client.Option.
type Option = client.Option

// Error is an API error (RFC 9457 problem); it is client.Error.
type Error = client.Error

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
// API error) and ErrResponseSignature (a response that failed signature verification).
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
)

// Set and Null build update fields (JSON Merge Patch).
func Set[T any](v T) client.Optional[T] { return client.Set(v) }

// Null clears an optional field in an update.
func Null[T any]() client.Optional[T] { return client.Null[T]() }
