package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

var ctx = context.Background()

// badCtx marks calls that break the OpenAPI document on purpose, so only responses are validated.
var badCtx = oapitest.WithoutRequestValidation(ctx)

func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	return testenv.New(t, nil)
}

func mustPatient(t *testing.T, c *medspa.Client) *patients.Patient {
	t.Helper()
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatalf("patient: %v", err)
	}
	return p
}

// mustProduct creates a product with price and receives onHand units at main.
func mustProduct(t *testing.T, c *medspa.Client, sku string, price, onHand int64) *inventory.Product {
	t.Helper()
	p, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: sku, Name: "Product " + sku, Category: inventory.CategorySkincare, Price: price})
	if err != nil {
		t.Fatalf("product: %v", err)
	}
	if onHand > 0 {
		if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: onHand, Reason: inventory.ReasonReceived}); err != nil {
			t.Fatalf("receive: %v", err)
		}
	}
	return p
}

func mustInvoice(t *testing.T, c *medspa.Client, p billing.InvoiceCreateParams) *billing.Invoice {
	t.Helper()
	inv, _, err := c.Invoices.Create(ctx, &p)
	if err != nil {
		t.Fatalf("invoice: %v", err)
	}
	return inv
}

func onHand(t *testing.T, c *medspa.Client, productID string) int64 {
	t.Helper()
	page, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: productID, Location: "main"})
	if err != nil || len(page.Data) != 1 {
		t.Fatalf("stock of %s: %v %+v", productID, err, page)
	}
	return page.Data[0].OnHand
}

func apiError(t *testing.T, err error, sentinel error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want %v", err, sentinel)
	}
	return e
}

func fields(e *client.Error) []string {
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Pointer+" "+f.Code)
	}
	slices.Sort(out)
	return out
}

// halfUp is round_half_up(base × bps / 10000), computed with big integers, independently of the
// server's 128-bit arithmetic.
func halfUp(base, bps int64) int64 {
	n := new(big.Int).Mul(big.NewInt(base), big.NewInt(bps))
	n.Add(n, big.NewInt(5000))
	return n.Div(n, big.NewInt(10000)).Int64()
}

func TestInvoiceLifecycle(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	pat := mustPatient(t, c)
	serum := mustProduct(t, c, "SER-1", 4999, 10)
	due := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	inv := mustInvoice(t, c, billing.InvoiceCreateParams{
		PatientID: pat.ID,
		LineItems: []billing.LineItemParams{
			{Description: "Serum", Quantity: 3, ProductID: serum.ID},
			{Description: "Consultation", Quantity: 1, UnitAmount: medspa.Ptr[int64](15000)},
		},
		TaxRateBps: 825, DiscountAmount: 1234, DueAt: due, Notes: "allergic to latex",
	})
	subtotal := int64(3*4999 + 15000)
	tax := halfUp(subtotal-1234, 825)
	total := subtotal - 1234 + tax
	if inv.Subtotal != subtotal || inv.Tax != tax || inv.Total != total || inv.AmountDue != total || inv.AmountPaid != 0 {
		t.Errorf("amounts %d/%d/%d due %d paid %d, want %d/%d/%d", inv.Subtotal, inv.Tax, inv.Total, inv.AmountDue, inv.AmountPaid, subtotal, tax, total)
	}
	if inv.LineItems[0].UnitAmount != 4999 || inv.LineItems[0].Amount != 3*4999 || inv.LineItems[1].Amount != 15000 {
		t.Errorf("line items %+v", inv.LineItems)
	}
	if inv.Status != billing.InvoiceOpen || !inv.PaidAt.IsZero() || inv.Currency != "usd" || !inv.DueAt.Equal(due) || inv.Notes != "allergic to latex" {
		t.Errorf("invoice %+v", inv)
	}
	if got := onHand(t, c, serum.ID); got != 7 {
		t.Errorf("serum on hand %d, want 7 after selling 3", got)
	}

	// A decline records a failed payment, readable through the error, and changes nothing.
	_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCard, CardToken: billing.TokenDecline})
	e := apiError(t, err, client.ErrCardDeclined)
	if e.Status != 402 || e.DeclineCode != billing.DeclineGeneric || !strings.HasPrefix(e.PaymentID, "pay_") {
		t.Errorf("decline %+v", e)
	}
	failed, _, err := c.Payments.Get(ctx, e.PaymentID)
	if err != nil || failed.Status != billing.PaymentFailed || failed.DeclineCode != billing.DeclineGeneric || failed.Amount != 100 || failed.InvoiceID != inv.ID {
		t.Errorf("failed payment %+v %v", failed, err)
	}

	// Partial cash, then too much, then the rest by card.
	cash, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 5000, Method: billing.MethodCash})
	if err != nil || cash.Status != billing.PaymentSucceeded || cash.Card != nil || cash.Currency != "usd" {
		t.Fatalf("cash %+v %v", cash, err)
	}
	got, _, _ := c.Invoices.Get(ctx, inv.ID)
	if got.Status != billing.InvoicePartiallyPaid || got.AmountPaid != 5000 || got.AmountDue != total-5000 || !got.PaidAt.IsZero() {
		t.Errorf("after cash %+v", got)
	}
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: total - 5000 + 1, Method: billing.MethodCash})
	apiError(t, err, client.ErrAmountExceedsBalance)
	card, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: total - 5000, Method: billing.MethodCard, CardToken: billing.TokenVisa})
	if err != nil || card.Card == nil || card.Card.Brand != "visa" || card.Card.Last4 != "4242" {
		t.Fatalf("card %+v %v", card, err)
	}
	got, _, _ = c.Invoices.Get(ctx, inv.ID)
	if got.Status != billing.InvoicePaid || got.AmountPaid != total || got.AmountDue != 0 || got.PaidAt.IsZero() {
		t.Errorf("after card %+v", got)
	}
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 1, Method: billing.MethodCash})
	apiError(t, err, client.ErrInvoiceNotPayable)
}

func TestZeroTotalIsPaidAtCreation(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	for _, tc := range []billing.InvoiceCreateParams{
		{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Free touch-up", Quantity: 2, UnitAmount: medspa.Ptr[int64](0)}}, TaxRateBps: 1000},
		{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Comped", Quantity: 1, UnitAmount: medspa.Ptr[int64](900)}}, DiscountAmount: 900, TaxRateBps: 10000},
	} {
		inv := mustInvoice(t, env.Client, tc)
		if inv.Total != 0 || inv.Status != billing.InvoicePaid || !inv.PaidAt.Equal(inv.CreatedAt) || inv.AmountDue != 0 {
			t.Errorf("zero total invoice %+v", inv)
		}
		_, _, err := env.Client.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 1, Method: billing.MethodCash})
		apiError(t, err, client.ErrInvoiceNotPayable)
	}
}

// TestMoney checks every computed amount over HTTP against an independent big-integer
// computation, including the half-up rounding edges.
func TestMoney(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	type line struct{ q, u int64 }
	cases := []struct {
		name     string
		lines    []line
		bps      int64
		discount int64
	}{
		{"no tax", []line{{2, 1999}}, 0, 0},
		{"x.5 cents rounds up", []line{{1, 1}}, 5000, 0},    // 0.5 → 1
		{"x.9995 rounds up", []line{{1, 9999}}, 5, 0},       // 4.9995 → 5
		{"x.4999 rounds down", []line{{1, 14999}}, 1, 0},    // 1.4999 → 1
		{"x.5001 rounds up", []line{{1, 15001}}, 1, 0},      // 1.5001 → 2
		{"just below half", []line{{1, 4999}}, 1, 0},        // 0.4999 → 0
		{"exactly half of a cent", []line{{1, 10}}, 500, 0}, // 0.5 → 1
		{"1.5 → 2", []line{{3, 1}}, 5000, 0},                // 1.5 → 2
		{"2.5 → 3 (half up, not even)", []line{{5, 1}}, 5000, 0},
		{"8.25% typical", []line{{3, 4999}, {1, 15000}}, 825, 1234},
		{"max tax rate", []line{{7, 333}}, 10000, 0},
		{"discount equals subtotal", []line{{2, 500}}, 825, 1000},
		{"discount one below subtotal", []line{{2, 500}}, 825, 999},
		{"large quantities", []line{{10000, 99_999_999}, {10000, 123_456_789}}, 9999, 7},
		{"near int64 with tax", []line{{10000, 400_000_000_000_000}}, 10000, 0},
		{"many lines", slices.Repeat([]line{{3, 333}}, 100), 725, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := billing.InvoiceCreateParams{PatientID: pat.ID, TaxRateBps: tc.bps, DiscountAmount: tc.discount}
			sub := new(big.Int)
			for _, l := range tc.lines {
				p.LineItems = append(p.LineItems, billing.LineItemParams{Description: "x", Quantity: l.q, UnitAmount: medspa.Ptr[int64](l.u)})
				sub.Add(sub, new(big.Int).Mul(big.NewInt(l.q), big.NewInt(l.u)))
			}
			inv := mustInvoice(t, env.Client, p)
			base := new(big.Int).Sub(sub, big.NewInt(tc.discount))
			tax := new(big.Int).Mul(base, big.NewInt(tc.bps))
			tax.Add(tax, big.NewInt(5000)).Div(tax, big.NewInt(10000))
			total := new(big.Int).Add(base, tax)
			if inv.Subtotal != sub.Int64() || inv.Tax != tax.Int64() || inv.Total != total.Int64() || inv.AmountDue != total.Int64() {
				t.Errorf("got subtotal %d tax %d total %d, want %s %s %s", inv.Subtotal, inv.Tax, inv.Total, sub, tax, total)
			}
			for i, li := range inv.LineItems {
				if li.Amount != li.Quantity*li.UnitAmount || li.UnitAmount != tc.lines[i].u {
					t.Errorf("line %d: %+v", i, li)
				}
			}
		})
	}
}

func TestMoneyOverflowIsRefused(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	const maxI = int64(^uint64(0) >> 1)
	cases := []struct {
		name  string
		lines []billing.LineItemParams
		bps   int64
		want  []string
	}{
		{"line overflows", []billing.LineItemParams{{Description: "x", Quantity: 2, UnitAmount: medspa.Ptr[int64](maxI/2 + 1)}}, 0, []string{"/lineItems/0/unitAmount out_of_range"}},
		{"subtotal overflows", []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](maxI)}, {Description: "y", Quantity: 1, UnitAmount: medspa.Ptr[int64](1)}}, 0, []string{"/lineItems out_of_range"}},
		{"total overflows with tax", []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](maxI/2 + 10)}}, 10000, []string{"/lineItems out_of_range"}},
	}
	for _, tc := range cases {
		_, _, err := env.Client.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: tc.lines, TaxRateBps: tc.bps})
		e := apiError(t, err, client.ErrValidation)
		if got := fields(e); !slices.Equal(got, tc.want) {
			t.Errorf("%s: fields %v, want %v", tc.name, got, tc.want)
		}
	}
	// The largest total that fits is accepted.
	inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](maxI)}}})
	if inv.Total != maxI {
		t.Errorf("total %d, want %d", inv.Total, maxI)
	}
	if page, _, _ := env.Client.Invoices.List(ctx, nil); page.Meta.Total != 1 {
		t.Errorf("%d invoices, want only the one that fits", page.Meta.Total)
	}
}

// problemBody is the part of a problem document the rule tests check.
type problemBody = testenv.Problem

func countOf(t *testing.T, env *testenv.Env, path string) int {
	return env.Total(t, path)
}

// TestInvoiceRules checks every field rule of an invoice create: each invalid body names
// exactly the invalid fields, all at once, and changes nothing (invoices, stock).
func TestInvoiceRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	prod := mustProduct(t, env.Client, "P-1", 1000, 5)
	eur, _, err := env.Client.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "EUR-1", Name: "Euro", Category: inventory.CategoryOther, Price: 10, Currency: "eur"})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := env.Client.Patients.Create(ctx, &patients.CreateParams{FirstName: "Bo", LastName: "B", Email: "bo@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Hour)
	visit, _, err := env.Client.Appointments.Create(ctx, &appointments.CreateParams{PatientID: pat.ID, ProviderID: "prv_1", Service: "Facial", StartAt: start, EndAt: start.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	othersVisit, _, err := env.Client.Appointments.Create(ctx, &appointments.CreateParams{PatientID: other.ID, ProviderID: "prv_2", Service: "Facial", StartAt: start, EndAt: start.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	unknownPat := "pat_0000000000000000000000000000000f"
	unknownPrd := "prd_0000000000000000000000000000000f"
	item := `{"description":"Facial","quantity":1,"unitAmount":100}`
	valid := `"patientId":"` + pat.ID + `","lineItems":[` + item + `]`
	long := func(n int) string { return strings.Repeat("x", n) }
	items := func(n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	cases := []struct {
		name string
		body string
		want []string
	}{
		{"minimal", `{` + valid + `}`, nil},
		{"all fields", `{` + valid + `,"appointmentId":"` + visit.ID + `","taxRateBps":10000,"discountAmount":100,"currency":"usd","dueAt":"2030-01-01T00:00:00Z","notes":"` + long(10000) + `"}`, nil},
		{"product line defaults its price", `{"patientId":"` + pat.ID + `","lineItems":[{"description":"P","quantity":1,"productId":"` + prod.ID + `"}]}`, nil},
		{"empty object", `{}`, []string{"/lineItems required", "/patientId required"}},
		{"no line items", `{"patientId":"` + pat.ID + `","lineItems":[]}`, []string{"/lineItems too_short"}},
		{"100 line items ok", `{"patientId":"` + pat.ID + `","lineItems":[` + items(100) + `]}`, nil},
		{"101 line items", `{"patientId":"` + pat.ID + `","lineItems":[` + items(101) + `]}`, []string{"/lineItems too_long"}},
		{"line item not an object", `{"patientId":"` + pat.ID + `","lineItems":[1,` + item + `]}`, []string{"/lineItems/0 invalid_value"}},
		{"line item fields", `{"patientId":"` + pat.ID + `","lineItems":[{"description":"","quantity":0,"unitAmount":-1},{"description":"` + long(201) + `","quantity":10001},{"quantity":1.5,"unitAmount":"1","sku":"x"}]}`,
			[]string{"/lineItems/0/description required", "/lineItems/0/quantity out_of_range", "/lineItems/0/unitAmount out_of_range", "/lineItems/1/description too_long", "/lineItems/1/quantity out_of_range", "/lineItems/1/unitAmount required", "/lineItems/2/description required", "/lineItems/2/quantity invalid_value", "/lineItems/2/sku unknown_field", "/lineItems/2/unitAmount invalid_value"}},
		{"quantity bounds ok", `{"patientId":"` + pat.ID + `","lineItems":[{"description":"a","quantity":10000,"unitAmount":0},{"description":"` + long(200) + `","quantity":1,"unitAmount":0}]}`, nil},
		{"bad ids", `{"patientId":"pat_1","appointmentId":"inv_0193a1b2c3d4e5f60718293a4b5c6d7e","lineItems":[{"description":"a","quantity":1,"productId":"PRD"}]}`, []string{"/appointmentId invalid_format", "/lineItems/0/productId invalid_format", "/patientId invalid_format"}},
		{"scalars", `{` + valid + `,"taxRateBps":10001,"discountAmount":-1,"currency":"USD","dueAt":"tomorrow","notes":"` + long(10001) + `"}`, []string{"/currency invalid_format", "/discountAmount out_of_range", "/dueAt invalid_format", "/notes too_long", "/taxRateBps out_of_range"}},
		{"negative tax", `{` + valid + `,"taxRateBps":-1}`, []string{"/taxRateBps out_of_range"}},
		{"server fields", `{` + valid + `,"status":"paid","total":1}`, []string{"/status unknown_field", "/total unknown_field"}},
		{"unknown references, all at once", `{"patientId":"` + unknownPat + `","lineItems":[{"description":"a","quantity":1,"productId":"` + unknownPrd + `"},{"description":"b","quantity":1,"productId":"` + eur.ID + `"}]}`, []string{"/lineItems/0/productId not_found", "/lineItems/1/productId invalid_value", "/patientId not_found"}},
		{"unknown appointment", `{` + valid + `,"appointmentId":"apt_0193a1b2c3d4e5f60718293a4b5c6d7e"}`, []string{"/appointmentId not_found"}},
		{"another patient's appointment", `{` + valid + `,"appointmentId":"` + othersVisit.ID + `"}`, []string{"/appointmentId invalid_value"}},
		{"discount above subtotal", `{` + valid + `,"discountAmount":101}`, []string{"/discountAmount out_of_range"}},
		{"product price defaults then discount checked", `{"patientId":"` + pat.ID + `","discountAmount":1001,"lineItems":[{"description":"P","quantity":1,"productId":"` + prod.ID + `"}]}`, []string{"/discountAmount out_of_range"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := countOf(t, env, "/api/v1/invoices")
			stock := onHand(t, env.Client, prod.ID)
			resp, body := env.DoInvalid(t, http.MethodPost, "/api/v1/invoices", tc.body)
			if tc.want == nil {
				if resp.StatusCode != http.StatusCreated {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				return
			}
			testenv.ExpectFields(t, resp, body, tc.want)
			if after := countOf(t, env, "/api/v1/invoices"); after != before {
				t.Errorf("a rejected create changed the count: %d → %d", before, after)
			}
			if after := onHand(t, env.Client, prod.ID); after != stock {
				t.Errorf("a rejected create moved stock: %d → %d", stock, after)
			}
		})
	}
}

func TestPaymentRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](1000)}}})
	eurInv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, Currency: "eur", LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](1000)}}})
	if eurInv.Currency != "eur" {
		t.Fatalf("currency %q", eurInv.Currency)
	}
	cases := []struct {
		name   string
		body   string
		status int
		code   string
		want   []string
	}{
		{"empty", `{}`, 422, "validation_error", []string{"/amount required", "/invoiceId required", "/method required"}},
		{"card needs a token", `{"invoiceId":"` + inv.ID + `","amount":1,"method":"card"}`, 422, "validation_error", []string{"/cardToken required"}},
		{"unknown token", `{"invoiceId":"` + inv.ID + `","amount":1,"method":"card","cardToken":"tok_chargeDeclined"}`, 422, "validation_error", []string{"/cardToken invalid_value"}},
		{"token only for cards", `{"invoiceId":"` + inv.ID + `","amount":1,"method":"cash","cardToken":"tok_visa"}`, 422, "validation_error", []string{"/cardToken invalid_value"}},
		{"scalars", `{"invoiceId":"inv_x","amount":0,"method":"bitcoin","currency":"US","extra":1}`, 422, "validation_error", []string{"/amount out_of_range", "/currency invalid_format", "/extra unknown_field", "/invoiceId invalid_format", "/method invalid_value"}},
		{"bad method with a token: only the method is wrong", `{"invoiceId":"` + inv.ID + `","amount":1,"method":"crypto","cardToken":"tok_visa"}`, 422, "validation_error", []string{"/method invalid_value"}},
		{"negative amount", `{"invoiceId":"` + inv.ID + `","amount":-5,"method":"cash"}`, 422, "validation_error", []string{"/amount out_of_range"}},
		{"unknown invoice", `{"invoiceId":"inv_0000000000000000000000000000000f","amount":1,"method":"cash"}`, 422, "validation_error", []string{"/invoiceId not_found"}},
		{"currency mismatch", `{"invoiceId":"` + eurInv.ID + `","amount":1,"method":"cash","currency":"usd"}`, 422, "validation_error", []string{"/currency invalid_value"}},
		{"exceeds balance", `{"invoiceId":"` + inv.ID + `","amount":1001,"method":"cash"}`, 422, "amount_exceeds_balance", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := env.DoInvalid(t, http.MethodPost, "/api/v1/payments", tc.body)
			var p problemBody
			_ = json.Unmarshal(body, &p)
			if resp.StatusCode != tc.status || p.Code != tc.code || !slices.Equal(p.Fields(), tc.want) {
				t.Errorf("got %d %s %v, want %d %s %v", resp.StatusCode, p.Code, p.Fields(), tc.status, tc.code, tc.want)
			}
		})
	}
	got, _, _ := env.Client.Invoices.Get(ctx, inv.ID)
	if got.AmountPaid != 0 || got.Status != billing.InvoiceOpen {
		t.Errorf("rejected payments changed the invoice: %+v", got)
	}
	// The invoice's currency is the default, and an equal one is accepted.
	for _, cur := range []string{"", "eur"} {
		p, _, err := env.Client.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: eurInv.ID, Amount: 1, Method: billing.MethodCheck, Currency: cur})
		if err != nil || p.Currency != "eur" {
			t.Errorf("currency %q: %+v %v", cur, p, err)
		}
	}
}

func TestCardTokens(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	cases := []struct {
		token, brand, last4, decline string
	}{
		{billing.TokenVisa, "visa", "4242", ""},
		{billing.TokenMastercard, "mastercard", "4444", ""},
		{billing.TokenAmex, "amex", "0005", ""},
		{billing.TokenDecline, "", "", billing.DeclineGeneric},
		{billing.TokenInsufficientFunds, "", "", billing.DeclineInsufficientFunds},
	}
	for _, tc := range cases {
		t.Run(tc.token, func(t *testing.T) {
			inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](500)}}})
			var meta *client.Response
			p, meta, err := env.Client.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 500, Method: billing.MethodCard, CardToken: tc.token})
			after, _, _ := env.Client.Invoices.Get(ctx, inv.ID)
			if tc.decline == "" {
				if err != nil || p.Status != billing.PaymentSucceeded || p.Card == nil || p.Card.Brand != tc.brand || p.Card.Last4 != tc.last4 || p.DeclineCode != "" || meta.StatusCode != 201 {
					t.Fatalf("payment %+v %v", p, err)
				}
				if after.Status != billing.InvoicePaid {
					t.Errorf("invoice %s after a success", after.Status)
				}
				return
			}
			e := apiError(t, err, client.ErrCardDeclined)
			if e.Status != 402 || e.DeclineCode != tc.decline || e.PaymentID == "" {
				t.Fatalf("decline %+v", e)
			}
			got, _, err := env.Client.Payments.Get(ctx, e.PaymentID)
			if err != nil || got.Status != billing.PaymentFailed || got.DeclineCode != tc.decline || got.Method != billing.MethodCard || got.Card == nil {
				t.Errorf("recorded payment %+v %v", got, err)
			}
			if after.Status != billing.InvoiceOpen || after.AmountPaid != 0 {
				t.Errorf("a decline changed the invoice: %+v", after)
			}
		})
	}
}

func TestGetUnknownAndMalformedIDs(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, id := range []string{"inv_0000000000000000000000000000000f", "inv_bad", "pay_0000000000000000000000000000000f"} {
		_, _, err := env.Client.Invoices.Get(badCtx, id)
		apiError(t, err, client.ErrNotFound)
	}
	for _, id := range []string{"pay_0000000000000000000000000000000f", "pay_X"} {
		_, _, err := env.Client.Payments.Get(badCtx, id)
		apiError(t, err, client.ErrNotFound)
	}
}

// TestSaleIsAllOrNothing: an invoice whose product lines can't all be filled sells nothing.
func TestSaleIsAllOrNothing(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	pat := mustPatient(t, c)
	a := mustProduct(t, c, "A", 100, 5)
	b := mustProduct(t, c, "B", 200, 2)
	_, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{
		{Description: "a", Quantity: 5, ProductID: a.ID},
		{Description: "b", Quantity: 2, ProductID: b.ID},
		{Description: "b again", Quantity: 1, ProductID: b.ID}, // 3 of b in all, 2 on hand
	}})
	e := apiError(t, err, client.ErrInsufficientStock)
	if e.Status != 409 || e.Available == nil || *e.Available != 2 {
		t.Errorf("insufficient %+v", e)
	}
	if onHand(t, c, a.ID) != 5 || onHand(t, c, b.ID) != 2 {
		t.Errorf("a refused invoice moved stock")
	}
	if page, _, _ := c.Invoices.List(ctx, nil); page.Meta.Total != 0 {
		t.Errorf("a refused invoice was stored")
	}
	inv := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{
		{Description: "a", Quantity: 5, ProductID: a.ID},
		{Description: "b", Quantity: 1, ProductID: b.ID},
		{Description: "b again", Quantity: 1, ProductID: b.ID, UnitAmount: medspa.Ptr[int64](150)},
	}})
	if onHand(t, c, a.ID) != 0 || onHand(t, c, b.ID) != 0 {
		t.Errorf("stock after the sale: a %d b %d, want 0 0", onHand(t, c, a.ID), onHand(t, c, b.ID))
	}
	if inv.Subtotal != 5*100+200+150 {
		t.Errorf("subtotal %d", inv.Subtotal)
	}
	low, _, _ := c.Inventory.List(ctx, &inventory.StockListParams{LowStock: ptr(true)})
	if low.Meta.Total != 2 {
		t.Errorf("%d low-stock records, want 2", low.Meta.Total)
	}
}

func TestInvoiceListFilters(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	acct := env.Key.Account
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	env.Server.SetTime(acct, start)
	ada := mustPatient(t, c)
	bob, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Bob", LastName: "B", Email: "b@example.com"})
	line := func(amount int64) []billing.LineItemParams {
		return []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](amount)}}
	}
	var ids []string
	for i, pid := range []string{ada.ID, bob.ID, ada.ID, bob.ID, ada.ID} {
		env.Server.SetTime(acct, start.Add(time.Duration(i)*24*time.Hour))
		inv := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pid, LineItems: line(int64(1000 * (i + 1)))})
		ids = append(ids, inv.ID)
	}
	// invoice 0 paid, invoice 1 partially paid; the rest open.
	if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: ids[0], Amount: 1000, Method: billing.MethodCash}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: ids[1], Amount: 1, Method: billing.MethodCash}); err != nil {
		t.Fatal(err)
	}
	listIDs := func(p *billing.InvoiceListParams) []string {
		t.Helper()
		return testenv.Collect(t, c.Invoices.All(ctx, p), func(inv billing.Invoice) string { return inv.ID })
	}
	pick := func(is ...int) []string { return pickIDs(ids, is...) }
	cases := []struct {
		name string
		p    *billing.InvoiceListParams
		want []string
	}{
		{"all", nil, pick(0, 1, 2, 3, 4)},
		{"paged", &billing.InvoiceListParams{ListOptions: client.ListOptions{PerPage: 2}}, pick(0, 1, 2, 3, 4)},
		{"desc", &billing.InvoiceListParams{Sort: medspa.SortCreatedDesc}, pick(4, 3, 2, 1, 0)},
		{"patient", &billing.InvoiceListParams{PatientID: ada.ID}, pick(0, 2, 4)},
		{"status open", &billing.InvoiceListParams{Status: []billing.InvoiceStatus{billing.InvoiceOpen}}, pick(2, 3, 4)},
		{"status list", &billing.InvoiceListParams{Status: []billing.InvoiceStatus{billing.InvoicePaid, billing.InvoicePartiallyPaid}}, pick(0, 1)},
		{"created window", &billing.InvoiceListParams{CreatedFrom: start.Add(24 * time.Hour), CreatedTo: start.Add(3 * 24 * time.Hour)}, pick(1, 2)},
		{"combined", &billing.InvoiceListParams{PatientID: bob.ID, Status: []billing.InvoiceStatus{billing.InvoiceOpen}, CreatedFrom: start}, pick(3)},
	}
	for _, tc := range cases {
		if got := listIDs(tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	page, _, err := c.Invoices.List(ctx, &billing.InvoiceListParams{ListOptions: client.ListOptions{Page: 3, PerPage: 2}})
	if err != nil || len(page.Data) != 1 || page.Meta.Total != 5 || page.Data[0].ID != ids[4] {
		t.Errorf("page 3: %+v %v", page, err)
	}
	for _, q := range []string{"status=voided", "sort=total", "createdFrom=yesterday", "perPage=101", "customer=1"} {
		resp, body := env.DoInvalid(t, http.MethodGet, "/api/v1/invoices?"+q, "")
		if resp.StatusCode != 422 {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
}

// TestConcurrentPaymentsNeverOverpay: 50 payments race for one invoice; amountPaid never exceeds
// the total and equals the sum of the payments that succeeded.
func TestConcurrentPaymentsNeverOverpay(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](10_000)}}})
	succeeded, refused, sum := raceCalls(t, 50, func(i int) (int64, error) {
		p := &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: int64(300 + 10*(i%7)), Method: billing.MethodCash}
		if i%5 == 0 {
			p.Method, p.CardToken = billing.MethodCard, billing.TokenMastercard
		}
		pay, _, err := env.Client.Payments.Create(ctx, p)
		if err != nil {
			return 0, err
		}
		return pay.Amount, nil
	}, client.ErrAmountExceedsBalance, client.ErrInvoiceNotPayable)
	got, _, _ := env.Client.Invoices.Get(ctx, inv.ID)
	if got.AmountPaid > got.Total || got.AmountPaid != sum || got.AmountDue != got.Total-got.AmountPaid {
		t.Errorf("amountPaid %d amountDue %d total %d; succeeded sum %d", got.AmountPaid, got.AmountDue, got.Total, sum)
	}
	if succeeded+refused != 50 || refused == 0 {
		t.Errorf("succeeded %d refused %d", succeeded, refused)
	}
}

// raceCalls runs n calls at once; each returns the amount it moved, or an error. It counts the
// calls that succeeded (and sums their amounts) and those refused with one of refusals; any
// other error fails t.
func raceCalls(t *testing.T, n int, call func(i int) (int64, error), refusals ...error) (succeeded, refused, sum int64) {
	t.Helper()
	var wg sync.WaitGroup
	var ok, no, total atomic.Int64
	for i := range n {
		wg.Go(func() {
			amount, err := call(i)
			switch {
			case err == nil:
				ok.Add(1)
				total.Add(amount)
			case slices.ContainsFunc(refusals, func(r error) bool { return errors.Is(err, r) }):
				no.Add(1)
			default:
				t.Errorf("call %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	return ok.Load(), no.Load(), total.Load()
}

// lossyTransport commits the first request on the server, then loses its response: the
// client sees a broken connection and must retry with the same Idempotency-Key.
type lossyTransport struct {
	base http.RoundTripper
	lost atomic.Bool
	keys []string
	mu   sync.Mutex
}

func (l *lossyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.keys = append(l.keys, req.Header.Get("Idempotency-Key"))
	l.mu.Unlock()
	resp, err := l.base.RoundTrip(req)
	if err == nil && !l.lost.Swap(true) {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, io.ErrUnexpectedEOF
	}
	return resp, err
}

// lossyClient returns a client of env whose first answer is lost (see lossyTransport), and
// its transport.
func lossyClient(t *testing.T, env *testenv.Env) (*medspa.Client, *lossyTransport) {
	lt := &lossyTransport{base: env.HTTP.Transport}
	return env.ClientFor(t, env.Key.Key, medspa.WithHTTPClient(&http.Client{Transport: lt}), medspa.WithMaxRetries(2)), lt
}

// checkReplayed checks that a call through lt was sent twice with the same Idempotency-Key and
// that its answer is the replay of status on the second attempt.
func checkReplayed(t *testing.T, what string, lt *lossyTransport, resp *client.Response, status int) {
	t.Helper()
	if len(lt.keys) != 2 || lt.keys[0] == "" || lt.keys[0] != lt.keys[1] {
		t.Errorf("%s: idempotency keys %q, want the same key twice", what, lt.keys)
	}
	if resp == nil || !resp.Replayed || resp.Attempts != 2 || resp.StatusCode != status {
		t.Errorf("%s: response %+v, want a replayed %d on attempt 2", what, resp, status)
	}
}

func TestRetryAfterLostResponseCreatesOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	prod := mustProduct(t, env.Client, "R-1", 250, 10)
	check := func(what string, lt *lossyTransport, meta *client.Response) {
		t.Helper()
		checkReplayed(t, what, lt, meta, http.StatusCreated)
	}

	c, lt := lossyClient(t, env)
	var meta *client.Response
	inv, meta, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "p", Quantity: 2, ProductID: prod.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	check("invoice", lt, meta)
	if page, _, _ := env.Client.Invoices.List(ctx, nil); page.Meta.Total != 1 || page.Data[0].ID != inv.ID {
		t.Errorf("invoices %+v, want exactly one", page)
	}
	if got := onHand(t, env.Client, prod.ID); got != 8 {
		t.Errorf("on hand %d, want 8: the sale ran once", got)
	}

	c, lt = lossyClient(t, env)
	meta = nil
	pay, meta, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCash})
	if err != nil {
		t.Fatal(err)
	}
	check("payment", lt, meta)
	got, _, _ := env.Client.Invoices.Get(ctx, inv.ID)
	if got.AmountPaid != 100 || pay.Amount != 100 {
		t.Errorf("amountPaid %d, want 100: the payment ran once", got.AmountPaid)
	}

	c, lt = lossyClient(t, env)
	meta = nil
	adj, meta, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prod.ID, Delta: 5, Reason: inventory.ReasonReceived})
	if err != nil {
		t.Fatal(err)
	}
	check("adjustment", lt, meta)
	if got := onHand(t, env.Client, prod.ID); got != 13 || adj.OnHandAfter != 13 {
		t.Errorf("on hand %d (after %d), want 13: the adjustment ran once", got, adj.OnHandAfter)
	}
}

// A declined card through a retried call is recorded once too: the 402 is replayed.
func TestRetryAfterLostDeclineRecordsOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](100)}}})
	lt := &lossyTransport{base: env.HTTP.Transport}
	c := env.ClientFor(t, env.Key.Key, medspa.WithHTTPClient(&http.Client{Transport: lt}))
	_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCard, CardToken: billing.TokenInsufficientFunds})
	e := apiError(t, err, client.ErrCardDeclined)
	if e.Header.Get("Idempotent-Replayed") != "true" || e.DeclineCode != billing.DeclineInsufficientFunds {
		t.Errorf("decline %+v, want a replay", e)
	}
	if _, _, err := env.Client.Payments.Get(ctx, e.PaymentID); err != nil {
		t.Errorf("the replayed paymentId: %v", err)
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	read := env.NewKey(t, medspaKey(env.Key.Account, "billing:read"))
	rc := env.ClientFor(t, read.Key)
	if _, _, err := rc.Invoices.List(ctx, nil); err != nil {
		t.Errorf("billing:read list: %v", err)
	}
	_, _, err := rc.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](1)}}})
	apiError(t, err, client.ErrInsufficientScope)
	_, _, err = rc.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: "inv_0000000000000000000000000000000f", Amount: 1, Method: billing.MethodCash})
	apiError(t, err, client.ErrInsufficientScope)
	other := env.ClientFor(t, env.NewKey(t, medspaKey(env.Key.Account, "patients:read")).Key)
	_, _, err = other.Invoices.List(ctx, nil)
	apiError(t, err, client.ErrInsufficientScope)
}

// TestLotTrackedSaleIsFEFO: an invoice selling a lot-tracked product takes from the
// first-expiring lots at main.
func TestLotTrackedSaleIsFEFO(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	pat := mustPatient(t, c)
	p, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "FILL", Name: "Filler", Category: inventory.CategoryFiller, Price: 60000, TrackLots: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		n, exp string
		q      int64
	}{{"LATE", "2031-01-01", 3}, {"SOON", "2030-01-01", 2}} {
		d, _ := client.ParseDate(l.exp)
		if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: l.q, Reason: inventory.ReasonReceived, LotNumber: l.n, ExpiresOn: d}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Filler", Quantity: 6, ProductID: p.ID}}})
	if e := apiError(t, err, client.ErrInsufficientStock); *e.Available != 5 {
		t.Errorf("available %d, want 5", *e.Available)
	}
	mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Filler", Quantity: 3, ProductID: p.ID}}})
	page, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	s := page.Data[0]
	if s.OnHand != 2 || len(s.Lots) != 1 || s.Lots[0].LotNumber != "LATE" || s.Lots[0].Quantity != 2 {
		t.Errorf("after the sale %+v", s)
	}
}

func ptr[T any](v T) *T { return &v }

// pickIDs returns ids[i] for each i, in that order.
func pickIDs(ids []string, is ...int) []string {
	var out []string
	for _, i := range is {
		out = append(out, ids[i])
	}
	return out
}

func medspaKey(account string, scopes ...string) mockserver.APIKeyParams {
	return mockserver.APIKeyParams{Plan: "enterprise", Scopes: scopes, Account: account}
}

// exampleClient is an SDK client of a fresh in-process mock server, for the runnable examples.
func exampleClient() *medspa.Client {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		panic(err)
	}
	c, err := medspa.New(medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()), medspa.WithAPIKey(key.Key))
	if err != nil {
		panic(err)
	}
	return c
}

func TestInvoiceForAnAppointment(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	start := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Hour)
	visit, _, err := env.Client.Appointments.Create(ctx, &appointments.CreateParams{PatientID: pat.ID, ProviderID: "prv_9", Service: "Botox", StartAt: start, EndAt: start.Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, AppointmentID: visit.ID, LineItems: []billing.LineItemParams{{Description: "Botox", Quantity: 20, UnitAmount: medspa.Ptr[int64](1200)}}})
	got, _, err := env.Client.Invoices.Get(ctx, inv.ID)
	if err != nil || got.AppointmentID != visit.ID || inv.AppointmentID != visit.ID || got.Total != 24000 {
		t.Errorf("invoice %+v %v", got, err)
	}
}
