package billing

import "time"

// The wire types of voided invoices and refunds (docs/protocol.md §9 "Invoice", "Refund").

// RefundReason says why a payment is refunded.
type RefundReason string

// Refund reasons.
const (
	RefundRequestedByCustomer RefundReason = "requested_by_customer" // the default
	RefundDuplicate           RefundReason = "duplicate"
	RefundFraudulent          RefundReason = "fraudulent"
	RefundOther               RefundReason = "other"
)

// RefundStatus is the outcome of a refund.
type RefundStatus string

// RefundSucceeded is the status of every refund: refunds succeed at once.
const RefundSucceeded RefundStatus = "succeeded"

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
	// Amount (> 0) defaults to what is left to refund (the payment's Amount − AmountRefunded).
	Amount int64 `json:"amount,omitempty"`
	// Reason defaults to RefundRequestedByCustomer.
	Reason RefundReason `json:"reason,omitempty"`
	// Notes are free text, at most 500 characters (PHI).
	Notes string `json:"notes,omitempty"`
}
