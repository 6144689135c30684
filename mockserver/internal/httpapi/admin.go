package httpapi

import (
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
	"github.com/medspa/medspa-go/patients"
)

// What the admin surface (mockserver/internal/admin) uses of the API: the test controls the
// pipeline reads, the route table's answers (the scopes, the routes a stub may answer), the
// caller's address, and records made from a request body as the API's POST makes them.

// Controls returns the test controls' state: the journal the pipeline writes, the faults and
// stubs it takes, the live stream it publishes to.
func (a *API) Controls() *controls.Controls { return a.ctl }

// Webhooks returns the webhook dispatcher (Options.Webhooks, or the API's own).
func (a *API) Webhooks() *webhook.Dispatcher { return a.opts.Webhooks }

// Scopes are the scopes a credential may hold: every route's, and "*".
func (a *API) Scopes() []string { return a.scopes }

// HasRoute reports whether method and pattern are one of the API's routes.
func (a *API) HasRoute(method, pattern string) bool {
	return slices.ContainsFunc(a.routes.Routes, func(r route) bool { return r.method == method && r.pattern == pattern })
}

// Serves reports whether a route of the API serves method and path.
func (a *API) Serves(method, path string) bool {
	r, _, _ := a.routes.Match(method, path)
	return r != nil
}

// ClientAddr is the address of r's caller: the peer, or the last hop a trusted proxy appended.
func (a *API) ClientAddr(r *http.Request) netip.Addr { return a.clientAddr(r) }

// Create makes a record of kind ("patients", "products", "adjustments", "appointments",
// "invoices", "payments", "refunds") in acct from body, decoded as the API's POST decodes it and
// created by the same store method (createdAt backdates it; zero is now); it returns the id of
// what the store made, with the store's error.
func (a *API) Create(acct *store.Account, kind string, body []byte, createdAt time.Time) (string, error) {
	return recordMakers[kind](acct, body, createdAt)
}

// recordMakers make each kind of record from a request body.
var recordMakers = map[string]func(*store.Account, []byte, time.Time) (string, error){
	"patients":     maker(decodePatient, (*store.Account).CreatePatient, func(p patients.Patient) string { return p.ID }),
	"products":     maker(decodeProduct, (*store.Account).CreateProduct, func(p inventory.Product) string { return p.ID }),
	"adjustments":  maker(decodeAdjustment, (*store.Account).Adjust, func(x inventory.Adjustment) string { return x.ID }),
	"appointments": maker(decodeNewAppointment, (*store.Account).CreateAppointment, func(x appointments.Appointment) string { return x.ID }),
	"invoices":     maker(decodeInvoice, (*store.Account).CreateInvoice, func(i billing.Invoice) string { return i.ID }),
	"payments":     maker(decodePayment, (*store.Account).CreatePayment, func(p billing.Payment) string { return p.ID }),
	"refunds":      maker(decodeRefund, (*store.Account).CreateRefund, func(r billing.Refund) string { return r.ID }),
}

// maker is how a kind of record is made from a body: decoded as the API's POST decodes it, then
// created by the same store method.
func maker[In, Out any](decode func(*form) In, create func(*store.Account, In, time.Time) (Out, error), id func(Out) string) func(*store.Account, []byte, time.Time) (string, error) {
	return func(acct *store.Account, body []byte, createdAt time.Time) (string, error) {
		f, err := bodyForm(body, nil) // no request: no strict mode
		if err != nil {
			return "", err
		}
		out, err := create(acct, decode(f), createdAt)
		return id(out), err
	}
}
