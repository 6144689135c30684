package billing

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
)

// Refunds and the refunds service (docs/protocol.md §9 "Refund").

// RefundReason says why a payment is refunded.
type RefundReason string

// Refund reasons.
const (
	RefundRequestedByCustomer RefundReason = "requested_by_customer" // the default
	RefundDuplicate           RefundReason = "duplicate"
	RefundFraudulent          RefundReason = "fraudulent"
	RefundOther               RefundReason = "other"
)

// Validate refuses a RefundReason other than the four above (medspa.ErrInvalidArgument): the
// call path runs it before anything is sent.
func (r RefundReason) Validate() error {
	return client.CheckEnum(r, RefundRequestedByCustomer, RefundDuplicate, RefundFraudulent, RefundOther)
}

// RefundStatus is the outcome of a refund.
type RefundStatus string

// RefundSucceeded is the status of every refund: refunds succeed at once.
const RefundSucceeded RefundStatus = "succeeded"

// Validate refuses a RefundStatus other than RefundSucceeded (medspa.ErrInvalidArgument).
func (s RefundStatus) Validate() error { return client.CheckEnum(s, RefundSucceeded) }

// Refund gives back (part of) a succeeded payment. Amounts are in minor units of Currency
// (the payment's).
type Refund struct {
	ID        string `json:"id"` // ref_…
	PaymentID string `json:"paymentId"`
	// InvoiceID is the refunded payment's invoice.
	InvoiceID string       `json:"invoiceId"`
	Amount    int64        `json:"amount"`
	Currency  string       `json:"currency"`
	Reason    RefundReason `json:"reason"`
	// Notes are free text (PHI), kept on the refund and never carried by events.
	Notes     string       `json:"notes,omitempty"`
	Status    RefundStatus `json:"status"`
	CreatedAt time.Time    `json:"createdAt"`
}

// RefundCreateParams refund a succeeded payment. PaymentID is required.
type RefundCreateParams struct {
	PaymentID string `json:"paymentId"`
	// Amount (> 0, medspa.Ptr sets one) is what to refund; nil refunds all that is left (the
	// payment's Amount − AmountRefunded). A pointer, so that an amount computed as 0 is sent,
	// and refused, instead of refunding the whole payment.
	Amount *int64 `json:"amount,omitempty"`
	// Reason defaults to RefundRequestedByCustomer.
	Reason RefundReason `json:"reason,omitempty"`
	// Notes are free text, at most 500 characters (PHI).
	Notes string `json:"notes,omitempty"`
}

// RefundListParams filter and page a refund list; filters combine with AND.
type RefundListParams struct {
	client.ListOptions
	PaymentID string `url:"paymentId,omitempty"`
	InvoiceID string `url:"invoiceId,omitempty"`
	// Sort is medspa.SortCreatedAsc (default) or medspa.SortCreatedDesc.
	Sort client.Sort `url:"sort,omitempty"`
}

// RefundsService calls the refund endpoints. Get one from medspa.New (the client's Refunds
// field). Every method but All also returns the metadata of the server's answer
// (*medspa.Response), as InvoicesService's do.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type RefundsService struct{ e *client.Engine }

// NewRefundsService returns a RefundsService sending through e (medspa.New does this for you).
func NewRefundsService(e *client.Engine) *RefundsService { return &RefundsService{e: e} }

// Create refunds (part of) a succeeded payment and returns the refund; the payment's and its
// invoice's AmountRefunded grow by its amount, while the invoice's AmountPaid and Status stay.
// A payment that failed or is refunded in full is medspa.ErrPaymentNotRefundable; an amount
// above what is left to refund is medspa.ErrAmountExceedsRefundable; an unknown PaymentID is
// medspa.ErrValidation (field code not_found). Retries are safe: the call's Idempotency-Key
// refunds once.
func (s *RefundsService) Create(ctx context.Context, params *RefundCreateParams, opts ...client.RequestOption) (*Refund, *client.Response, error) {
	return client.Call[Refund](ctx, s.e, http.MethodPost, client.Path("refunds"), params, opts...)
}

// Get returns the refund with the given id (medspa.ErrNotFound if there is none).
func (s *RefundsService) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Refund, *client.Response, error) {
	return client.Call[Refund](ctx, s.e, http.MethodGet, client.Path("refunds", id), nil, opts...)
}

// List returns one page of refunds.
func (s *RefundsService) List(ctx context.Context, params *RefundListParams, opts ...client.RequestOption) (*client.Page[Refund], *client.Response, error) {
	return client.List[Refund](ctx, s.e, client.Path("refunds"), params, opts...)
}

// All iterates over every refund matching params, fetching pages as needed; an error ends the
// iteration.
func (s *RefundsService) All(ctx context.Context, params *RefundListParams, opts ...client.RequestOption) iter.Seq2[Refund, error] {
	return client.All[Refund](ctx, s.e, client.Path("refunds"), params, opts...)
}
