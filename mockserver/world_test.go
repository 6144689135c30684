package mockserver_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// world is an in-process server with one account holding one record of every kind, for the
// fuzz targets and the bad-input catalogue: every item route has a real id to aim at.
type world struct {
	srv *mockserver.Server
	c   *medspa.Client
	hc  *http.Client
	key mockserver.APIKey
	// ids of the seeded records, by placeholder: @pat @apt @inv (partly paid) @pay @prd @whk,
	// and @ref (a partial refund of @pay), @fullinv (an invoice paid and refunded in full by
	// @fullpay), @failpay (a failed payment of @inv), @void (a voided invoice that sold @prd).
	ids map[string]string
}

func newWorld(t testing.TB, opts ...mockserver.Option) *world {
	t.Helper()
	srv, err := mockserver.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return seedWorld(t, srv)
}

// seedWorld creates a fresh account on srv with one record of every kind.
func seedWorld(t testing.TB, srv *mockserver.Server) *world {
	t.Helper()
	// A custom plan without limits: the rate limiter (tested on its own) must not answer.
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 1e9, Burst: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	c, err := medspa.New(medspa.WithAPIKey(key.Key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	pat, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Wanda", LastName: "Worldwide", Email: "wanda@example.com"})
	must(err)
	start := srv.Now(key.Account).Add(48 * time.Hour).Truncate(time.Hour)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: pat.ID, ProviderID: "prv_1", Service: "botox", StartAt: start, EndAt: start.Add(30 * time.Minute)})
	must(err)
	prd, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "W-1", Name: "Filler", Category: inventory.CategoryOther, Price: 300})
	must(err)
	_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prd.ID, Delta: 100, Reason: inventory.ReasonReceived})
	must(err)
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](10_000)}}})
	must(err)
	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 1000, Method: billing.MethodCash})
	must(err)
	// A disabled loopback endpoint: no delivery changes the state behind a test's back.
	off := false
	whk, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: "http://127.0.0.1:9/hook", Events: []webhooks.EventType{webhooks.EventAll}, Enabled: &off})
	must(err)
	w := &world{srv: srv, c: c, hc: srv.HTTPClient(), key: key, ids: map[string]string{
		"@pat": pat.ID, "@apt": apt.ID, "@inv": inv.ID, "@pay": pay.ID, "@prd": prd.ID, "@whk": whk.ID,
	}}
	// The billing extensions (docs/protocol.md §9), over raw HTTP.
	w.seed(t, "@ref", "/api/v1/refunds", `{"paymentId":"@pay","amount":100,"reason":"duplicate","notes":"Wanda was charged twice"}`)
	w.seed(t, "@fullinv", "/api/v1/invoices", `{"patientId":"@pat","lineItems":[{"description":"x","quantity":1,"unitAmount":500}]}`)
	w.seed(t, "@fullpay", "/api/v1/payments", `{"invoiceId":"@fullinv","amount":500,"method":"cash"}`)
	w.seed(t, "", "/api/v1/refunds", `{"paymentId":"@fullpay"}`)
	a := w.do(t, http.MethodPost, "/api/v1/payments", "application/json", []byte(w.fill(`{"invoiceId":"@inv","amount":1,"method":"card","cardToken":"tok_decline"}`)))
	var declined struct{ PaymentID string }
	if a.status != http.StatusPaymentRequired || json.Unmarshal(a.body, &declined) != nil {
		t.Fatalf("declined payment: %d %s", a.status, a.body)
	}
	w.ids["@failpay"] = declined.PaymentID
	w.seed(t, "@void", "/api/v1/invoices", `{"patientId":"@pat","lineItems":[{"description":"x","quantity":1,"productId":"@prd"}]}`)
	w.seed(t, "", "/api/v1/invoices/@void/void", `{"reason":"raised in error"}`)
	return w
}

// seed POSTs body (placeholders filled) to path and names the id it answers placeholder ("":
// none).
func (w *world) seed(t testing.TB, placeholder, path, body string) {
	t.Helper()
	a := w.do(t, http.MethodPost, w.fill(path), "application/json", []byte(w.fill(body)))
	var rec struct{ ID string }
	if a.status/100 != 2 || json.Unmarshal(a.body, &rec) != nil || rec.ID == "" {
		t.Fatalf("seeding %s: %d %s", path, a.status, a.body)
	}
	if placeholder != "" {
		w.ids[placeholder] = rec.ID
	}
}

// fill replaces the placeholders of s with the seeded ids, longest first (so that a placeholder
// that starts another never splits it).
func (w *world) fill(s string) string {
	keys := slices.SortedFunc(maps.Keys(w.ids), func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, w.ids[k])
	}
	return s
}

// answer is one response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends one raw request with the world's key (headers "Name: value"; "Name:" deletes).
func (w *world) do(t testing.TB, method, target, contentType string, body []byte, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, mockserver.InProcessBaseURL+target, bytes.NewReader(body))
	if err != nil {
		t.Skipf("%s %q: not a request a client can send: %v", method, target, err)
	}
	req.Header.Set("Authorization", "Bearer "+w.key.Key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if v = strings.TrimSpace(v); v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Add(k, v)
		}
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %q: transport error %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}
}

// problemBody is the protocol's problem document (docs/protocol.md §4).
type problemBody struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Code   string `json:"code"`
	Errors []struct {
		Pointer string `json:"pointer"`
		Code    string `json:"code"`
	} `json:"errors"`
}

// checkAnswer asserts what every answer must be: never a 5xx, and every 4xx the protocol's
// problem document with a matching status. It returns the decoded problem (zero for 2xx/3xx).
func checkAnswer(t testing.TB, what string, a answer) problemBody {
	t.Helper()
	var p problemBody
	if a.status >= 500 {
		t.Fatalf("%s: status %d: %s", what, a.status, a.body)
	}
	if a.status >= 400 {
		if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("%s: %d with Content-Type %q: %s", what, a.status, ct, a.body)
		}
		if err := json.Unmarshal(a.body, &p); err != nil || p.Status != a.status || p.Code == "" ||
			p.Type != "https://docs.medspa.dev/errors/"+p.Code || p.Title == "" {
			t.Fatalf("%s: %d without a proper problem body: %s", what, a.status, a.body)
		}
	}
	return p
}

// dump is the server's whole state (SaveState: every account's data, idempotency keys and the
// credentials), plus what the API shows of every list and seeded record. Two equal dumps mean
// nothing changed.
func (w *world) dump(t testing.TB) string {
	t.Helper()
	var sb strings.Builder
	if err := w.srv.SaveState(&sb); err != nil {
		t.Fatal(err)
	}
	// Not state of the records: when it was saved, and the id generator (every request,
	// rejected or not, draws a request id).
	var st map[string]json.RawMessage
	if err := json.Unmarshal([]byte(sb.String()), &st); err != nil {
		t.Fatal(err)
	}
	delete(st, "savedAt")
	delete(st, "ids")
	b, _ := json.Marshal(st)
	sb.Reset()
	sb.Write(b)
	sb.WriteString("\n")
	for _, p := range []string{"/api/v1/patients", "/api/v1/appointments", "/api/v1/invoices", "/api/v1/payments", "/api/v1/refunds",
		"/api/v1/products", "/api/v1/inventory", "/api/v1/webhooks"} {
		a := w.do(t, http.MethodGet, p+"?perPage=100", "", nil)
		sb.WriteString(p + " " + string(a.body) + "\n")
	}
	for _, p := range []string{"patients/@pat", "appointments/@apt", "invoices/@inv", "payments/@pay", "refunds/@ref", "products/@prd", "webhooks/@whk"} {
		a := w.do(t, http.MethodGet, "/api/v1/"+w.fill(p), "", nil)
		sb.WriteString(p + " " + string(a.body) + "\n")
	}
	return sb.String()
}

// offLoopback reports whether body names a URL whose host is not a loopback address or name:
// registering it would make the server resolve and call it, and tests stay on loopback.
func offLoopback(body []byte) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return bytes.Contains(body, []byte(":"))
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			if !strings.Contains(x, ":") {
				return false
			}
			u, err := url.Parse(x)
			if err != nil {
				return false
			}
			h := u.Hostname()
			if ip, err := netip.ParseAddr(h); err == nil {
				return !ip.Unmap().IsLoopback()
			}
			return h != "" && h != "localhost" && !strings.HasSuffix(h, ".localhost")
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
