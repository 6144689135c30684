package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
)

func TestFixturesAppointments(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := mockserver.NewTest(t, mockserver.WithStartTime(start))
	c, k, err := s.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	appt := func(patient, startAt, status string) map[string]any {
		st, _ := time.Parse(time.RFC3339, startAt)
		m := map[string]any{"patientId": patient, "providerId": "prv_1", "service": "Consult",
			"startAt": startAt, "endAt": st.Add(30 * time.Minute).Format(time.RFC3339), "createdAt": "2026-01-01T00:00:00Z"}
		if status != "" {
			m["status"] = status
		}
		return m
	}
	want := []string{"scheduled", "confirmed", "checked_in", "in_progress", "completed", "cancelled", "no_show"}
	var items []any
	for i, st := range want {
		items = append(items, appt("@patients.0", time.Date(2026, 11, 20, 9+i, 0, 0, 0, time.UTC).Format(time.RFC3339), st))
	}
	ids, err := s.Server.LoadFixtures(k.Account, mockserver.Fixtures{
		Patients:     []any{map[string]any{"firstName": "Apt", "lastName": "Holder", "email": "a@example.com"}},
		Appointments: items,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids.Appointments {
		a, _, err := c.Appointments.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if string(a.Status) != want[i] || a.PatientID != ids.Patients[0] || !a.CreatedAt.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("appointment %d: status %s patient %s createdAt %v", i, a.Status, a.PatientID, a.CreatedAt)
		}
	}

	// A conflicting appointment fails the load at its index; nothing of the load stays.
	_, _, before := raw(t, s.Server, k.Key, "GET", "/api/v1/appointments?perPage=100", "")
	_, err = s.Server.LoadFixtures(k.Account, mockserver.Fixtures{
		Patients: []any{map[string]any{"firstName": "New", "lastName": "Comer", "email": "n@example.com"}},
		Appointments: []any{
			appt("@patients.0", "2026-11-23T09:00:00Z", ""),
			appt("@patients.0", "2026-11-23T09:15:00Z", "confirmed"),
		},
	})
	if err == nil || !strings.Contains(err.Error(), "409 appointment_conflict") {
		t.Fatalf("conflicting fixture: %v", err)
	}
	st, _, body := raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","appointments":[
		{"patientId":"`+ids.Patients[0]+`","providerId":"prv_2","service":"X","startAt":"2026-11-24T09:00:00Z","endAt":"2026-11-24T09:30:00Z"},
		{"patientId":"`+ids.Patients[0]+`","providerId":"prv_2","service":"X","startAt":"2026-11-24T09:00:00Z","endAt":"2026-11-24T09:01:00Z"},
		{"patientId":"`+ids.Patients[0]+`","providerId":"prv_3","service":"X","startAt":"2026-11-25T09:00:00Z","endAt":"2026-11-25T09:30:00Z","status":"no_show"}]}`)
	if st != 422 || !strings.Contains(string(body), `"pointer":"/appointments/1/endAt"`) {
		t.Fatalf("invalid appointment fixture: %d %s", st, body)
	}
	st, _, body = raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","appointments":[
		{"patientId":"`+ids.Patients[0]+`","providerId":"prv_3","service":"X","startAt":"2026-11-25T09:00:00Z","endAt":"2026-11-25T09:30:00Z","status":"no_show"}]}`)
	if st != 409 || !strings.Contains(string(body), `"code":"invalid_state_transition"`) || !strings.Contains(string(body), `"pointer":"/appointments/0/status"`) {
		t.Fatalf("no_show before start: %d %s", st, body)
	}
	if _, _, after := raw(t, s.Server, k.Key, "GET", "/api/v1/appointments?perPage=100", ""); !bytes.Equal(after, before) {
		t.Fatalf("failed loads left changes:\n%s\nwant\n%s", after, before)
	}
	_, _, pats := raw(t, s.Server, k.Key, "GET", "/api/v1/patients", "")
	if !strings.Contains(string(pats), `"total":1`) {
		t.Fatalf("the failed load's patient stayed: %s", pats)
	}

	// Snapshots cover appointments too.
	if err := s.Server.Snapshot(k.Account, "a"); err != nil {
		t.Fatal(err)
	}
	raw(t, s.Server, k.Key, "PATCH", "/api/v1/appointments/"+ids.Appointments[0], `{"status":"cancelled"}`)
	if err := s.Server.Restore(k.Account, "a"); err != nil {
		t.Fatal(err)
	}
	if _, _, after := raw(t, s.Server, k.Key, "GET", "/api/v1/appointments?perPage=100", ""); !bytes.Equal(after, before) {
		t.Fatalf("after restore:\n%s\nwant\n%s", after, before)
	}
}

func TestFixturesEveryKind(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	k := newKey(t, s.Server, "")
	body := func(payment string) string {
		return `{"account":"` + k.Account + `",
		"patients":[{"firstName":"Bill","lastName":"Able","email":"b@example.com"}],
		"products":[{"sku":"BTX-100","name":"Botox 100u","category":"neurotoxin","unit":"vial","price":50000,"createdAt":"2026-01-02T00:00:00Z"}],
		"adjustments":[{"productId":"@products.0","delta":10,"reason":"received"}],
		"appointments":[{"patientId":"@patients.0","providerId":"prv_1","service":"Botox","startAt":"2026-01-06T10:00:00Z","endAt":"2026-01-06T10:30:00Z","status":"completed"}],
		"invoices":[{"patientId":"@patients.0","appointmentId":"@appointments.0","lineItems":[{"description":"Botox","quantity":2,"productId":"@products.0"}]}],
		"payments":[{"invoiceId":"@invoices.0","amount":100000,"method":"card","cardToken":"` + payment + `"}],
		"refunds":[{"paymentId":"@payments.0","amount":2500,"reason":"duplicate","createdAt":"2026-01-07T00:00:00Z"}]}`
	}
	// A declined card fails the last item: the load is rolled back, stock included.
	st, _, b := raw(t, s.Server, "", "POST", "/__admin/fixtures", body("tok_decline"))
	if st != 402 || !strings.Contains(string(b), `"code":"card_declined"`) || !strings.Contains(string(b), `"pointer":"/payments/0"`) {
		t.Fatalf("declined fixture payment: %d %s", st, b)
	}
	for _, p := range []string{"/api/v1/patients", "/api/v1/products", "/api/v1/inventory", "/api/v1/invoices", "/api/v1/appointments"} {
		if _, _, l := raw(t, s.Server, k.Key, "GET", p, ""); !strings.Contains(string(l), `"total":0`) {
			t.Fatalf("after a failed load, %s: %s", p, l)
		}
	}

	st, _, b = raw(t, s.Server, "", "POST", "/__admin/fixtures", body("tok_visa"))
	if st != 201 {
		t.Fatalf("fixtures of every kind: %d %s", st, b)
	}
	var ids mockserver.FixtureIDs
	if err := json.Unmarshal(b, &ids); err != nil {
		t.Fatal(err)
	}
	for kind, got := range map[string][]string{"patients": ids.Patients, "products": ids.Products, "adjustments": ids.Adjustments,
		"appointments": ids.Appointments, "invoices": ids.Invoices, "payments": ids.Payments, "refunds": ids.Refunds} {
		if len(got) != 1 {
			t.Fatalf("%s ids: %v", kind, got)
		}
	}
	_, _, inv := raw(t, s.Server, k.Key, "GET", "/api/v1/invoices/"+ids.Invoices[0], "")
	if !strings.Contains(string(inv), `"status":"paid"`) || !strings.Contains(string(inv), `"appointmentId":"`+ids.Appointments[0]+`"`) {
		t.Fatalf("invoice: %s", inv)
	}
	if !strings.Contains(string(inv), `"amountRefunded":2500`) {
		t.Fatalf("invoice after a fixture refund: %s", inv)
	}
	_, _, ref := raw(t, s.Server, k.Key, "GET", "/api/v1/refunds/"+ids.Refunds[0], "")
	if !strings.Contains(string(ref), `"paymentId":"`+ids.Payments[0]+`"`) || !strings.Contains(string(ref), `"createdAt":"2026-01-07T00:00:00Z"`) {
		t.Fatalf("fixture refund: %s", ref)
	}
	_, _, stock := raw(t, s.Server, k.Key, "GET", "/api/v1/inventory?productId="+ids.Products[0], "")
	if !strings.Contains(string(stock), `"onHand":8`) {
		t.Fatalf("stock after receiving 10 and selling 2: %s", stock)
	}
	_, _, prd := raw(t, s.Server, k.Key, "GET", "/api/v1/products/"+ids.Products[0], "")
	if !strings.Contains(string(prd), `"createdAt":"2026-01-02T00:00:00Z"`) {
		t.Fatalf("backdated product: %s", prd)
	}

	// Snapshot and restore keep every table and derived index (SKUs stay unique).
	lists := func() string {
		var all strings.Builder
		for _, p := range []string{"/api/v1/patients", "/api/v1/products", "/api/v1/inventory", "/api/v1/invoices", "/api/v1/appointments", "/api/v1/payments/" + ids.Payments[0]} {
			_, _, l := raw(t, s.Server, k.Key, "GET", p, "")
			all.Write(l)
		}
		return all.String()
	}
	before := lists()
	if err := s.Server.Snapshot(k.Account, "billing"); err != nil {
		t.Fatal(err)
	}
	raw(t, s.Server, k.Key, "POST", "/api/v1/inventory/adjust", `{"productId":"`+ids.Products[0]+`","delta":-3,"reason":"used"}`)
	if err := s.Server.Restore(k.Account, "billing"); err != nil {
		t.Fatal(err)
	}
	if after := lists(); after != before {
		t.Fatalf("after restore:\n%s\nwant\n%s", after, before)
	}
	if st, _, b := raw(t, s.Server, k.Key, "POST", "/api/v1/products", `{"sku":"btx-100","name":"Dup","category":"other","price":1}`); st != 409 {
		t.Fatalf("duplicate SKU after restore: %d %s", st, b)
	}
}

// TestFixtureRefundRules: fixture refunds follow the API's rules; a failing one rolls the whole
// load back and is named by its index.
func TestFixtureRefundRules(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	k := newKey(t, s.Server, "")
	load := func(refunds string) (int, []byte) {
		st, _, b := raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`",
		"patients":[{"firstName":"Fay","lastName":"Fixture","email":"f@example.com"}],
		"invoices":[{"patientId":"@patients.0","lineItems":[{"description":"x","quantity":1,"unitAmount":1000}]}],
		"payments":[{"invoiceId":"@invoices.0","amount":1000,"method":"cash"}],
		"refunds":`+refunds+`}`)
		return st, b
	}
	for _, c := range []struct {
		refunds string
		status  int
		want    string
	}{
		{`[{"paymentId":"@payments.0","amount":600},{"paymentId":"@payments.0","amount":500}]`, 422, `"pointer":"/refunds/1"`},
		{`[{"paymentId":"@payments.1"}]`, 422, `"pointer":"/refunds/0/paymentId"`},
		{`[{"paymentId":"@payments.0","amount":0}]`, 422, `"pointer":"/refunds/0/amount"`},
	} {
		if st, b := load(c.refunds); st != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("refunds %s: %d %s, want %d with %s", c.refunds, st, b, c.status, c.want)
		}
		for _, p := range []string{"/api/v1/patients", "/api/v1/invoices", "/api/v1/payments", "/api/v1/refunds"} {
			if _, _, l := raw(t, s.Server, k.Key, "GET", p, ""); !strings.Contains(string(l), `"total":0`) {
				t.Fatalf("after a failed load, %s: %s", p, l)
			}
		}
	}
	if st, b := load(`[{"paymentId":"@payments.0","amount":600},{"paymentId":"@payments.0"}]`); st != 201 || !strings.Contains(string(b), `"refunds":["ref_`) {
		t.Fatalf("refund fixtures: %d %s", st, b)
	}
	if _, _, p := raw(t, s.Server, k.Key, "GET", "/api/v1/payments", ""); !strings.Contains(string(p), `"amountRefunded":1000`) {
		t.Fatalf("payment after its refunds: %s", p)
	}
}
