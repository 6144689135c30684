package webhooks_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/webhooks"
)

var t0 = time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)

// sampleEvents returns one event of every known type, in AllEventTypes order.
func sampleEvents() []webhooks.Event {
	apt := func(status, prev string) *webhooks.AppointmentData {
		return &webhooks.AppointmentData{Object: "appointment", ID: "apt_01", PatientID: "pat_01", ProviderID: "prv_9",
			RoomID: "room_2", Status: status, PreviousStatus: prev, StartAt: t0.Add(time.Hour), EndAt: t0.Add(2 * time.Hour)}
	}
	inv := func(status string, paid int64) *webhooks.InvoiceData {
		return &webhooks.InvoiceData{Object: "invoice", ID: "inv_01", PatientID: "pat_01", AppointmentID: "apt_01",
			Status: status, Currency: "usd", Total: 12500, AmountPaid: paid, AmountDue: 12500 - paid}
	}
	ev := func(i int, typ webhooks.EventType, d webhooks.EventData) webhooks.Event {
		return webhooks.Event{ID: "evt_0" + string(rune('a'+i)), Type: typ, CreatedAt: t0.Add(time.Duration(i) * time.Second), Data: d}
	}
	return []webhooks.Event{
		ev(0, webhooks.EventPatientCreated, &webhooks.PatientData{Object: "patient", ID: "pat_01"}),
		ev(1, webhooks.EventPatientUpdated, &webhooks.PatientData{Object: "patient", ID: "pat_01"}),
		ev(2, webhooks.EventAppointmentCreated, apt("scheduled", "")),
		ev(3, webhooks.EventAppointmentUpdated, apt("confirmed", "scheduled")),
		ev(4, webhooks.EventAppointmentCancelled, apt("cancelled", "confirmed")),
		ev(5, webhooks.EventInvoiceCreated, inv("open", 0)),
		ev(6, webhooks.EventInvoicePaid, inv("paid", 12500)),
		ev(7, webhooks.EventInvoiceVoided, inv("void", 0)),
		ev(8, webhooks.EventPaymentSucceeded, &webhooks.PaymentData{Object: "payment", ID: "pay_01", InvoiceID: "inv_01",
			Status: "succeeded", Amount: 12500, Currency: "usd", Method: "card"}),
		ev(9, webhooks.EventPaymentFailed, &webhooks.PaymentData{Object: "payment", ID: "pay_02", InvoiceID: "inv_01",
			Status: "failed", Amount: 500, Currency: "usd", Method: "card", DeclineCode: "insufficient_funds"}),
		ev(10, webhooks.EventRefundCreated, &webhooks.RefundData{Object: "refund", ID: "ref_01", PaymentID: "pay_01",
			InvoiceID: "inv_01", Amount: 2500, Currency: "usd"}),
		ev(11, webhooks.EventProductCreated, &webhooks.ProductData{Object: "product", ID: "prd_01", SKU: "BTX-100",
			Category: "neurotoxin", Active: true}),
		ev(12, webhooks.EventInventoryAdjusted, &webhooks.InventoryAdjustmentData{Object: "inventory_adjustment", ID: "adj_01",
			ProductID: "prd_01", Location: "main", Delta: -2, OnHandAfter: 3, Reason: "sale", Reference: "inv_01"}),
		ev(13, webhooks.EventInventoryLowStock, &webhooks.LowStockData{Object: "inventory", ID: "stk_01", ProductID: "prd_01",
			Location: "main", OnHand: 3, ReorderPoint: 5}),
		ev(14, webhooks.EventWebhookTest, &webhooks.TestData{Object: "webhook", ID: "whk_01"}),
	}
}

func mustMarshal(t testing.TB, e webhooks.Event) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEventTypes(t *testing.T) {
	t.Parallel()
	all := webhooks.AllEventTypes()
	if len(all) != 15 {
		t.Fatalf("AllEventTypes has %d types, want 15", len(all))
	}
	samples := sampleEvents()
	for i, typ := range all {
		if !typ.Valid() {
			t.Errorf("%s.Valid() = false", typ)
		}
		if samples[i].Type != typ {
			t.Errorf("sample %d is %s, want %s (a type lacks a round-trip sample)", i, samples[i].Type, typ)
		}
	}
	all[0] = "mutated"
	if webhooks.AllEventTypes()[0] != webhooks.EventPatientCreated {
		t.Error("AllEventTypes returned shared storage")
	}
	if !webhooks.EventAll.Valid() {
		t.Error(`"*" must be valid in an endpoint's events list`)
	}
	for _, bad := range []webhooks.EventType{"", "patient", "patient.deleted", "PATIENT.CREATED", "**"} {
		if bad.Valid() {
			t.Errorf("%q.Valid() = true", bad)
		}
	}
}

// TestRoundTrip sends every kind of event the way the mock server will:
// MarshalJSON, Sign, then Verify on the receiver, and expects the typed data
// back unchanged.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	secret := webhooks.NewSecret()
	for _, want := range sampleEvents() {
		t.Run(string(want.Type), func(t *testing.T) {
			body := mustMarshal(t, want)
			h, err := webhooks.SignHeaders(secret, want.ID, t0, body)
			if err != nil {
				t.Fatal(err)
			}
			got, err := webhooks.Verify(secret, h, body, at(t0))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			var raw struct {
				Data json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(body, &raw)
			want.Raw = raw.Data
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("round trip (-sent +received):\n%s", diff)
			}
		})
	}
}

func TestWireShape(t *testing.T) {
	t.Parallel()
	e := sampleEvents()[3]
	// Local time with nanoseconds must still go out as UTC seconds with Z.
	tokyo := time.FixedZone("JST", 9*3600)
	e.CreatedAt = t0.In(tokyo).Add(123 * time.Millisecond)
	d, _ := e.Appointment()
	d.StartAt = d.StartAt.In(tokyo).Add(time.Nanosecond)
	d.Object = "" // MarshalJSON fills in the constant
	const want = `{"id":"evt_0d","type":"appointment.updated","createdAt":"2026-11-22T14:03:00Z",` +
		`"data":{"object":"appointment","id":"apt_01","patientId":"pat_01","providerId":"prv_9","roomId":"room_2",` +
		`"status":"confirmed","previousStatus":"scheduled","startAt":"2026-11-22T15:03:00Z","endAt":"2026-11-22T16:03:00Z"}}`
	if got := string(mustMarshal(t, e)); got != want {
		t.Errorf("wire shape\n got %s\nwant %s", got, want)
	}
	// omitempty fields vanish.
	e = sampleEvents()[7]
	if got := string(mustMarshal(t, e)); strings.Contains(got, "declineCode") {
		t.Errorf("declineCode not omitted: %s", got)
	}
}

func TestUnknownEventType(t *testing.T) {
	t.Parallel()
	const body = `{"id":"evt_9","type":"membership.renewed","createdAt":"2026-11-22T14:03:00Z",` +
		`"data":{"object":"membership","id":"mem_1","tier":"gold"},"extra":true}`
	var e webhooks.Event
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("unknown type must decode: %v", err)
	}
	want := &webhooks.UnknownData{Object: "membership", Raw: json.RawMessage(`{"object":"membership","id":"mem_1","tier":"gold"}`)}
	got, ok := e.Unknown()
	if !ok || e.Type.Valid() {
		t.Fatalf("Data = %T, Type valid = %v", e.Data, e.Type.Valid())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UnknownData (-want +got):\n%s", diff)
	}
	// It re-encodes to the same envelope, so a relay loses nothing.
	again := mustMarshal(t, e)
	const wantAgain = `{"id":"evt_9","type":"membership.renewed","createdAt":"2026-11-22T14:03:00Z",` +
		`"data":{"object":"membership","id":"mem_1","tier":"gold"}}`
	if string(again) != wantAgain {
		t.Errorf("re-encoded %s", again)
	}
	// Also through Verify.
	secret := webhooks.NewSecret()
	h, _ := webhooks.SignHeaders(secret, "evt_9", t0, []byte(body))
	ev, err := webhooks.Verify(secret, h, []byte(body), at(t0))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ev.Unknown(); !ok {
		t.Errorf("Verify gave %T", ev.Data)
	}
}

func TestDecodeIgnoresUnknownFields(t *testing.T) {
	t.Parallel()
	const body = `{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","livemode":false,` +
		`"data":{"object":"patient","id":"pat_1","futureField":[1,2]}}`
	var e webhooks.Event
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	if d, ok := e.Patient(); !ok || d.ID != "pat_1" {
		t.Errorf("got %#v", e.Data)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"not an object":      `[]`,
		"missing id":         `{"type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":{}}`,
		"missing type":       `{"id":"evt_1","createdAt":"2026-11-22T14:03:00Z","data":{}}`,
		"missing createdAt":  `{"id":"evt_1","type":"patient.created","data":{}}`,
		"bad createdAt":      `{"id":"evt_1","type":"patient.created","createdAt":"yesterday","data":{}}`,
		"missing data":       `{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z"}`,
		"null data":          `{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":null}`,
		"array data":         `{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":[]}`,
		"wrong object":       `{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":{"object":"invoice"}}`,
		"wrong field type":   `{"id":"evt_1","type":"invoice.paid","createdAt":"2026-11-22T14:03:00Z","data":{"total":"12"}}`,
		"bad data time":      `{"id":"evt_1","type":"appointment.created","createdAt":"2026-11-22T14:03:00Z","data":{"startAt":"x"}}`,
		"createdAt year -1":  `{"id":"evt_1","type":"patient.created","createdAt":"0000-01-01T00:00:00+01:00","data":{}}`,
		"startAt year 10000": `{"id":"evt_1","type":"appointment.created","createdAt":"2026-11-22T14:03:00Z","data":{"startAt":"9999-12-31T23:00:00-02:00"}}`,
		"id wrong JSON type": `{"id":1,"type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":{}}`,
	} {
		var e webhooks.Event
		if err := json.Unmarshal([]byte(body), &e); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	t.Parallel()
	good := sampleEvents()[0]
	for name, e := range map[string]webhooks.Event{
		"no id":         {Type: good.Type, CreatedAt: t0, Data: good.Data},
		"no type":       {ID: "evt_1", CreatedAt: t0, Data: good.Data},
		"wildcard type": {ID: "evt_1", Type: webhooks.EventAll, CreatedAt: t0, Data: good.Data},
		"no data":       {ID: "evt_1", Type: good.Type, CreatedAt: t0},
		"mismatch":      {ID: "evt_1", Type: webhooks.EventInvoicePaid, CreatedAt: t0, Data: good.Data},
		"year 10000":    {ID: "evt_1", Type: good.Type, CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Data: good.Data},
		"typed nil":     {ID: "evt_1", Type: webhooks.EventPatientCreated, CreatedAt: t0, Data: (*webhooks.PatientData)(nil)},
	} {
		if b, err := json.Marshal(e); err == nil {
			t.Errorf("%s: marshaled to %s", name, b)
		}
	}
	// Raw stands in for Data when Data is nil.
	e := webhooks.Event{ID: "evt_1", Type: "x.y", CreatedAt: t0, Raw: json.RawMessage(`{"a":1}`)}
	if b, err := json.Marshal(e); err != nil || !strings.Contains(string(b), `"data":{"a":1}`) {
		t.Errorf("raw data: %s, %v", b, err)
	}
	if _, err := json.Marshal(&good); err != nil {
		t.Errorf("pointer marshal: %v", err)
	}
}

func TestAccessors(t *testing.T) {
	t.Parallel()
	for _, e := range sampleEvents() {
		hits := 0
		for _, ok := range []bool{
			ok(e.Patient()), ok(e.Appointment()), ok(e.Invoice()), ok(e.Payment()), ok(e.Refund()), ok(e.Product()),
			ok(e.InventoryAdjustment()), ok(e.LowStock()), ok(e.Test()), ok(e.Unknown()),
		} {
			if ok {
				hits++
			}
		}
		if hits != 1 {
			t.Errorf("%s: %d accessors matched, want 1", e.Type, hits)
		}
		if got, want := e.Data.ObjectType(), objectOf(t, e); got != want {
			t.Errorf("%s: ObjectType %q, wire object %q", e.Type, got, want)
		}
	}
}

func ok[T any](_ T, ok bool) bool { return ok }

func objectOf(t *testing.T, e webhooks.Event) string {
	var w struct {
		Data struct {
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(mustMarshal(t, e), &w); err != nil {
		t.Fatal(err)
	}
	return w.Data.Object
}

// TestNoPHIFields enforces the protocol's thin-payload rule structurally: no
// data type may even have a field that could carry patient identity or
// clinical text, so nobody can fill one in by accident later.
func TestNoPHIFields(t *testing.T) {
	t.Parallel()
	forbidden := []string{"name", "email", "phone", "birth", "dob", "address", "note"}
	for _, d := range []webhooks.EventData{
		&webhooks.PatientData{}, &webhooks.AppointmentData{}, &webhooks.InvoiceData{}, &webhooks.PaymentData{},
		&webhooks.ProductData{}, &webhooks.InventoryAdjustmentData{}, &webhooks.LowStockData{}, &webhooks.TestData{},
	} {
		typ := reflect.TypeOf(d).Elem()
		for i := range typ.NumField() {
			f := typ.Field(i)
			for _, name := range []string{f.Name, f.Tag.Get("json")} {
				for _, bad := range forbidden {
					if strings.Contains(strings.ToLower(name), bad) {
						t.Errorf("%s.%s (%q) looks like PHI (%q)", typ.Name(), f.Name, name, bad)
					}
				}
			}
			// Nested structs, maps or free-form values could smuggle PHI in.
			switch f.Type.Kind() {
			case reflect.String, reflect.Int64, reflect.Bool:
			default:
				if f.Type != reflect.TypeOf(time.Time{}) {
					t.Errorf("%s.%s has type %s; data must stay flat", typ.Name(), f.Name, f.Type)
				}
			}
		}
	}
}

func TestMarshalDoesNotMutate(t *testing.T) {
	t.Parallel()
	d := &webhooks.AppointmentData{ID: "apt_1", StartAt: t0.Add(time.Nanosecond)}
	e := webhooks.Event{ID: "evt_1", Type: webhooks.EventAppointmentCreated, CreatedAt: t0, Data: d}
	_ = mustMarshal(t, e)
	if d.Object != "" || d.StartAt.Nanosecond() != 1 {
		t.Error("MarshalJSON changed the caller's data")
	}
}

// TestDecodeNormalizesToUTC: a sender's offset is accepted but receivers
// always see UTC, as the protocol writes it.
func TestDecodeNormalizesToUTC(t *testing.T) {
	t.Parallel()
	const body = `{"id":"evt_1","type":"appointment.created","createdAt":"2026-11-22T23:03:00+09:00",` +
		`"data":{"object":"appointment","id":"apt_1","startAt":"2026-11-23T09:00:00+09:00","endAt":"2026-11-23T09:30:00+09:00"}}`
	var e webhooks.Event
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	d, _ := e.Appointment()
	for _, tm := range []time.Time{e.CreatedAt, d.StartAt, d.EndAt} {
		if tm.Location() != time.UTC {
			t.Errorf("%v is not in UTC", tm)
		}
	}
	if !e.CreatedAt.Equal(t0) {
		t.Errorf("createdAt %v, want %v", e.CreatedAt, t0)
	}
}
