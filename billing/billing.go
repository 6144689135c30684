// Package billing is the billing area of the MedSpa API: invoices, the payments that settle
// them, and the refunds that give payments back. An open invoice with nothing paid can be
// voided. Amounts are integers in minor units (cents) of the record's currency. The Notes of
// invoices and refunds are protected health information; the SDK never logs them.
package billing

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/wire"
)

// InvoiceStatus is where an invoice is in its life: open → partially_paid → paid, or open →
// void.
type InvoiceStatus string

// Invoice statuses. An invoice whose total is zero is paid at creation.
const (
	InvoiceOpen          InvoiceStatus = "open"
	InvoicePartiallyPaid InvoiceStatus = "partially_paid"
	InvoicePaid          InvoiceStatus = "paid"
	// InvoiceVoid is the status of an invoice voided before anything was paid on it: terminal,
	// it takes no payments, and the stock its product lines sold went back to location "main".
	InvoiceVoid InvoiceStatus = "void"
)

// Validate refuses an InvoiceStatus other than the four above (medspa.ErrInvalidArgument):
// the call path runs it before anything is sent.
func (s InvoiceStatus) Validate() error {
	return client.CheckEnum(s, InvoiceOpen, InvoicePartiallyPaid, InvoicePaid, InvoiceVoid)
}

// LineItem is one line of an invoice.
type LineItem struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	// UnitAmount is the price of one unit in minor units.
	UnitAmount int64 `json:"unitAmount"`
	// ProductID is the product sold, if any; its stock at location "main" dropped by Quantity.
	ProductID string `json:"productId,omitempty"`
	// Amount is Quantity × UnitAmount.
	Amount int64 `json:"amount"`
}

// Invoice is an invoice with its computed amounts.
type Invoice struct {
	ID            string     `json:"id"`
	PatientID     string     `json:"patientId"`
	AppointmentID string     `json:"appointmentId,omitempty"`
	LineItems     []LineItem `json:"lineItems"`
	// TaxRateBps is the tax rate in basis points (825 = 8.25%).
	TaxRateBps     int64  `json:"taxRateBps"`
	DiscountAmount int64  `json:"discountAmount"`
	Currency       string `json:"currency"`
	// DueAt is when payment is due (zero when not set).
	DueAt time.Time `json:"dueAt,omitzero"`
	// Notes are free text (PHI).
	Notes  string        `json:"notes,omitempty"`
	Status InvoiceStatus `json:"status"`
	// Subtotal is the sum of the line amounts.
	Subtotal int64 `json:"subtotal"`
	// Tax is round_half_up((Subtotal − DiscountAmount) × TaxRateBps / 10000).
	Tax int64 `json:"tax"`
	// Total is Subtotal − DiscountAmount + Tax.
	Total      int64 `json:"total"`
	AmountPaid int64 `json:"amountPaid"`
	// AmountDue is Total − AmountPaid. Neither voiding nor refunds change it.
	AmountDue int64 `json:"amountDue"`
	// AmountRefunded is the sum of the refunds of the invoice's payments; refunds change
	// neither AmountPaid nor Status.
	AmountRefunded int64 `json:"amountRefunded"`
	// PaidAt is when the invoice became paid (zero until then).
	PaidAt time.Time `json:"paidAt,omitzero"`
	// VoidedAt is when the invoice was voided (zero unless Status is InvoiceVoid).
	VoidedAt time.Time `json:"voidedAt,omitzero"`
	// VoidReason is the reason sent when the invoice was voided, if any.
	VoidReason string    `json:"voidReason,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// LineItemParams is one line of a new invoice. Description and Quantity are required, and
// UnitAmount unless ProductID is set (it then defaults to the product's price).
type LineItemParams struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	// UnitAmount in minor units; nil means "the product's price" (medspa.Ptr sets one).
	UnitAmount *int64 `json:"unitAmount,omitempty"`
	// ProductID sells the product: its stock at location "main" drops by Quantity.
	ProductID string `json:"productId,omitempty"`
}

// InvoiceCreateParams are the fields of a new invoice. PatientID and LineItems (1–100) are
// required.
type InvoiceCreateParams struct {
	PatientID     string           `json:"patientId"`
	AppointmentID string           `json:"appointmentId,omitempty"`
	LineItems     []LineItemParams `json:"lineItems"`
	// TaxRateBps is the tax rate in basis points, 0–10,000.
	TaxRateBps int64 `json:"taxRateBps,omitempty"`
	// DiscountAmount is subtracted before tax; at most the subtotal.
	DiscountAmount int64 `json:"discountAmount,omitempty"`
	// Currency is an ISO 4217 code, lowercase (default "usd").
	Currency string    `json:"currency,omitempty"`
	DueAt    time.Time `json:"dueAt,omitzero"`
	// Notes are free text, at most 10,000 characters (PHI).
	Notes string `json:"notes,omitempty"`
}

// MarshalJSON writes DueAt (when set) as the protocol writes timestamps, whatever its location
// and precision: UTC, "Z", whole seconds (docs/protocol.md §2).
func (p InvoiceCreateParams) MarshalJSON() ([]byte, error) {
	type plain InvoiceCreateParams // without this method
	var due string
	if !p.DueAt.IsZero() {
		due = wire.FormatTime(p.DueAt)
	}
	return json.Marshal(struct {
		plain
		DueAt string `json:"dueAt,omitempty"`
	}{plain(p), due})
}

// InvoiceVoidParams say why an invoice is voided; the body is optional, and a nil
// *InvoiceVoidParams sends none.
type InvoiceVoidParams struct {
	// Reason is kept as the invoice's VoidReason; at most 500 characters.
	Reason string `json:"reason,omitempty"`
}

// InvoiceListParams filter and page an invoice list; filters combine with AND.
type InvoiceListParams struct {
	client.ListOptions
	PatientID string `url:"patientId,omitempty"`
	// Status keeps invoices in any of the given statuses.
	Status []InvoiceStatus `url:"status,omitempty"`
	// CreatedFrom (inclusive) and CreatedTo (exclusive) bound createdAt.
	CreatedFrom time.Time `url:"createdFrom,omitempty"`
	CreatedTo   time.Time `url:"createdTo,omitempty"`
	// Sort is medspa.SortCreatedAsc (default) or medspa.SortCreatedDesc.
	Sort client.Sort `url:"sort,omitempty"`
}

// PaymentMethod is how a payment was made.
type PaymentMethod string

// Payment methods. Only card payments can be declined.
const (
	MethodCard      PaymentMethod = "card"
	MethodCash      PaymentMethod = "cash"
	MethodCheck     PaymentMethod = "check"
	MethodGiftCard  PaymentMethod = "gift_card"
	MethodFinancing PaymentMethod = "financing"
	MethodOther     PaymentMethod = "other"
)

// Validate refuses a PaymentMethod other than the six above (medspa.ErrInvalidArgument): the
// call path runs it before anything is sent.
func (m PaymentMethod) Validate() error {
	return client.CheckEnum(m, MethodCard, MethodCash, MethodCheck, MethodGiftCard, MethodFinancing, MethodOther)
}

// PaymentStatus is the outcome of a payment.
type PaymentStatus string

// Payment statuses.
const (
	PaymentSucceeded PaymentStatus = "succeeded"
	PaymentFailed    PaymentStatus = "failed"
)

// Validate refuses a PaymentStatus other than the two above (medspa.ErrInvalidArgument).
func (s PaymentStatus) Validate() error { return client.CheckEnum(s, PaymentSucceeded, PaymentFailed) }

// Card test tokens the mock server accepts as PaymentCreateParams.CardToken.
const (
	TokenVisa              = "tok_visa"               // succeeds: visa 4242
	TokenMastercard        = "tok_mastercard"         // succeeds: mastercard 4444
	TokenAmex              = "tok_amex"               // succeeds: amex 0005
	TokenDecline           = "tok_decline"            // declined: generic_decline
	TokenInsufficientFunds = "tok_insufficient_funds" // declined: insufficient_funds
)

// Decline codes of failed card payments.
const (
	DeclineGeneric           = "generic_decline"
	DeclineInsufficientFunds = "insufficient_funds"
)

// Card describes the card of a card payment.
type Card struct {
	Brand string `json:"brand"`
	Last4 string `json:"last4"`
}

// Payment is a payment attempt on an invoice, succeeded or failed.
type Payment struct {
	ID        string        `json:"id"`
	InvoiceID string        `json:"invoiceId"`
	Amount    int64         `json:"amount"`
	Currency  string        `json:"currency"`
	Method    PaymentMethod `json:"method"`
	Status    PaymentStatus `json:"status"`
	// Card is set for card payments.
	Card *Card `json:"card,omitempty"`
	// DeclineCode says why a card payment failed.
	DeclineCode string `json:"declineCode,omitempty"`
	// AmountRefunded is the sum of the payment's refunds; Amount − AmountRefunded is what is
	// left to refund.
	AmountRefunded int64     `json:"amountRefunded"`
	CreatedAt      time.Time `json:"createdAt"`
}

// PaymentListParams filter and page a payment list; filters combine with AND.
type PaymentListParams struct {
	client.ListOptions
	InvoiceID string `url:"invoiceId,omitempty"`
	// Status keeps payments in any of the given statuses.
	Status []PaymentStatus `url:"status,omitempty"`
	// Method keeps payments made by any of the given methods.
	Method []PaymentMethod `url:"method,omitempty"`
	// CreatedFrom (inclusive) and CreatedTo (exclusive) bound createdAt.
	CreatedFrom time.Time `url:"createdFrom,omitempty"`
	CreatedTo   time.Time `url:"createdTo,omitempty"`
	// Sort is medspa.SortCreatedAsc (default) or medspa.SortCreatedDesc.
	Sort client.Sort `url:"sort,omitempty"`
}

// PaymentCreateParams are the fields of a new payment. InvoiceID, Amount (> 0, ≤ the invoice's
// AmountDue) and Method are required; CardToken is required for card payments.
type PaymentCreateParams struct {
	InvoiceID string `json:"invoiceId"`
	Amount    int64  `json:"amount"`
	// Currency must equal the invoice's (default: the invoice's).
	Currency  string        `json:"currency,omitempty"`
	Method    PaymentMethod `json:"method"`
	CardToken string        `json:"cardToken,omitempty"`
}

// InvoicesService calls the invoice endpoints. Get one from medspa.New (the client's Invoices
// field). Every method but All also returns the metadata of the server's answer
// (*medspa.Response: status, request id, rate limit, attempts), with the result or the error;
// it is nil when no answer arrived.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type InvoicesService struct{ e *client.Engine }

// NewInvoicesService returns an InvoicesService sending through e (medspa.New does this for you).
func NewInvoicesService(e *client.Engine) *InvoicesService { return &InvoicesService{e: e} }

// Create creates an invoice and returns it. Product lines sell stock at location "main", all or
// none: short stock is medspa.ErrInsufficientStock and nothing changes.
func (s *InvoicesService) Create(ctx context.Context, params *InvoiceCreateParams, opts ...client.RequestOption) (*Invoice, *client.Response, error) {
	return client.Call[Invoice](ctx, s.e, http.MethodPost, client.Path("invoices"), params, opts...)
}

// Get returns the invoice with the given id (medspa.ErrNotFound if there is none).
func (s *InvoicesService) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Invoice, *client.Response, error) {
	return client.Call[Invoice](ctx, s.e, http.MethodGet, client.Path("invoices", id), nil, opts...)
}

// Void voids an open invoice on which nothing was paid, and returns it: its Status becomes
// InvoiceVoid and VoidedAt is set (VoidReason too, when params give one), and in the same step
// the stock its product lines sold goes back to location "main" (to the lots it came from). A
// void invoice takes no payments; its Total and AmountDue stay as they were. Any other invoice
// is medspa.ErrInvoiceNotVoidable. params may be nil. Retries are safe: the call's
// Idempotency-Key returns the stock once.
func (s *InvoicesService) Void(ctx context.Context, id string, params *InvoiceVoidParams, opts ...client.RequestOption) (*Invoice, *client.Response, error) {
	return client.Call[Invoice](ctx, s.e, http.MethodPost, client.Path("invoices", id, "void"), client.OptionalBody(params), opts...)
}

// List returns one page of invoices.
func (s *InvoicesService) List(ctx context.Context, params *InvoiceListParams, opts ...client.RequestOption) (*client.Page[Invoice], *client.Response, error) {
	return client.List[Invoice](ctx, s.e, client.Path("invoices"), params, opts...)
}

// All iterates over every invoice matching params, fetching pages as needed; an error ends the
// iteration.
func (s *InvoicesService) All(ctx context.Context, params *InvoiceListParams, opts ...client.RequestOption) iter.Seq2[Invoice, error] {
	return client.All[Invoice](ctx, s.e, client.Path("invoices"), params, opts...)
}

// PaymentsService calls the payment endpoints. Get one from medspa.New (the client's Payments
// field). Every method but All also returns the metadata of the server's answer
// (*medspa.Response), as InvoicesService's do.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type PaymentsService struct{ e *client.Engine }

// NewPaymentsService returns a PaymentsService sending through e (medspa.New does this for you).
func NewPaymentsService(e *client.Engine) *PaymentsService { return &PaymentsService{e: e} }

// Create pays (part of) an invoice and returns the succeeded payment. A declined card is an
// *medspa.Error matching medspa.ErrCardDeclined whose PaymentID names the recorded failed
// payment and whose DeclineCode says why. A paid or void invoice is
// medspa.ErrInvoiceNotPayable; an amount above AmountDue is medspa.ErrAmountExceedsBalance.
func (s *PaymentsService) Create(ctx context.Context, params *PaymentCreateParams, opts ...client.RequestOption) (*Payment, *client.Response, error) {
	return client.Call[Payment](ctx, s.e, http.MethodPost, client.Path("payments"), params, opts...)
}

// Get returns the payment with the given id (medspa.ErrNotFound if there is none).
func (s *PaymentsService) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Payment, *client.Response, error) {
	return client.Call[Payment](ctx, s.e, http.MethodGet, client.Path("payments", id), nil, opts...)
}

// List returns one page of payments, succeeded and failed.
func (s *PaymentsService) List(ctx context.Context, params *PaymentListParams, opts ...client.RequestOption) (*client.Page[Payment], *client.Response, error) {
	return client.List[Payment](ctx, s.e, client.Path("payments"), params, opts...)
}

// All iterates over every payment matching params, fetching pages as needed; an error ends the
// iteration.
func (s *PaymentsService) All(ctx context.Context, params *PaymentListParams, opts ...client.RequestOption) iter.Seq2[Payment, error] {
	return client.All[Payment](ctx, s.e, client.Path("payments"), params, opts...)
}
