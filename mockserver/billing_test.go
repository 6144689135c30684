package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/webhooks"
)

// The billing extensions of docs/protocol.md §9 (invoice void, payment list, refunds) as a
// foreign client sees them: raw requests over a loopback listener, every exchange validated
// against api/openapi.yaml.

// wireAPI sends raw requests to a test server with one key.
type wireAPI struct {
	t   *testing.T
	env *testenv.Env
	key string // "" for the env's key
	// unchecked requests break the OpenAPI document on purpose: only responses are validated.
	unchecked bool
}

// invalid returns c for requests that break the OpenAPI document on purpose.
func (c wireAPI) invalid() wireAPI {
	c.unchecked = true
	return c
}

func newWireAPI(t *testing.T, opts ...mockserver.Option) wireAPI {
	t.Helper()
	return wireAPI{t: t, env: testenv.New(t, opts)}
}

// newWireAPIAt is newWireAPI with the account's clock frozen at t0; it returns the account too.
func newWireAPIAt(t *testing.T, t0 time.Time, opts ...mockserver.Option) (wireAPI, string) {
	t.Helper()
	c := newWireAPI(t, opts...)
	c.env.Server.SetTime(c.env.Key.Account, t0)
	return c, c.env.Key.Account
}

// expect sends a request and fails the test unless the answer has status want; a JSON answer
// is decoded into out (when not nil). It returns the answer's header.
func (c wireAPI) expect(want int, method, path, body string, out any, headers ...string) http.Header {
	c.t.Helper()
	if c.key != "" {
		headers = append([]string{"Authorization: Bearer " + c.key}, headers...)
	}
	do := c.env.Do
	if c.unchecked {
		do = c.env.DoInvalid
	}
	resp, b := do(c.t, method, path, body, headers...)
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp.Header
}

// problem sends a request that must fail with status and code.
func (c wireAPI) problem(status int, code, method, path, body string, headers ...string) {
	c.t.Helper()
	var p testenv.Problem
	c.expect(status, method, path, body, &p, headers...)
	if p.Code != code {
		c.t.Fatalf("%s %s: code %q, want %q", method, path, p.Code, code)
	}
}

// id POSTs body to path (201) and returns the created record's id.
func (c wireAPI) id(path, body string) string {
	c.t.Helper()
	var rec struct{ ID string }
	c.expect(http.StatusCreated, http.MethodPost, path, body, &rec)
	return rec.ID
}

// listIDs returns the ids of the page a list answers.
func (c wireAPI) listIDs(path string) []string {
	c.t.Helper()
	var l struct{ Data []struct{ ID string } }
	c.expect(http.StatusOK, http.MethodGet, path, "", &l)
	ids := []string{}
	for _, r := range l.Data {
		ids = append(ids, r.ID)
	}
	return ids
}

func (c wireAPI) invoice(id string) billing.Invoice {
	c.t.Helper()
	var inv billing.Invoice
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/invoices/"+id, "", &inv)
	return inv
}

func (c wireAPI) payment(id string) billing.Payment {
	c.t.Helper()
	var p billing.Payment
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/payments/"+id, "", &p)
	return p
}

// stock returns the product's inventory record at main.
func (c wireAPI) stock(productID string) inventory.StockRecord {
	c.t.Helper()
	var l struct{ Data []inventory.StockRecord }
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/inventory?location=main&productId="+productID, "", &l)
	if len(l.Data) != 1 {
		c.t.Fatalf("stock of %s: %d records", productID, len(l.Data))
	}
	return l.Data[0]
}

func (c wireAPI) patient() string {
	c.t.Helper()
	return c.id("/api/v1/patients", `{"firstName":"Vera","lastName":"Void","email":"vera@example.com"}`)
}

// product creates a product and receives stock: n units, or for a lot-tracked product each
// lot "number:expiresOn:quantity".
func (c wireAPI) product(sku string, price int64, trackLots bool, stock ...string) string {
	c.t.Helper()
	id := c.id("/api/v1/products", fmt.Sprintf(`{"sku":%q,"name":"P","category":"filler","price":%d,"trackLots":%t}`, sku, price, trackLots))
	for _, s := range stock {
		body := fmt.Sprintf(`{"productId":%q,"delta":%s,"reason":"received"}`, id, s)
		if trackLots {
			lot, rest, _ := strings.Cut(s, ":")
			exp, n, _ := strings.Cut(rest, ":")
			body = fmt.Sprintf(`{"productId":%q,"delta":%s,"reason":"received","lotNumber":%q,"expiresOn":%q}`, id, n, lot, exp)
		}
		c.id("/api/v1/inventory/adjust", body)
	}
	return id
}

// lots is what a stock record holds, lot by lot, as "number:expiresOn:quantity".
func lots(s inventory.StockRecord) []string {
	var out []string
	for _, l := range s.Lots {
		out = append(out, fmt.Sprintf("%s:%s:%d", l.LotNumber, l.ExpiresOn, l.Quantity))
	}
	return out
}

func TestVoidInvoice(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	c, acct := newWireAPIAt(t, t0)
	pat := c.patient()
	plain := c.product("PLAIN-1", 1500, false, "10")
	tracked := c.product("LOT-1", 9000, true, "A:2031-01-01:3", "B:2031-06-01:5")
	inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","taxRateBps":825,"lineItems":[`+
		`{"description":"serum","quantity":4,"productId":"`+plain+`"},`+
		`{"description":"filler","quantity":5,"productId":"`+tracked+`"},`+
		`{"description":"consult","quantity":1,"unitAmount":5000}]}`)
	// The sale took 4 plain units, and 5 tracked ones first-expiring-first-out: all of lot A, 2 of B.
	if s := c.stock(plain); s.OnHand != 6 {
		t.Fatalf("plain after the sale: %d", s.OnHand)
	}
	if s := c.stock(tracked); s.OnHand != 3 || !slices.Equal(lots(s), []string{"B:2031-06-01:3"}) {
		t.Fatalf("tracked after the sale: %d %v", s.OnHand, lots(s))
	}
	before := c.invoice(inv)

	rec := c.env.Server.RecordEvents(acct)
	defer rec.Stop()
	c.env.Server.AdvanceTime(acct, time.Hour)
	var voided billing.Invoice
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/invoices/"+inv+"/void", `{"reason":"raised in error"}`, &voided)
	if voided.Status != billing.InvoiceVoid || !voided.VoidedAt.Equal(t0.Add(time.Hour)) || voided.VoidReason != "raised in error" ||
		!voided.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("voided = %+v", voided)
	}
	// The amounts stay as they were (docs/protocol.md §9: void says nothing is owed).
	if voided.Total != before.Total || voided.AmountDue != before.AmountDue || voided.AmountPaid != 0 || voided.AmountRefunded != 0 {
		t.Fatalf("amounts changed: %+v, before %+v", voided, before)
	}
	if got := c.invoice(inv); got.Status != billing.InvoiceVoid || !got.VoidedAt.Equal(voided.VoidedAt) {
		t.Fatalf("GET after void: %+v", got)
	}
	// Every unit is back where it came from: lot A is made again with its expiry.
	if s := c.stock(plain); s.OnHand != 10 {
		t.Fatalf("plain after the void: %d", s.OnHand)
	}
	if s := c.stock(tracked); s.OnHand != 8 || !slices.Equal(lots(s), []string{"A:2031-01-01:3", "B:2031-06-01:5"}) {
		t.Fatalf("tracked after the void: %d %v", s.OnHand, lots(s))
	}
	// One step, in this order: the invoice, then each return (reason returned, reference the
	// invoice), one per lot drawn.
	var got []string
	for _, e := range rec.Events() {
		switch d := e.Data.(type) {
		case *webhooks.InvoiceData:
			got = append(got, fmt.Sprintf("%s %s %s", e.Type, d.ID, d.Status))
		case *webhooks.InventoryAdjustmentData:
			got = append(got, fmt.Sprintf("%s %s %+d %s %s", e.Type, d.ProductID, d.Delta, d.Reason, d.Reference))
		default:
			got = append(got, string(e.Type))
		}
	}
	want := []string{
		"invoice.voided " + inv + " void",
		"inventory.adjusted " + plain + " +4 returned " + inv,
		"inventory.adjusted " + tracked + " +3 returned " + inv,
		"inventory.adjusted " + tracked + " +2 returned " + inv,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%q\nwant\n%q", got, want)
	}

	// A void invoice takes no payment and is not voided again; nothing moves.
	c.problem(409, "invoice_not_payable", http.MethodPost, "/api/v1/payments", `{"invoiceId":"`+inv+`","amount":100,"method":"cash"}`)
	c.problem(409, "invoice_not_voidable", http.MethodPost, "/api/v1/invoices/"+inv+"/void", "")
	if s := c.stock(tracked); s.OnHand != 8 || len(rec.Events()) != len(want) {
		t.Fatalf("a refused request moved stock (%d) or emitted events (%d)", s.OnHand, len(rec.Events()))
	}

	// A bare POST voids too (no reason); the list filter finds void invoices.
	bare := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":100}]}`)
	var v2 map[string]any
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/invoices/"+bare+"/void", "", &v2)
	if v2["status"] != "void" || v2["voidReason"] != nil || v2["voidedAt"] == nil || v2["amountRefunded"] != float64(0) {
		t.Fatalf("bare void = %v", v2)
	}
	var l struct {
		Data []billing.Invoice
		Meta struct{ Total int }
	}
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/invoices?status=void&sort=-createdAt", "", &l)
	if l.Meta.Total != 2 || l.Data[0].ID != bare || l.Data[1].ID != inv {
		t.Fatalf("status=void: %+v", l)
	}

	// The books keep void invoices: they stay in the revenue report's invoiced and invoices.
	var rev struct {
		Totals struct{ Invoiced, Invoices int64 }
	}
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/reports/revenue?from=2030-05-01&to=2030-06-01&groupBy=month", "", &rev)
	if rev.Totals.Invoices != 2 || rev.Totals.Invoiced != before.Total+100 {
		t.Fatalf("revenue of void invoices: %+v, want 2 invoices of %d", rev.Totals, before.Total+100)
	}

	// Voiding is an update of the invoice in the audit log (its answer holds the notes, PHI).
	audited := 0
	for _, e := range c.env.Server.AuditEvents(acct) {
		if e.Action == "update" && e.ResourceType == "invoice" && (e.ResourceID == inv || e.ResourceID == bare) {
			audited++
		}
	}
	if audited != 2 {
		t.Fatalf("%d audited voids, want 2", audited)
	}
}

// TestVoidRules: only an open invoice with nothing paid can be voided; a zero-total invoice is
// paid at creation.
func TestVoidRules(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	pat := c.patient()
	line := func(amount int) string {
		return `{"patientId":"` + pat + `","lineItems":[{"description":"x","quantity":1,"unitAmount":` + fmt.Sprint(amount) + `}]}`
	}
	partly := c.id("/api/v1/invoices", line(1000))
	c.id("/api/v1/payments", `{"invoiceId":"`+partly+`","amount":1,"method":"cash"}`)
	paid := c.id("/api/v1/invoices", line(1000))
	c.id("/api/v1/payments", `{"invoiceId":"`+paid+`","amount":1000,"method":"cash"}`)
	free := c.id("/api/v1/invoices", line(0))
	declined := c.id("/api/v1/invoices", line(1000))
	c.problem(402, "card_declined", http.MethodPost, "/api/v1/payments", `{"invoiceId":"`+declined+`","amount":1000,"method":"card","cardToken":"tok_decline"}`)
	for _, id := range []string{partly, paid, free} {
		c.problem(409, "invoice_not_voidable", http.MethodPost, "/api/v1/invoices/"+id+"/void", `{"reason":"no"}`)
		if inv := c.invoice(id); inv.Status == billing.InvoiceVoid || !inv.VoidedAt.IsZero() || inv.VoidReason != "" {
			t.Fatalf("refused void changed %+v", inv)
		}
	}
	// A declined card paid nothing: the invoice is still open with amountPaid 0.
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/invoices/"+declined+"/void", "", nil)
	// Scope: billing:read may not void.
	reader := c.env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"billing:read"}, Account: c.env.Key.Account})
	r := c
	r.key = reader.Key
	open := c.id("/api/v1/invoices", line(10))
	r.problem(403, "insufficient_scope", http.MethodPost, "/api/v1/invoices/"+open+"/void", "")
	if c.invoice(open).Status != billing.InvoiceOpen {
		t.Fatal("a denied void changed the invoice")
	}
	// billing:read lists payments and refunds but may not refund.
	var pays struct{ Data []billing.Payment }
	r.expect(http.StatusOK, http.MethodGet, "/api/v1/payments?invoiceId="+paid, "", &pays)
	r.expect(http.StatusOK, http.MethodGet, "/api/v1/refunds", "", nil)
	r.problem(403, "insufficient_scope", http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+pays.Data[0].ID+`"}`)
	if p := c.payment(pays.Data[0].ID); p.AmountRefunded != 0 {
		t.Fatal("a denied refund refunded")
	}
}

// TestVoidOfStockSoldBeforeLots: stock sold while a product did not track lots has no lot to go
// back to once it does; the void is refused and nothing changes.
func TestVoidOfStockSoldBeforeLots(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	pat := c.patient()
	prd := c.product("SWITCH-1", 100, false, "2")
	inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":2,"productId":"`+prd+`"}]}`)
	c.expect(http.StatusOK, http.MethodPatch, "/api/v1/products/"+prd, `{"trackLots":true}`, nil) // nothing on hand: allowed
	c.problem(409, "invoice_not_voidable", http.MethodPost, "/api/v1/invoices/"+inv+"/void", "")
	if s, got := c.stock(prd), c.invoice(inv); s.OnHand != 0 || got.Status != billing.InvoiceOpen {
		t.Fatalf("refused void changed stock %d or status %s", s.OnHand, got.Status)
	}
}

func TestRefunds(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c, acct := newWireAPIAt(t, t0)
	pat := c.patient()
	inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":10000}]}`)
	card := c.id("/api/v1/payments", `{"invoiceId":"`+inv+`","amount":6000,"method":"card","cardToken":"tok_visa"}`)
	cash := c.id("/api/v1/payments", `{"invoiceId":"`+inv+`","amount":4000,"method":"cash"}`)
	rec := c.env.Server.RecordEvents(acct)
	defer rec.Stop()

	c.env.Server.AdvanceTime(acct, time.Minute)
	var r1 billing.Refund
	c.expect(http.StatusCreated, http.MethodPost, "/api/v1/refunds",
		`{"paymentId":"`+card+`","amount":1000,"reason":"duplicate","notes":"charged twice at the desk"}`, &r1)
	want := billing.Refund{ID: r1.ID, PaymentID: card, InvoiceID: inv, Amount: 1000, Currency: "usd", Reason: billing.RefundDuplicate,
		Notes: "charged twice at the desk", Status: billing.RefundSucceeded, CreatedAt: t0.Add(time.Minute)}
	if r1 != want {
		t.Fatalf("refund = %+v, want %+v", r1, want)
	}
	if p := c.payment(card); p.AmountRefunded != 1000 || p.Amount != 6000 {
		t.Fatalf("payment after a refund: %+v", p)
	}
	// The invoice's amountRefunded grows; what was paid and its status do not change.
	if got := c.invoice(inv); got.AmountRefunded != 1000 || got.AmountPaid != 10000 || got.AmountDue != 0 ||
		got.Status != billing.InvoicePaid || !got.UpdatedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("invoice after a refund: %+v", got)
	}
	// No amount: what is left (5000), reason requested_by_customer; then nothing is left.
	var r2 billing.Refund
	c.expect(http.StatusCreated, http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+card+`"}`, &r2)
	if r2.Amount != 5000 || r2.Reason != billing.RefundRequestedByCustomer || r2.Notes != "" {
		t.Fatalf("default refund = %+v", r2)
	}
	c.problem(409, "payment_not_refundable", http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+card+`","amount":1}`)
	c.problem(422, "amount_exceeds_refundable", http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+cash+`","amount":4001}`)
	var r3 billing.Refund
	c.expect(http.StatusCreated, http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+cash+`","amount":4000,"reason":"other"}`, &r3)
	if got := c.invoice(inv); got.AmountRefunded != 10000 || got.AmountPaid != 10000 || got.Status != billing.InvoicePaid {
		t.Fatalf("invoice refunded in full: %+v", got)
	}

	// Events: refund.created with ids and amounts, never the notes.
	var evs []string
	for _, e := range rec.Events() {
		d, ok := e.Refund()
		if !ok {
			t.Fatalf("unexpected event %s", e.Type)
		}
		evs = append(evs, fmt.Sprintf("%s %s %s %s %d %s", e.Type, d.ID, d.PaymentID, d.InvoiceID, d.Amount, d.Currency))
		if b, _ := json.Marshal(e); strings.Contains(string(b), "charged twice") {
			t.Fatalf("refund.created carries the notes: %s", b)
		}
	}
	if wantEvs := []string{
		fmt.Sprintf("refund.created %s %s %s 1000 usd", r1.ID, card, inv),
		fmt.Sprintf("refund.created %s %s %s 5000 usd", r2.ID, card, inv),
		fmt.Sprintf("refund.created %s %s %s 4000 usd", r3.ID, cash, inv),
	}; !slices.Equal(evs, wantEvs) {
		t.Fatalf("events %q, want %q", evs, wantEvs)
	}

	// Get and list, with their filters, order and paging; reads of refunds are audited (notes).
	var got billing.Refund
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/refunds/"+r1.ID, "", &got)
	if got != r1 {
		t.Fatalf("GET = %+v, want %+v", got, r1)
	}
	c.problem(404, "not_found", http.MethodGet, "/api/v1/refunds/ref_00000000000000000000000000000000", "")
	for q, wantIDs := range map[string][]string{
		"":                                 {r1.ID, r2.ID, r3.ID},
		"?sort=-createdAt":                 {r3.ID, r2.ID, r1.ID},
		"?paymentId=" + card:               {r1.ID, r2.ID},
		"?invoiceId=" + inv + "&perPage=2": {r1.ID, r2.ID},
		"?invoiceId=" + inv + "&page=2&perPage=2":         {r3.ID},
		"?paymentId=" + cash + "&invoiceId=" + inv:        {r3.ID},
		"?paymentId=pay_00000000000000000000000000000000": {},
	} {
		if ids := c.listIDs("/api/v1/refunds" + q); !slices.Equal(ids, wantIDs) {
			t.Errorf("refunds%s = %v, want %v", q, ids, wantIDs)
		}
	}
	var actions []string
	for _, e := range c.env.Server.AuditEvents(acct) {
		if e.ResourceType == "refund" {
			actions = append(actions, e.Action+" "+e.ResourceID)
		}
	}
	if len(actions) < 5 || actions[0] != "create "+r1.ID || actions[3] != "read "+r1.ID || actions[4] != "list " {
		t.Fatalf("refund audit: %q", actions)
	}
}

// TestRefundIdempotency: a retried refund with the same key refunds once and answers the same.
func TestRefundIdempotency(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	pat := c.patient()
	inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":900}]}`)
	pay := c.id("/api/v1/payments", `{"invoiceId":"`+inv+`","amount":900,"method":"cash"}`)
	body := `{"paymentId":"` + pay + `","amount":300}`
	var first, again billing.Refund
	c.expect(http.StatusCreated, http.MethodPost, "/api/v1/refunds", body, &first, "Idempotency-Key: refund-1")
	h := c.expect(http.StatusCreated, http.MethodPost, "/api/v1/refunds", body, &again, "Idempotency-Key: refund-1")
	if first != again || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %+v / %+v (%q)", first, again, h.Get("Idempotent-Replayed"))
	}
	if p := c.payment(pay); p.AmountRefunded != 300 {
		t.Fatalf("refunded %d after a replay, want 300", p.AmountRefunded)
	}
	if n := c.env.Total(t, "/api/v1/refunds"); n != 1 {
		t.Fatalf("%d refunds, want 1", n)
	}
}

func TestPaymentList(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	acct := c.env.Key.Account
	t0 := time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC)
	pat := c.patient()
	at := func(d time.Duration) { c.env.Server.SetTime(acct, t0.Add(d)) }
	at(0)
	i1 := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":10000}]}`)
	i2 := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":10000}]}`)
	p1 := c.id("/api/v1/payments", `{"invoiceId":"`+i1+`","amount":1000,"method":"cash"}`)
	at(time.Hour)
	var declined struct{ PaymentID string }
	c.expect(402, http.MethodPost, "/api/v1/payments", `{"invoiceId":"`+i1+`","amount":1000,"method":"card","cardToken":"tok_insufficient_funds"}`, &declined)
	p2 := declined.PaymentID
	at(2 * time.Hour)
	p3 := c.id("/api/v1/payments", `{"invoiceId":"`+i2+`","amount":2000,"method":"card","cardToken":"tok_amex"}`)
	at(24 * time.Hour)
	p4 := c.id("/api/v1/payments", `{"invoiceId":"`+i2+`","amount":3000,"method":"check"}`)
	c.id("/api/v1/refunds", `{"paymentId":"`+p3+`","amount":500}`)

	type list struct {
		Data []billing.Payment
		Meta struct{ Total, Page, PerPage int }
	}
	for q, want := range map[string][]string{
		"":                                   {p1, p2, p3, p4},
		"?sort=-createdAt":                   {p4, p3, p2, p1},
		"?invoiceId=" + i1:                   {p1, p2},
		"?status=failed":                     {p2},
		"?status=succeeded,failed":           {p1, p2, p3, p4},
		"?method=card":                       {p2, p3},
		"?method=cash,check&sort=-createdAt": {p4, p1},
		"?createdFrom=2030-03-01T13:00:00Z&createdTo=2030-03-02T12:00:00Z": {p2, p3},
		"?createdFrom=2030-03-02T00:00:00Z":                                {p4},
		"?status=succeeded&method=card&invoiceId=" + i2:                    {p3},
		"?perPage=3&page=2": {p4},
	} {
		if ids := c.listIDs("/api/v1/payments" + q); !slices.Equal(ids, want) {
			t.Errorf("payments%s = %v, want %v", q, ids, want)
		}
	}
	var l list
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/payments?invoiceId="+i2, "", &l)
	if l.Meta.Total != 2 || l.Data[0].AmountRefunded != 500 || l.Data[1].AmountRefunded != 0 || l.Data[0].Card == nil ||
		l.Data[0].Card.Brand != "amex" {
		t.Fatalf("payments of %s: %+v", i2, l)
	}
	var raw struct{ Data []map[string]any }
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/payments?status=failed", "", &raw)
	if raw.Data[0]["amountRefunded"] != float64(0) || raw.Data[0]["declineCode"] != "insufficient_funds" {
		t.Fatalf("failed payment on the wire: %v", raw.Data[0])
	}
}

// TestBillingExtensionsStrict: a strict server (requests validated against the OpenAPI document)
// serves the extensions' valid requests, bare POSTs included, and refuses bad ones with the
// normal server's status, code and pointers.
func TestBillingExtensionsStrict(t *testing.T) {
	t.Parallel()
	normal, strict := newWireAPI(t), newWireAPI(t, mockserver.WithStrictValidation())
	for _, c := range []wireAPI{normal, strict} {
		pat := c.patient()
		inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":1000}]}`)
		pay := c.id("/api/v1/payments", `{"invoiceId":"`+inv+`","amount":1000,"method":"cash"}`)
		open := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":1000}]}`)
		c.expect(http.StatusOK, http.MethodPost, "/api/v1/invoices/"+open+"/void", "", nil)
		c.expect(http.StatusCreated, http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+pay+`","amount":10,"reason":"other"}`, nil)
		c.expect(http.StatusOK, http.MethodGet, "/api/v1/payments?status=succeeded&method=cash,card&sort=-createdAt", "", nil)
		c.expect(http.StatusOK, http.MethodGet, "/api/v1/refunds?invoiceId="+inv, "", nil)
		var e webhooks.Endpoint
		c.expect(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", `{"url":"http://127.0.0.1:9/h","events":["*"],"enabled":false}`, &e)
		c.expect(http.StatusOK, http.MethodPatch, "/api/v1/webhooks/"+e.ID, `{"description":null,"enabled":false}`, nil,
			"Content-Type: application/merge-patch+json")
		c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/rotate-secret", "", nil)
		for _, bad := range []struct{ method, path, body, want string }{
			{http.MethodPost, "/api/v1/refunds", `{"paymentId":"` + pay + `","amount":0}`, "/amount out_of_range"},
			{http.MethodPost, "/api/v1/invoices/" + inv + "/void", `{"reason":"` + strings.Repeat("r", 501) + `"}`, "/reason too_long"},
			{http.MethodPost, "/api/v1/webhooks/" + e.ID + "/rotate-secret", `{"expiresInSeconds":604801}`, "/expiresInSeconds out_of_range"},
			{http.MethodPatch, "/api/v1/webhooks/" + e.ID, `{"description":"` + strings.Repeat("d", 501) + `"}`, "/description too_long"},
			{http.MethodGet, "/api/v1/refunds?createdTo=2026-01-01T00:00:00Z", "", "createdTo unknown_parameter"},
		} {
			var p testenv.Problem
			c.invalid().expect(http.StatusUnprocessableEntity, bad.method, bad.path, bad.body, &p)
			if got := p.Fields(); p.Code != "validation_error" || !slices.Equal(got, []string{bad.want}) {
				t.Errorf("%s %s: %s %v, want %s", bad.method, bad.path, p.Code, got, bad.want)
			}
		}
	}
}
