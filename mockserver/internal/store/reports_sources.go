package store

import (
	"time"

	"github.com/medspa/medspa-go/billing"
)

// The report engine reads the domain through the row types and iterators of this file only,
// so that the tables behind them can change without touching the engine. Rows carry the
// fields in the clear: sealed PHI is never opened for a report. Callers hold a.mu (read).

// apptRow is an appointment as reports see it (API status values).
type apptRow struct {
	ID, PatientID, ProviderID, Service, RoomID, Status string
	StartAt, EndAt, CreatedAt                          time.Time
}

// paymentRow is a payment as reports see it (status succeeded or failed).
type paymentRow struct {
	ID, InvoiceID, Status, Method, Currency, CardBrand, DeclineCode string
	Amount                                                          int64
	CreatedAt                                                       time.Time
}

// invoiceRow is an invoice as reports see it.
type invoiceRow struct {
	ID, PatientID, AppointmentID, Status, Currency              string
	Subtotal, DiscountAmount, Tax, Total, AmountPaid, AmountDue int64
	TaxRateBps                                                  int64
	CreatedAt                                                   time.Time
}

// refundRow is a refund as reports see it.
type refundRow struct {
	ID, PaymentID, InvoiceID string
	Amount                   int64
	CreatedAt                time.Time
}

// patientRow is a patient's clear fields.
type patientRow struct {
	ID        string
	CreatedAt time.Time
}

// adjustmentRow is an inventory adjustment as reports see it.
type adjustmentRow struct {
	ID, ProductID, Location, Reason, LotNumber, Reference string
	Delta, OnHandAfter                                    int64
	CreatedAt                                             time.Time
}

// rowIter calls yield for each row whose time field is in [from, to) (zero from: since the
// beginning), in time order, until yield returns false. The row is reused between calls.
type rowIter[R any] func(from, to time.Time, yield func(*R) bool)

// reportSources is what the engine reads. A nil iterator or lookup has no records.
type reportSources struct {
	appointments rowIter[apptRow] // by startAt
	payments     rowIter[paymentRow]
	invoices     rowIter[invoiceRow]
	refunds      rowIter[refundRow]
	patients     rowIter[patientRow]
	adjustments  rowIter[adjustmentRow]
	// appointment and invoice look a record up by id into *into.
	appointment func(id string, into *apptRow) bool
	invoice     func(id string, into *invoiceRow) bool
}

// sources returns the account's records as report rows; the caller holds a.mu (read).
func (a *Account) sources() *reportSources {
	fillAppt := func(r *AppointmentRecord, row *apptRow) {
		*row = apptRow{
			ID: r.ID, PatientID: r.PatientID, ProviderID: r.ProviderID, Service: r.Service, RoomID: r.RoomID,
			Status: string(r.Status), StartAt: r.StartAt, EndAt: r.EndAt, CreatedAt: r.CreatedAt,
		}
	}
	return &reportSources{
		patients: tableRows(a.data.Patients, func(r *PatientRecord, row *patientRow) {
			*row = patientRow{ID: r.ID, CreatedAt: r.CreatedAt.Time()}
		}),
		appointments: tableRows(a.data.Appointments, fillAppt),
		appointment:  lookup(a.data.Appointments, fillAppt),
		invoices:     tableRows(a.data.Invoices, fillInvoice),
		invoice:      lookup(a.data.Invoices, fillInvoice),
		payments: tableRows(a.data.Payments, func(r *billing.Payment, row *paymentRow) {
			*row = paymentRow{
				ID: r.ID, InvoiceID: r.InvoiceID, Status: string(r.Status), Method: string(r.Method), Currency: r.Currency,
				DeclineCode: r.DeclineCode, Amount: r.Amount, CreatedAt: r.CreatedAt,
			}
			if r.Card != nil {
				row.CardBrand = r.Card.Brand
			}
		}),
		refunds: tableRows(a.data.Refunds, func(r *RefundRecord, row *refundRow) {
			*row = refundRow{ID: r.ID, PaymentID: r.PaymentID, InvoiceID: r.InvoiceID, Amount: r.Amount, CreatedAt: r.CreatedAt}
		}),
		adjustments: tableRows(a.data.Adjustments, func(r *AdjustmentRecord, row *adjustmentRow) {
			*row = adjustmentRow{
				ID: r.ID, ProductID: r.ProductID, Location: r.Location, Reason: string(r.Reason), LotNumber: r.LotNumber,
				Reference: r.Reference, Delta: r.Delta, OnHandAfter: r.OnHandAfter, CreatedAt: r.CreatedAt,
			}
		}),
	}
}

// fillInvoice converts an invoice record (its sealed notes stay sealed).
func fillInvoice(r *InvoiceRecord, row *invoiceRow) {
	*row = invoiceRow{
		ID: r.ID, PatientID: r.PatientID, AppointmentID: r.AppointmentID, Status: string(r.Status), Currency: r.Currency,
		Subtotal: r.Subtotal, DiscountAmount: r.DiscountAmount, Tax: r.Tax, Total: r.Total, AmountPaid: r.AmountPaid,
		AmountDue: r.AmountDue, TaxRateBps: r.TaxRateBps, CreatedAt: r.CreatedAt,
	}
}

// lookup finds a record of t by id and converts it with fill.
func lookup[R, Row any](t *table[R], fill func(*R, *Row)) func(id string, into *Row) bool {
	return func(id string, into *Row) bool {
		r, ok := t.get(id)
		if ok {
			fill(r, into)
		}
		return ok
	}
}

// tableRows iterates the records of t in [from, to) of its sort time, converting each with fill.
func tableRows[R, Row any](t *table[R], fill func(*R, *Row)) rowIter[Row] {
	return func(from, to time.Time, yield func(*Row) bool) {
		var row Row
		for _, r := range t.since(from) {
			if !t.key(r).t.Before(to) {
				return
			}
			fill(r, &row)
			if !yield(&row) {
				return
			}
		}
	}
}
