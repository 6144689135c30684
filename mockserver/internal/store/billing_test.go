package store

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// bigTax is round_half_up(base × bps / 10000) with big integers: the test's own arithmetic.
func bigTax(base, bps int64) *big.Int {
	n := new(big.Int).Mul(big.NewInt(base), big.NewInt(bps))
	n.Add(n, big.NewInt(5000))
	return n.Div(n, big.NewInt(10000))
}

func TestTaxHalfUp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		base, bps, want int64
	}{
		{0, 825, 0},
		{1000, 0, 0},
		{1, 5000, 1},  // 0.5 → 1
		{1, 4999, 0},  // 0.4999 → 0
		{3, 5000, 2},  // 1.5 → 2
		{5, 5000, 3},  // 2.5 → 3: half up, not half even
		{9999, 5, 5},  // 4.9995 → 5
		{4999, 1, 0},  // 0.4999 → 0
		{5000, 1, 1},  // 0.5 → 1
		{15001, 1, 2}, // 1.5001 → 2
		{14999, 1, 1}, // 1.4999 → 1
		{123456, 10000, 123456},
		{math.MaxInt64, 10000, math.MaxInt64},
		{math.MaxInt64, 1, 922337203685478}, // 922337203685477.5807 → …478
		{math.MaxInt64, 5000, 4611686018427387904},
	}
	for _, tc := range cases {
		if got := taxHalfUp(tc.base, tc.bps); got != tc.want || big.NewInt(got).Cmp(bigTax(tc.base, tc.bps)) != 0 {
			t.Errorf("taxHalfUp(%d, %d) = %d, want %d (big: %s)", tc.base, tc.bps, got, tc.want, bigTax(tc.base, tc.bps))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		base := r.Int64N(math.MaxInt64)
		if r.IntN(2) == 0 {
			base = r.Int64N(1_000_000)
		}
		bps := r.Int64N(10001)
		if got := taxHalfUp(base, bps); big.NewInt(got).Cmp(bigTax(base, bps)) != 0 {
			t.Fatalf("taxHalfUp(%d, %d) = %d, want %s", base, bps, got, bigTax(base, bps))
		}
	}
}

func TestInvoiceTotals(t *testing.T) {
	t.Parallel()
	type line struct{ q, u int64 }
	cases := []struct {
		name     string
		lines    []line
		discount int64
		bps      int64
		err      []string // "pointer code"
	}{
		{"simple", []line{{2, 1999}, {1, 5000}}, 0, 825, nil},
		{"zero everything", []line{{1, 0}}, 0, 10000, nil},
		{"discount = subtotal", []line{{3, 333}}, 999, 10000, nil},
		{"discount > subtotal", []line{{3, 333}}, 1000, 825, []string{"/discountAmount out_of_range"}},
		{"max quantity, big prices", []line{{10000, 922_337_203_685_477}}, 0, 0, nil},
		{"line overflow", []line{{1, 1}, {10000, 922_337_203_685_478}}, 0, 0, []string{"/lineItems/1/unitAmount out_of_range"}},
		{"subtotal overflow", []line{{1, math.MaxInt64}, {1, 1}}, 0, 0, []string{"/lineItems out_of_range"}},
		{"total overflow through tax", []line{{1, math.MaxInt64 - 10}}, 0, 1, []string{"/lineItems out_of_range"}},
		{"max subtotal, no tax", []line{{1, math.MaxInt64}}, 0, 0, nil},
		{"max subtotal, discounted then max tax", []line{{1, math.MaxInt64}}, math.MaxInt64/2 + 1, 10000, nil},
		{"one cent more overflows", []line{{1, math.MaxInt64}}, math.MaxInt64 / 2, 10000, []string{"/lineItems out_of_range"}},
		{"rounding at .5 with discount", []line{{1, 1001}}, 1000, 5000, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]billing.LineItem, len(tc.lines))
			sub := new(big.Int)
			for i, l := range tc.lines {
				items[i] = billing.LineItem{Quantity: l.q, UnitAmount: l.u}
				sub.Add(sub, new(big.Int).Mul(big.NewInt(l.q), big.NewInt(l.u)))
			}
			subtotal, tax, total, errs := invoiceTotals(items, tc.discount, tc.bps)
			var got []string
			for _, e := range errs {
				got = append(got, e.Pointer+" "+e.Code)
			}
			if !slices.Equal(got, tc.err) {
				t.Fatalf("errors %v, want %v", got, tc.err)
			}
			if tc.err != nil {
				return
			}
			base := new(big.Int).Sub(sub, big.NewInt(tc.discount))
			wantTax := bigTax(base.Int64(), tc.bps)
			wantTotal := new(big.Int).Add(base, wantTax)
			if sub.Cmp(big.NewInt(subtotal)) != 0 || wantTax.Cmp(big.NewInt(tax)) != 0 || wantTotal.Cmp(big.NewInt(total)) != 0 {
				t.Errorf("got %d/%d/%d, want %s/%s/%s", subtotal, tax, total, sub, wantTax, wantTotal)
			}
			for i, it := range items {
				if it.Amount != tc.lines[i].q*tc.lines[i].u {
					t.Errorf("line %d amount %d", i, it.Amount)
				}
			}
		})
	}
}

// billingFixture is an account with a patient and a product with stock at main.
func billingFixture(t *testing.T) (*Account, string, inventory.Product) {
	t.Helper()
	a := New(Options{}).Account("acct_test")
	p, err := a.createPatient(patients.Patient{FirstName: "A", LastName: "B", Email: "a@b.co"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	prod, err := a.createProduct(inventory.Product{SKU: "SKU-1", Name: "Serum", Category: inventory.CategorySkincare, Unit: inventory.UnitItem, Price: 2500, Currency: "usd", ReorderPoint: 2, Active: true}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return a, p.ID, prod
}

func code(err error) string {
	p, _ := viewOf(err)
	return p.Code
}

// TestEventsAreThin follows a checkout and checks every event's type and data: ids, statuses,
// amounts and counts, and no free text.
func TestEventsAreThin(t *testing.T) {
	t.Parallel()
	a, patID, prod := billingFixture(t)
	adj, err := a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: MainLocation, Delta: 5, Reason: inventory.ReasonReceived, Note: "SECRET-NOTE", Reference: "PO-7"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := a.createInvoice(billing.InvoiceCreateParams{
		PatientID: patID, Currency: "usd", TaxRateBps: 1000, Notes: "SECRET-INVOICE-NOTES",
		LineItems: []billing.LineItemParams{{Description: "Serum", Quantity: 4, ProductID: prod.ID}},
	}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	declined, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCard, CardToken: billing.TokenDecline}, time.Time{})
	if code(err) != "card_declined" {
		t.Fatalf("decline: %v", err)
	}
	paid, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: inv.Total, Method: billing.MethodCash}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	evs := a.Events()
	var types []webhooks.EventType
	for _, e := range evs {
		types = append(types, e.Type)
	}
	want := []webhooks.EventType{
		webhooks.EventPatientCreated, webhooks.EventProductCreated, webhooks.EventInventoryAdjusted,
		webhooks.EventInvoiceCreated, webhooks.EventInventoryAdjusted, webhooks.EventInventoryLowStock,
		webhooks.EventPaymentFailed, webhooks.EventPaymentSucceeded, webhooks.EventInvoicePaid,
	}
	if !slices.Equal(types, want) {
		t.Fatalf("events\n got %v\nwant %v", types, want)
	}
	sale := a.AdjustmentsCreated(time.Time{}, time.Now().Add(time.Hour))[1]
	stk := a.stock(prod.ID, MainLocation)
	wantData := []webhooks.EventData{
		nil, // patient: covered by the patients tests
		&webhooks.ProductData{ID: prod.ID, SKU: "SKU-1", Category: "skincare", Active: true},
		&webhooks.InventoryAdjustmentData{ID: adj.ID, ProductID: prod.ID, Location: "main", Delta: 5, OnHandAfter: 5, Reason: "received", Reference: "PO-7"},
		&webhooks.InvoiceData{ID: inv.ID, PatientID: patID, Status: "open", Currency: "usd", Total: 11000, AmountDue: 11000},
		&webhooks.InventoryAdjustmentData{ID: sale.ID, ProductID: prod.ID, Location: "main", Delta: -4, OnHandAfter: 1, Reason: "sale", Reference: inv.ID},
		&webhooks.LowStockData{ID: stk.ID, ProductID: prod.ID, Location: "main", OnHand: 1, ReorderPoint: 2},
		&webhooks.PaymentData{ID: declined.ID, InvoiceID: inv.ID, Status: "failed", Amount: 100, Currency: "usd", Method: "card", DeclineCode: "generic_decline"},
		&webhooks.PaymentData{ID: paid.ID, InvoiceID: inv.ID, Status: "succeeded", Amount: 11000, Currency: "usd", Method: "cash"},
		&webhooks.InvoiceData{ID: inv.ID, PatientID: patID, Status: "paid", Currency: "usd", Total: 11000, AmountPaid: 11000},
	}
	for i, w := range wantData {
		if w == nil {
			continue
		}
		got, _ := json.Marshal(evs[i].Data)
		exp, _ := json.Marshal(w)
		if !bytes.Equal(got, exp) {
			t.Errorf("event %d (%s)\n got %s\nwant %s", i, evs[i].Type, got, exp)
		}
	}
	all, _ := json.Marshal(evs)
	for _, secret := range []string{"SECRET", "Serum"} {
		if bytes.Contains(all, []byte(secret)) {
			t.Errorf("events carry free text %q", secret)
		}
	}
}

// TestBillingDumpSealsNotesAndRestores: invoice notes and adjustment notes never appear in the
// serialized state; a restore from it keeps every rule (SKU index, stock keys, amounts).
func TestBillingDumpSealsNotesAndRestores(t *testing.T) {
	t.Parallel()
	a, patID, prod := billingFixture(t)
	if _, err := a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: MainLocation, Delta: 3, Reason: inventory.ReasonReceived, Note: "Hush-adjustment-note"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	inv, err := a.createInvoice(billing.InvoiceCreateParams{PatientID: patID, Currency: "usd", Notes: "Hush-invoice-note",
		LineItems: []billing.LineItemParams{{Description: "Serum", Quantity: 1, ProductID: prod.ID}}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	dump, err := json.Marshal(a.data)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(dump, []byte("Hush")) {
		t.Error("the dump contains plaintext notes")
	}
	if !bytes.Contains(dump, []byte(inv.ID)) || !bytes.Contains(dump, []byte("SKU-1")) {
		t.Error("sanity: ids and SKUs are in the clear")
	}
	restored := newData()
	if err := json.Unmarshal(dump, restored); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.data = restored
	a.mu.Unlock()
	got, err := a.GetInvoice(inv.ID)
	if err != nil || got.Notes != "Hush-invoice-note" || got.Total != inv.Total || len(got.LineItems) != 1 {
		t.Errorf("restored invoice %+v %v", got, err)
	}
	if _, err := a.createProduct(inventory.Product{SKU: "sku-1", Name: "x", Category: inventory.CategoryOther, Currency: "usd"}, time.Time{}); code(err) != "duplicate_sku" {
		t.Errorf("SKU index lost in the restore: %v", err)
	}
	adj, err := a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: MainLocation, Delta: -2, Reason: inventory.ReasonUsed}, time.Time{})
	if err != nil || adj.OnHandAfter != 0 {
		t.Errorf("stock after restore: %+v %v", adj, err)
	}
	if recs, total := a.ListStock(StockFilter{}, Window{Page: 1, PerPage: 10}); total != 1 || recs[0].OnHand != 0 {
		t.Errorf("stock keys lost in the restore: %d records", total)
	}
}

// TestConcurrentSalesAndAdjustments mixes invoices selling a product with adjustments on its
// record: every sale is all-or-nothing and onHand ends at the exact sum, never below zero.
func TestConcurrentSalesAndAdjustments(t *testing.T) {
	t.Parallel()
	a, patID, prod := billingFixture(t)
	if _, err := a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: MainLocation, Delta: 50, Reason: inventory.ReasonReceived}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	sum := int64(50)
	for i := range 100 {
		wg.Go(func() {
			var delta int64
			var err error
			switch i % 3 {
			case 0:
				delta = -3
				_, err = a.createInvoice(billing.InvoiceCreateParams{PatientID: patID, Currency: "usd", LineItems: []billing.LineItemParams{
					{Description: "a", Quantity: 1, ProductID: prod.ID}, {Description: "b", Quantity: 2, ProductID: prod.ID},
				}}, time.Time{})
			case 1:
				delta = -2
				_, err = a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: MainLocation, Delta: delta, Reason: inventory.ReasonUsed}, time.Time{})
			default:
				delta = 1
				_, err = a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: MainLocation, Delta: delta, Reason: inventory.ReasonCorrection}, time.Time{})
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				sum += delta
			case code(err) != "insufficient_stock":
				t.Errorf("op %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	s := a.stock(prod.ID, MainLocation)
	if s.OnHand != sum || s.OnHand < 0 {
		t.Errorf("on hand %d, want %d", s.OnHand, sum)
	}
	var moved int64 = 0
	for _, adj := range a.AdjustmentsCreated(time.Time{}, time.Now().Add(time.Hour)) {
		moved += adj.Delta
		if adj.OnHandAfter < 0 {
			t.Errorf("onHandAfter %d", adj.OnHandAfter)
		}
	}
	if moved != s.OnHand {
		t.Errorf("sum of adjustments %d != on hand %d", moved, s.OnHand)
	}
}

func TestReportAccessorsWindow(t *testing.T) {
	t.Parallel()
	a, patID, _ := billingFixture(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var invs []string
	for i := range 3 {
		inv, err := a.createInvoice(billing.InvoiceCreateParams{PatientID: patID, Currency: "usd", Notes: "n",
			LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: client.Ptr[int64](100)}}}, t0.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, inv.ID)
		if _, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCash}, t0.Add(time.Duration(i)*time.Hour+time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	got := a.InvoicesCreated(t0.Add(time.Hour), t0.Add(2*time.Hour))
	if len(got) != 1 || got[0].ID != invs[1] || got[0].Notes != "" || got[0].Total != 100 {
		t.Errorf("invoices in window %+v", got)
	}
	pays := a.PaymentsCreated(t0, t0.Add(2*time.Hour+time.Minute))
	if len(pays) != 2 || pays[0].InvoiceID != invs[0] || pays[1].InvoiceID != invs[1] {
		t.Errorf("payments in window %+v", pays)
	}
}

// TestReorderPointPatchCrossesToLow: raising a reorder point over the stock on hand is a crossing
// too (one event per record), and every record of the product follows.
func TestReorderPointPatchCrossesToLow(t *testing.T) {
	t.Parallel()
	a, _, prod := billingFixture(t)
	for _, loc := range []string{MainLocation, "annex"} {
		if _, err := a.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: loc, Delta: 5, Reason: inventory.ReasonReceived}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	n := len(a.Events())
	if _, err := a.updateProduct(prod.ID, func(p *inventory.Product) { p.ReorderPoint = 5 }); err != nil {
		t.Fatal(err)
	}
	evs := a.Events()[n:]
	if len(evs) != 2 || evs[0].Type != webhooks.EventInventoryLowStock || evs[1].Type != webhooks.EventInventoryLowStock {
		t.Fatalf("events %+v", evs)
	}
	recs, _ := a.ListStock(StockFilter{ProductID: prod.ID}, Window{Page: 1, PerPage: 10})
	for _, s := range recs {
		if !s.LowStock || s.ReorderPoint != 5 {
			t.Errorf("record %+v", s)
		}
	}
	// Already low: no new crossing.
	if _, err := a.updateProduct(prod.ID, func(p *inventory.Product) { p.ReorderPoint = 6 }); err != nil {
		t.Fatal(err)
	}
	if len(a.Events()) != n+2 {
		t.Errorf("a record already low crossed again")
	}
}
