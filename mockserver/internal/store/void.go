package store

import (
	"math"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/webhooks"
)

// InvoiceVoidInput is the optional body of a void request (docs/protocol.md §9 Invoice),
// decoded; its zero value is a bare POST.
type InvoiceVoidInput struct {
	Members
	Reason Field[string]
}

// maxVoidReason bounds the reason of a void (docs/protocol.md §9 Invoice).
const maxVoidReason = 500

// VoidInvoice validates in and voids the invoice: first the body (422), then, atomically, the
// invoice must exist (404) and be open with nothing paid (else 409 invoice_not_voidable). In
// the same step as the status change, the stock its product lines sold returns to where it
// came from: one adjustment with reason returned and reference the invoice id per sale (per
// lot drawn, for lot-tracked products). A void invoice never returns to open, so stock
// returns exactly once.
func (a *Account) VoidInvoice(id string, in InvoiceVoidInput) (billing.Invoice, error) {
	c := newChecker()
	c.members(in.Members)
	reason, _ := c.str("reason", in.Reason, false, 0, maxVoidReason)
	if err := c.done(); err != nil {
		return billing.Invoice{}, err
	}
	t := a.begin()
	defer t.end()
	r, ok := a.data.Invoices.get(id)
	if !ok {
		return billing.Invoice{}, NotFound("invoice")
	}
	if r.Status != billing.InvoiceOpen || r.AmountPaid != 0 {
		return billing.Invoice{}, breaks("invoice_not_voidable", "only an open invoice with nothing paid can be voided", nil)
	}
	returns, err := a.planReturns(r)
	if err != nil {
		return billing.Invoice{}, err
	}
	now := a.Now()
	r.Status, r.VoidedAt, r.VoidReason, r.UpdatedAt = billing.InvoiceVoid, now, reason, now
	t.put("invoice", r.ID)
	t.emit(webhooks.EventInvoiceVoided, invoiceData(r))
	for _, ret := range returns {
		if _, _, err := a.applyAdjustment(&t, ret.product, ret.params, now); err != nil {
			return billing.Invoice{}, err // unreachable: planReturns checked every return under the same lock
		}
	}
	return a.openInvoice(r), nil
}

// stockReturn is one adjustment that puts sold stock back.
type stockReturn struct {
	product *inventory.Product
	params  inventory.AdjustParams
}

// planReturns lists the adjustments that put back the stock sold by the invoice's product
// lines, having checked that every one of them will apply; the caller holds a.mu. The sales
// are the adjustments with reason sale and reference the invoice id, made in the same step as
// the invoice, so they are stamped with its createdAt.
func (a *Account) planReturns(inv *InvoiceRecord) ([]stockReturn, error) {
	var out []stockReturn
	added := map[*StockRecord]int64{}
	for _, sale := range a.data.Adjustments.since(inv.CreatedAt) {
		if sale.CreatedAt.After(inv.CreatedAt) {
			break
		}
		if sale.Reason != inventory.ReasonSale || sale.Reference != inv.ID {
			continue
		}
		p, ok := a.data.Products.get(sale.ProductID)
		if !ok {
			continue // products are never deleted
		}
		back := inventory.AdjustParams{ProductID: p.ID, Location: sale.Location, Delta: -sale.Delta,
			Reason: inventory.ReasonReturned, Reference: inv.ID}
		switch {
		case !p.TrackLots:
			out = append(out, stockReturn{p, back})
		case len(sale.Drawn) == 0:
			// Sold before the product tracked lots (it was switched while nothing was on hand):
			// there is no lot to return the stock to.
			return nil, breaks("invoice_not_voidable", "the stock sold cannot return to a lot: it was sold before the product tracked lots", nil)
		default:
			for _, l := range sale.Drawn {
				lot := back
				lot.Delta, lot.LotNumber, lot.ExpiresOn = l.Quantity, l.LotNumber, l.ExpiresOn
				out = append(out, stockReturn{p, lot})
			}
		}
		// Stock can hold at most MaxInt64 units; lots hold part of a record's stock, so
		// checking the record covers its lots.
		if s := a.stock(p.ID, sale.Location); s != nil {
			if s.OnHand > math.MaxInt64-added[s]+sale.Delta {
				return nil, breaks("invoice_not_voidable", "returning the stock would exceed the largest quantity", nil)
			}
			added[s] -= sale.Delta
		}
	}
	return out, nil
}
