package billing_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
)

// End-to-end tests of voids, payment lists and refunds (docs/protocol.md §9) through the SDK
// against the mock server, every request and answer validated against api/openapi.yaml.

// cashInvoice returns a new invoice of amount and its payment in full (cash, or the card of
// token).
func cashInvoice(t *testing.T, c *medspa.Client, patientID string, amount int64) (*billing.Invoice, *billing.Payment) {
	t.Helper()
	inv := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: patientID,
		LineItems: []billing.LineItemParams{{Description: "Treatment", Quantity: 1, UnitAmount: medspa.Ptr(amount)}}})
	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: billing.MethodCash})
	if err != nil {
		t.Fatalf("payment: %v", err)
	}
	return inv, pay
}

// TestVoid: voiding an open invoice sets its status, time and reason, returns the stock its
// product lines sold (lots included) in the same step; a void invoice takes no payments, and
// only an open invoice with nothing paid can be voided. Refused voids change nothing.
func TestVoid(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c, acct := env.Client, env.Key.Account
	at := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	env.Server.SetTime(acct, at)
	pat := mustPatient(t, c)
	serum := mustProduct(t, c, "SER-V", 4900, 10)
	filler, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "FIL-V", Name: "Filler", Category: inventory.CategoryFiller, Price: 60000, TrackLots: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, lot := range []struct {
		n   string
		exp client.Date
		q   int64
	}{{"SOON", client.NewDate(2031, 1, 1), 2}, {"LATE", client.NewDate(2032, 1, 1), 3}} {
		if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: filler.ID, Delta: lot.q, Reason: inventory.ReasonReceived, LotNumber: lot.n, ExpiresOn: lot.exp}); err != nil {
			t.Fatal(err)
		}
	}
	inv := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{
		{Description: "Serum", Quantity: 4, ProductID: serum.ID}, {Description: "Filler", Quantity: 3, ProductID: filler.ID},
	}})
	if onHand(t, c, serum.ID) != 6 || onHand(t, c, filler.ID) != 2 {
		t.Fatalf("stock after the sale: serum %d, filler %d", onHand(t, c, serum.ID), onHand(t, c, filler.ID))
	}

	env.Server.AdvanceTime(acct, time.Hour)
	voided, resp, err := c.Invoices.Void(ctx, inv.ID, &billing.InvoiceVoidParams{Reason: "raised in error"}, medspa.WithIdempotencyKey("void-1"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || voided.Status != billing.InvoiceVoid || voided.VoidReason != "raised in error" ||
		!voided.VoidedAt.Equal(at.Add(time.Hour)) || !voided.UpdatedAt.Equal(at.Add(time.Hour)) || voided.Total != inv.Total ||
		voided.AmountDue != inv.AmountDue || voided.AmountPaid != 0 {
		t.Errorf("voided %d %+v", resp.StatusCode, voided)
	}
	if got, _, err := c.Invoices.Get(ctx, inv.ID); err != nil || !cmp.Equal(got, voided) {
		t.Errorf("Get after the void (-got +voided): %s %v", cmp.Diff(got, voided), err)
	}
	stock, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: filler.ID})
	if err != nil {
		t.Fatal(err)
	}
	lots := stock.Data[0].Lots
	if onHand(t, c, serum.ID) != 10 || stock.Data[0].OnHand != 5 || len(lots) != 2 || lots[0].LotNumber != "SOON" || lots[0].Quantity != 2 ||
		lots[1].LotNumber != "LATE" || lots[1].Quantity != 3 {
		t.Errorf("stock after the void: serum %d, filler %+v", onHand(t, c, serum.ID), stock.Data[0])
	}

	// A retry with the same key replays the answer and returns the stock no second time.
	again, resp, err := c.Invoices.Void(ctx, inv.ID, &billing.InvoiceVoidParams{Reason: "raised in error"}, medspa.WithIdempotencyKey("void-1"))
	if err != nil || !resp.Replayed || !cmp.Equal(again, voided) || onHand(t, c, serum.ID) != 10 {
		t.Errorf("replayed void: %+v %+v %v, serum %d", again, resp, err, onHand(t, c, serum.ID))
	}

	// What a void invoice refuses, and what cannot be voided; nothing changes.
	_, _, err = c.Invoices.Void(ctx, inv.ID, nil)
	apiError(t, err, client.ErrInvoiceNotVoidable)
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 1, Method: billing.MethodCash})
	apiError(t, err, client.ErrInvoiceNotPayable)
	paid, _ := cashInvoice(t, c, pat.ID, 500)
	partly := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](500)}}})
	if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: partly.ID, Amount: 1, Method: billing.MethodCash}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{paid.ID, partly.ID} {
		before, _, _ := c.Invoices.Get(ctx, id)
		_, _, err = c.Invoices.Void(ctx, id, &billing.InvoiceVoidParams{Reason: "too late"})
		apiError(t, err, client.ErrInvoiceNotVoidable)
		if after, _, _ := c.Invoices.Get(ctx, id); !cmp.Equal(before, after) {
			t.Errorf("a refused void changed the invoice: %s", cmp.Diff(before, after))
		}
	}
	_, _, err = c.Invoices.Void(ctx, "inv_0000000000000000000000000000000f", nil)
	apiError(t, err, client.ErrNotFound)

	// The reason's rule; a bare void has no reason.
	open := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](700)}}})
	_, _, err = c.Invoices.Void(badCtx, open.ID, &billing.InvoiceVoidParams{Reason: strings.Repeat("r", 501)})
	if e := apiError(t, err, client.ErrValidation); !slices.Equal(fields(e), []string{"/reason too_long"}) {
		t.Errorf("fields %v", fields(e))
	}
	bare, _, err := c.Invoices.Void(ctx, open.ID, nil)
	if err != nil || bare.Status != billing.InvoiceVoid || bare.VoidReason != "" {
		t.Errorf("bare void: %+v %v", bare, err)
	}

	// status=void finds the void invoices.
	ids := testenv.Collect(t, c.Invoices.All(ctx, &billing.InvoiceListParams{Status: []billing.InvoiceStatus{billing.InvoiceVoid}}),
		func(inv billing.Invoice) string { return inv.ID })
	if !slices.Equal(ids, []string{inv.ID, open.ID}) {
		t.Errorf("void invoices %v, want %v", ids, []string{inv.ID, open.ID})
	}
}

// TestPaymentList: every filter of GET /payments (docs/protocol.md §3, §9), alone and combined,
// in both orders, over pages; failed payments are listed, and amountRefunded follows refunds.
func TestPaymentList(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c, acct := env.Client, env.Key.Account
	start := time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC)
	pat := mustPatient(t, c)
	env.Server.SetTime(acct, start)
	a := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "a", Quantity: 1, UnitAmount: medspa.Ptr[int64](10000)}}})
	b := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "b", Quantity: 1, UnitAmount: medspa.Ptr[int64](10000)}}})
	type pay struct {
		inv    string
		method billing.PaymentMethod
		token  string
	}
	var ids []string
	for i, p := range []pay{
		{a.ID, billing.MethodCash, ""}, {a.ID, billing.MethodCard, billing.TokenDecline}, {b.ID, billing.MethodCard, billing.TokenVisa},
		{b.ID, billing.MethodGiftCard, ""}, {a.ID, billing.MethodCard, billing.TokenAmex},
	} {
		env.Server.SetTime(acct, start.Add(time.Duration(i)*time.Hour))
		got, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: p.inv, Amount: 1000, Method: p.method, CardToken: p.token})
		var e *client.Error
		switch {
		case err == nil:
			ids = append(ids, got.ID)
		case errors.As(err, &e) && errors.Is(err, client.ErrCardDeclined):
			ids = append(ids, e.PaymentID)
		default:
			t.Fatal(err)
		}
	}
	if _, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: ids[2], Amount: medspa.Ptr[int64](300)}); err != nil {
		t.Fatal(err)
	}
	pick := func(is ...int) []string { return pickIDs(ids, is...) }
	for _, tc := range []struct {
		name string
		p    *billing.PaymentListParams
		want []string
	}{
		{"all", nil, pick(0, 1, 2, 3, 4)},
		{"paged", &billing.PaymentListParams{ListOptions: client.ListOptions{PerPage: 2}}, pick(0, 1, 2, 3, 4)},
		{"desc", &billing.PaymentListParams{Sort: medspa.SortCreatedDesc}, pick(4, 3, 2, 1, 0)},
		{"asc", &billing.PaymentListParams{Sort: medspa.SortCreatedAsc}, pick(0, 1, 2, 3, 4)},
		{"invoice", &billing.PaymentListParams{InvoiceID: a.ID}, pick(0, 1, 4)},
		{"failed", &billing.PaymentListParams{Status: []billing.PaymentStatus{billing.PaymentFailed}}, pick(1)},
		{"either status", &billing.PaymentListParams{Status: []billing.PaymentStatus{billing.PaymentFailed, billing.PaymentSucceeded}}, pick(0, 1, 2, 3, 4)},
		{"methods", &billing.PaymentListParams{Method: []billing.PaymentMethod{billing.MethodCash, billing.MethodGiftCard}}, pick(0, 3)},
		{"window", &billing.PaymentListParams{CreatedFrom: start.Add(time.Hour), CreatedTo: start.Add(3 * time.Hour)}, pick(1, 2)},
		{"combined", &billing.PaymentListParams{InvoiceID: a.ID, Method: []billing.PaymentMethod{billing.MethodCard},
			Status: []billing.PaymentStatus{billing.PaymentSucceeded}, Sort: medspa.SortCreatedDesc}, pick(4)},
		{"none", &billing.PaymentListParams{Method: []billing.PaymentMethod{billing.MethodFinancing}}, nil},
	} {
		got := testenv.Collect(t, c.Payments.All(ctx, tc.p), func(p billing.Payment) string { return p.ID })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	page, _, err := c.Payments.List(ctx, &billing.PaymentListParams{ListOptions: client.ListOptions{Page: 2, PerPage: 2}, InvoiceID: b.ID})
	if err != nil || page.Meta.Total != 2 || len(page.Data) != 0 || page.HasMore() {
		t.Errorf("page past the end: %+v %v", page, err)
	}
	page, _, err = c.Payments.List(ctx, &billing.PaymentListParams{InvoiceID: b.ID})
	if err != nil || len(page.Data) != 2 || page.Data[0].AmountRefunded != 300 || page.Data[1].AmountRefunded != 0 ||
		page.Data[0].Card == nil || page.Data[0].Card.Last4 != "4242" {
		t.Errorf("payments of b: %+v %v", page, err)
	}
}

// TestRefunds: amounts (part, then the rest by default), what a refund changes on the payment
// and the invoice (amountRefunded; amountPaid and status stay), get and list with their
// filters, and every refusal, each changing nothing.
func TestRefunds(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	pat := mustPatient(t, c)
	inv, pay := cashInvoice(t, c, pat.ID, 60000)
	other, otherPay := cashInvoice(t, c, pat.ID, 5000)

	part, resp, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](15000), Reason: billing.RefundDuplicate, Notes: "double charge"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(part.ID, "ref_") || part.PaymentID != pay.ID || part.InvoiceID != inv.ID ||
		part.Amount != 15000 || part.Currency != "usd" || part.Reason != billing.RefundDuplicate || part.Notes != "double charge" ||
		part.Status != billing.RefundSucceeded || part.CreatedAt.IsZero() {
		t.Errorf("refund %d %+v", resp.StatusCode, part)
	}
	rest, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID})
	if err != nil || rest.Amount != 45000 || rest.Reason != billing.RefundRequestedByCustomer || rest.Notes != "" {
		t.Errorf("refund of the rest: %+v %v", rest, err)
	}
	gotPay, _, _ := c.Payments.Get(ctx, pay.ID)
	gotInv, _, _ := c.Invoices.Get(ctx, inv.ID)
	if gotPay.AmountRefunded != 60000 || gotPay.Amount != 60000 || gotInv.AmountRefunded != 60000 || gotInv.AmountPaid != 60000 ||
		gotInv.Status != billing.InvoicePaid || gotInv.AmountDue != 0 {
		t.Errorf("after the refunds: payment %+v, invoice %+v", gotPay, gotInv)
	}
	small, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: otherPay.ID, Amount: medspa.Ptr[int64](1), Reason: billing.RefundOther})
	if err != nil {
		t.Fatal(err)
	}

	// Get and list.
	if got, _, err := c.Refunds.Get(ctx, part.ID); err != nil || !cmp.Equal(got, part) {
		t.Errorf("Get (-got +created): %s %v", cmp.Diff(got, part), err)
	}
	_, _, err = c.Refunds.Get(ctx, "ref_0000000000000000000000000000000f")
	apiError(t, err, client.ErrNotFound)
	for _, tc := range []struct {
		name string
		p    *billing.RefundListParams
		want []string
	}{
		{"all", nil, []string{part.ID, rest.ID, small.ID}},
		{"desc", &billing.RefundListParams{Sort: medspa.SortCreatedDesc}, []string{small.ID, rest.ID, part.ID}},
		{"paged", &billing.RefundListParams{ListOptions: client.ListOptions{PerPage: 1}}, []string{part.ID, rest.ID, small.ID}},
		{"payment", &billing.RefundListParams{PaymentID: pay.ID}, []string{part.ID, rest.ID}},
		{"invoice", &billing.RefundListParams{InvoiceID: other.ID}, []string{small.ID}},
		{"both, disjoint", &billing.RefundListParams{PaymentID: pay.ID, InvoiceID: other.ID}, nil},
	} {
		got := testenv.Collect(t, c.Refunds.All(ctx, tc.p), func(r billing.Refund) string { return r.ID })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	page, _, err := c.Refunds.List(ctx, &billing.RefundListParams{PaymentID: pay.ID, ListOptions: client.ListOptions{PerPage: 1}})
	if err != nil || page.Meta.Total != 2 || len(page.Data) != 1 || !page.HasMore() || !cmp.Equal(page.Data[0], *part) {
		t.Errorf("first page: %+v %v", page, err)
	}

	// Refusals: each names its rule and changes nothing.
	inv2 := mustInvoice(t, c, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](2000)}}})
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv2.ID, Amount: 2000, Method: billing.MethodCard, CardToken: billing.TokenDecline})
	declined := apiError(t, err, client.ErrCardDeclined)
	before := countOf(t, env, "/api/v1/refunds")
	for _, tc := range []struct {
		name     string
		ctx      bool // the request breaks the OpenAPI document on purpose
		p        billing.RefundCreateParams
		sentinel error
		fields   []string
	}{
		{"refunded in full", false, billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](1)}, client.ErrPaymentNotRefundable, nil},
		{"failed payment", false, billing.RefundCreateParams{PaymentID: declined.PaymentID}, client.ErrPaymentNotRefundable, nil},
		{"over what is left", false, billing.RefundCreateParams{PaymentID: otherPay.ID, Amount: medspa.Ptr[int64](5000)}, client.ErrAmountExceedsRefundable, nil},
		{"negative amount", true, billing.RefundCreateParams{PaymentID: otherPay.ID, Amount: medspa.Ptr[int64](-5)}, client.ErrValidation, []string{"/amount out_of_range"}},
		{"zero amount", true, billing.RefundCreateParams{PaymentID: otherPay.ID, Amount: medspa.Ptr[int64](0)}, client.ErrValidation, []string{"/amount out_of_range"}},
		{"unknown payment", false, billing.RefundCreateParams{PaymentID: "pay_0000000000000000000000000000000f"}, client.ErrValidation, []string{"/paymentId not_found"}},
		// PaymentID is always sent: empty, it is a malformed id.
		{"long notes and no payment", true, billing.RefundCreateParams{Notes: strings.Repeat("n", 501)}, client.ErrValidation,
			[]string{"/notes too_long", "/paymentId invalid_format"}},
	} {
		callCtx := ctx
		if tc.ctx {
			callCtx = badCtx
		}
		_, _, err := c.Refunds.Create(callCtx, &tc.p)
		e := apiError(t, err, tc.sentinel)
		if !slices.Equal(fields(e), tc.fields) {
			t.Errorf("%s: fields %v, want %v", tc.name, fields(e), tc.fields)
		}
	}
	if after := countOf(t, env, "/api/v1/refunds"); after != before {
		t.Errorf("refused refunds changed the list: %d → %d", before, after)
	}
	if got, _, _ := c.Payments.Get(ctx, otherPay.ID); got.AmountRefunded != 1 {
		t.Errorf("other payment refunded %d, want 1", got.AmountRefunded)
	}
}

// TestRefundScopes: billing:read reads refunds and payments but cannot refund or void.
func TestRefundScopes(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	inv, pay := cashInvoice(t, env.Client, pat.ID, 1000)
	ref, _, err := env.Client.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](10)})
	if err != nil {
		t.Fatal(err)
	}
	rc := env.ClientFor(t, env.NewKey(t, medspaKey(env.Key.Account, "billing:read")).Key)
	if _, _, err := rc.Refunds.Get(ctx, ref.ID); err != nil {
		t.Errorf("billing:read get: %v", err)
	}
	if page, _, err := rc.Refunds.List(ctx, nil); err != nil || page.Meta.Total != 1 {
		t.Errorf("billing:read list refunds: %+v %v", page, err)
	}
	if page, _, err := rc.Payments.List(ctx, nil); err != nil || page.Meta.Total != 1 {
		t.Errorf("billing:read list payments: %+v %v", page, err)
	}
	_, _, err = rc.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](10)})
	apiError(t, err, client.ErrInsufficientScope)
	open := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](1)}}})
	_, _, err = rc.Invoices.Void(ctx, open.ID, nil)
	apiError(t, err, client.ErrInsufficientScope)
	other := env.ClientFor(t, env.NewKey(t, medspaKey(env.Key.Account, "patients:read")).Key)
	_, _, err = other.Refunds.List(ctx, &billing.RefundListParams{InvoiceID: inv.ID})
	apiError(t, err, client.ErrInsufficientScope)
	_, _, err = other.Payments.List(ctx, nil)
	apiError(t, err, client.ErrInsufficientScope)
}

// TestConcurrentRefundsNeverExceedThePayment: 30 refunds race for one payment through the SDK;
// what was refunded never exceeds it and equals the sum of the refunds that succeeded.
func TestConcurrentRefundsNeverExceedThePayment(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	inv, pay := cashInvoice(t, env.Client, pat.ID, 1000)
	succeeded, refused, sum := raceCalls(t, 30, func(i int) (int64, error) {
		ref, _, err := env.Client.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr(int64(70 + i%4))})
		if err != nil {
			return 0, err
		}
		return ref.Amount, nil
	}, medspa.ErrAmountExceedsRefundable, medspa.ErrPaymentNotRefundable)
	gotPay, _, _ := env.Client.Payments.Get(ctx, pay.ID)
	gotInv, _, _ := env.Client.Invoices.Get(ctx, inv.ID)
	if gotPay.AmountRefunded > gotPay.Amount || gotPay.AmountRefunded != sum || gotInv.AmountRefunded != sum {
		t.Errorf("refunded: payment %d, invoice %d, sum of successes %d, payment %d", gotPay.AmountRefunded, gotInv.AmountRefunded, sum, gotPay.Amount)
	}
	// Each refund is 70–73 of 1,000: at least 13 fit before what is left is too little.
	if succeeded+refused != 30 || refused == 0 || succeeded < 13 {
		t.Errorf("succeeded %d, refused %d", succeeded, refused)
	}
}

// TestRetryAfterLostResponseRefundsAndVoidsOnce: a refund or a void whose answer is lost is
// resent with the same Idempotency-Key and applied once (the stock comes back once).
func TestRetryAfterLostResponseRefundsAndVoidsOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	pat := mustPatient(t, env.Client)
	prod := mustProduct(t, env.Client, "LOST-1", 250, 10)

	_, pay := cashInvoice(t, env.Client, pat.ID, 1000)
	c, lt := lossyClient(t, env)
	ref, resp, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](400)})
	if err != nil {
		t.Fatal(err)
	}
	checkReplayed(t, "refund", lt, resp, http.StatusCreated)
	if page, _, _ := env.Client.Refunds.List(ctx, nil); page.Meta.Total != 1 || page.Data[0].ID != ref.ID {
		t.Errorf("refunds %+v, want exactly one", page)
	}
	if got, _, _ := env.Client.Payments.Get(ctx, pay.ID); got.AmountRefunded != 400 {
		t.Errorf("refunded %d, want 400: the refund ran once", got.AmountRefunded)
	}

	inv := mustInvoice(t, env.Client, billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "p", Quantity: 3, ProductID: prod.ID}}})
	c, lt = lossyClient(t, env)
	voided, resp, err := c.Invoices.Void(ctx, inv.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkReplayed(t, "void", lt, resp, http.StatusOK)
	if voided.Status != billing.InvoiceVoid || onHand(t, env.Client, prod.ID) != 10 {
		t.Errorf("void %+v, on hand %d, want 10: the stock came back once", voided, onHand(t, env.Client, prod.ID))
	}
}
