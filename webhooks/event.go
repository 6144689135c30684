package webhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/safetext"
	"github.com/medspa/medspa-go/internal/wire"
)

// EventType names a kind of event, as it appears in an event's "type" field
// and in an endpoint's list of subscribed events.
type EventType string

// The event types the API emits (docs/protocol.md §9 "Webhooks and events").
const (
	EventPatientCreated       EventType = "patient.created"
	EventPatientUpdated       EventType = "patient.updated"
	EventAppointmentCreated   EventType = "appointment.created"
	EventAppointmentUpdated   EventType = "appointment.updated"
	EventAppointmentCancelled EventType = "appointment.cancelled"
	EventInvoiceCreated       EventType = "invoice.created"
	EventInvoicePaid          EventType = "invoice.paid"
	EventInvoiceVoided        EventType = "invoice.voided"
	EventPaymentSucceeded     EventType = "payment.succeeded"
	EventPaymentFailed        EventType = "payment.failed"
	EventRefundCreated        EventType = "refund.created"
	EventProductCreated       EventType = "product.created"
	EventInventoryAdjusted    EventType = "inventory.adjusted"
	EventInventoryLowStock    EventType = "inventory.low_stock"
	EventWebhookTest          EventType = "webhook.test"
)

// EventAll subscribes an endpoint to every event type, present and future.
// It is only meaningful in an endpoint's "events" list; no event carries it
// as its type.
const EventAll EventType = "*"

// allEventTypes is the single source of truth for the known kinds, in the
// protocol's order; AllEventTypes hands out copies so callers can't mutate it.
var allEventTypes = []EventType{
	EventPatientCreated,
	EventPatientUpdated,
	EventAppointmentCreated,
	EventAppointmentUpdated,
	EventAppointmentCancelled,
	EventInvoiceCreated,
	EventInvoicePaid,
	EventInvoiceVoided,
	EventPaymentSucceeded,
	EventPaymentFailed,
	EventRefundCreated,
	EventProductCreated,
	EventInventoryAdjusted,
	EventInventoryLowStock,
	EventWebhookTest,
}

// AllEventTypes returns every concrete event type the API emits, in the
// protocol's order. It does not include EventAll. The slice is a fresh copy.
func AllEventTypes() []EventType {
	return append([]EventType(nil), allEventTypes...)
}

// Valid reports whether t may appear in an endpoint's "events" list: one of
// the types returned by AllEventTypes, or EventAll.
func (t EventType) Valid() bool {
	if t == EventAll {
		return true
	}
	_, ok := newData[t]
	return ok
}

// Validate refuses an EventType that cannot be one (medspa.ErrInvalidArgument): anything but
// EventAll or "<object>.<action>" in lowercase letters and underscores. Types this package does
// not know yet pass, so a program can subscribe to event types the API adds before the SDK
// names them (they arrive as *UnknownData).
func (t EventType) Validate() error {
	if t == EventAll || t == "" {
		return nil
	}
	object, action, ok := strings.Cut(string(t), ".")
	if ok && isEventWord(object) && isEventWord(action) {
		return nil
	}
	return fmt.Errorf("%w: webhooks.EventType is not \"*\" nor <object>.<action> in lowercase letters and underscores", client.ErrInvalidArgument)
}

// isEventWord reports lowercase ASCII letters and inner underscores.
func isEventWord(s string) bool {
	for i, r := range s {
		if (r < 'a' || r > 'z') && (r != '_' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return s != ""
}

// newData maps each known type to a constructor of its typed data, so that
// decoding and the type/data consistency check share one table.
var newData = map[EventType]func() EventData{
	EventPatientCreated:       func() EventData { return new(PatientData) },
	EventPatientUpdated:       func() EventData { return new(PatientData) },
	EventAppointmentCreated:   func() EventData { return new(AppointmentData) },
	EventAppointmentUpdated:   func() EventData { return new(AppointmentData) },
	EventAppointmentCancelled: func() EventData { return new(AppointmentData) },
	EventInvoiceCreated:       func() EventData { return new(InvoiceData) },
	EventInvoicePaid:          func() EventData { return new(InvoiceData) },
	EventInvoiceVoided:        func() EventData { return new(InvoiceData) },
	EventPaymentSucceeded:     func() EventData { return new(PaymentData) },
	EventPaymentFailed:        func() EventData { return new(PaymentData) },
	EventRefundCreated:        func() EventData { return new(RefundData) },
	EventProductCreated:       func() EventData { return new(ProductData) },
	EventInventoryAdjusted:    func() EventData { return new(InventoryAdjustmentData) },
	EventInventoryLowStock:    func() EventData { return new(LowStockData) },
	EventWebhookTest:          func() EventData { return new(TestData) },
}

// EventData is the typed "data" object of an Event. It is implemented by the
// pointer types *PatientData, *AppointmentData, *InvoiceData, *PaymentData,
// *RefundData, *ProductData, *InventoryAdjustmentData, *LowStockData, *TestData and
// *UnknownData; the set is closed so a type switch over them is exhaustive.
type EventData interface {
	// ObjectType returns the value of the wire field "object", such as
	// "appointment".
	ObjectType() string
	eventData()
}

// inRange reports whether t, in UTC, has the four-digit year RFC 3339 needs.
// An offset can push year 0000 or 9999 out of range once converted, and such
// a time could be decoded but never re-encoded.
func inRange(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// normalizeTimes converts decoded timestamps to UTC (the protocol's zone,
// whatever offset a sender used) and rejects ones that can't be re-encoded.
func normalizeTimes(d EventData) error {
	if a, ok := d.(*AppointmentData); ok {
		if !inRange(a.StartAt) || !inRange(a.EndAt) {
			return fmt.Errorf("%w: data: timestamp out of range", errBadEvent)
		}
		a.StartAt, a.EndAt = a.StartAt.UTC(), a.EndAt.UTC()
	}
	return nil
}

// PatientData is the data of patient.* events. It deliberately carries only
// the id: patient fields are PHI, and receivers fetch them through the API
// with their own scopes.
type PatientData struct {
	Object string `json:"object"` // always "patient"
	ID     string `json:"id"`     // pat_…
}

// AppointmentData is the data of appointment.* events.
type AppointmentData struct {
	Object         string    `json:"object"` // always "appointment"
	ID             string    `json:"id"`     // apt_…
	PatientID      string    `json:"patientId"`
	ProviderID     string    `json:"providerId"`
	RoomID         string    `json:"roomId,omitempty"`
	Status         string    `json:"status"`
	PreviousStatus string    `json:"previousStatus,omitempty"` // set on status changes
	StartAt        time.Time `json:"startAt"`
	EndAt          time.Time `json:"endAt"`
}

// InvoiceData is the data of invoice.* events. Amounts are in minor units of
// Currency.
type InvoiceData struct {
	Object        string `json:"object"` // always "invoice"
	ID            string `json:"id"`     // inv_…
	PatientID     string `json:"patientId"`
	AppointmentID string `json:"appointmentId,omitempty"`
	Status        string `json:"status"`
	Currency      string `json:"currency"`
	Total         int64  `json:"total"`
	AmountPaid    int64  `json:"amountPaid"`
	AmountDue     int64  `json:"amountDue"`
}

// PaymentData is the data of payment.* events. Amount is in minor units of
// Currency; DeclineCode is set on payment.failed.
type PaymentData struct {
	Object      string `json:"object"` // always "payment"
	ID          string `json:"id"`     // pay_…
	InvoiceID   string `json:"invoiceId"`
	Status      string `json:"status"`
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Method      string `json:"method"`
	DeclineCode string `json:"declineCode,omitempty"`
}

// RefundData is the data of refund.created events. Amount is in minor units
// of Currency. A refund's notes are never carried.
type RefundData struct {
	Object    string `json:"object"` // always "refund"
	ID        string `json:"id"`     // ref_…
	PaymentID string `json:"paymentId"`
	InvoiceID string `json:"invoiceId"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
}

// ProductData is the data of product.created events.
type ProductData struct {
	Object   string `json:"object"` // always "product"
	ID       string `json:"id"`     // prd_…
	SKU      string `json:"sku"`
	Category string `json:"category"`
	Active   bool   `json:"active"`
}

// InventoryAdjustmentData is the data of inventory.adjusted events: one stock
// movement and the resulting on-hand count.
type InventoryAdjustmentData struct {
	Object      string `json:"object"` // always "inventory_adjustment"
	ID          string `json:"id"`     // adj_…
	ProductID   string `json:"productId"`
	Location    string `json:"location"`
	Delta       int64  `json:"delta"`
	OnHandAfter int64  `json:"onHandAfter"`
	Reason      string `json:"reason"`
	Reference   string `json:"reference,omitempty"`
}

// LowStockData is the data of inventory.low_stock events, sent when a record
// crosses to OnHand <= ReorderPoint.
type LowStockData struct {
	Object       string `json:"object"` // always "inventory"
	ID           string `json:"id"`     // stk_…
	ProductID    string `json:"productId"`
	Location     string `json:"location"`
	OnHand       int64  `json:"onHand"`
	ReorderPoint int64  `json:"reorderPoint"`
}

// TestData is the data of webhook.test events.
type TestData struct {
	Object string `json:"object"` // always "webhook"
	ID     string `json:"id"`     // whk_… of the endpoint being tested
}

// UnknownData is the data of an event whose type this version of the SDK
// does not know. Decoding it is not an error so that new event types the
// server adds don't break existing receivers.
type UnknownData struct {
	Object string          // the data's "object" field, if any
	Raw    json.RawMessage // the data object as received
}

// ObjectType returns "patient".
func (*PatientData) ObjectType() string { return "patient" }

// ObjectType returns "appointment".
func (*AppointmentData) ObjectType() string { return "appointment" }

// ObjectType returns "invoice".
func (*InvoiceData) ObjectType() string { return "invoice" }

// ObjectType returns "payment".
func (*PaymentData) ObjectType() string { return "payment" }

// ObjectType returns "refund".
func (*RefundData) ObjectType() string { return "refund" }

// ObjectType returns "product".
func (*ProductData) ObjectType() string { return "product" }

// ObjectType returns "inventory_adjustment".
func (*InventoryAdjustmentData) ObjectType() string { return "inventory_adjustment" }

// ObjectType returns "inventory".
func (*LowStockData) ObjectType() string { return "inventory" }

// ObjectType returns "webhook".
func (*TestData) ObjectType() string { return "webhook" }

// ObjectType returns the "object" field as received.
func (d *UnknownData) ObjectType() string { return d.Object }

func (*PatientData) eventData()             {}
func (*AppointmentData) eventData()         {}
func (*InvoiceData) eventData()             {}
func (*PaymentData) eventData()             {}
func (*RefundData) eventData()              {}
func (*ProductData) eventData()             {}
func (*InventoryAdjustmentData) eventData() {}
func (*LowStockData) eventData()            {}
func (*TestData) eventData()                {}
func (*UnknownData) eventData()             {}

// The MarshalJSON methods below always write "object" as the kind's constant
// (so a sender that forgot to set it still emits the protocol's shape) and,
// where there are timestamps, write them in the protocol's format. Value
// receivers make them apply to values and pointers alike.

// MarshalJSON writes the wire shape with "object":"patient".
func (d PatientData) MarshalJSON() ([]byte, error) {
	type plain PatientData // drops the methods, so no recursion
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"appointment" and
// timestamps in RFC 3339 UTC, second precision.
func (d AppointmentData) MarshalJSON() ([]byte, error) {
	type plain AppointmentData
	w := plain(d)
	w.Object = d.ObjectType()
	w.StartAt, w.EndAt = wire.Time(d.StartAt), wire.Time(d.EndAt)
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"invoice".
func (d InvoiceData) MarshalJSON() ([]byte, error) {
	type plain InvoiceData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"payment".
func (d PaymentData) MarshalJSON() ([]byte, error) {
	type plain PaymentData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"refund".
func (d RefundData) MarshalJSON() ([]byte, error) {
	type plain RefundData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"product".
func (d ProductData) MarshalJSON() ([]byte, error) {
	type plain ProductData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"inventory_adjustment".
func (d InventoryAdjustmentData) MarshalJSON() ([]byte, error) {
	type plain InventoryAdjustmentData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"inventory".
func (d LowStockData) MarshalJSON() ([]byte, error) {
	type plain LowStockData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes the wire shape with "object":"webhook".
func (d TestData) MarshalJSON() ([]byte, error) {
	type plain TestData
	w := plain(d)
	w.Object = d.ObjectType()
	return json.Marshal(w)
}

// MarshalJSON writes Raw unchanged, so an unknown event re-encodes exactly
// as it arrived. Without Raw it writes just the object field.
func (d UnknownData) MarshalJSON() ([]byte, error) {
	if len(d.Raw) > 0 {
		return d.Raw, nil
	}
	return json.Marshal(struct {
		Object string `json:"object,omitempty"`
	}{d.Object})
}

// Event is one webhook event: the envelope
// {"id":"evt_…","type":"…","createdAt":"…","data":{…}}.
type Event struct {
	// ID is the event id (evt_…). Deliveries of the same event, including
	// retries, carry it as the webhook-id header too: dedupe on it.
	ID string
	// Type says what happened and which type Data holds.
	Type EventType
	// CreatedAt is when the event happened, on the server clock.
	CreatedAt time.Time
	// Data is the typed data object; *UnknownData for types this SDK
	// version does not know.
	Data EventData
	// Raw is the "data" object exactly as received. It is ignored by
	// MarshalJSON unless Data is nil.
	Raw json.RawMessage
}

// Patient returns the data of a patient.* event.
func (e *Event) Patient() (*PatientData, bool) { d, ok := e.Data.(*PatientData); return d, ok }

// Appointment returns the data of an appointment.* event.
func (e *Event) Appointment() (*AppointmentData, bool) {
	d, ok := e.Data.(*AppointmentData)
	return d, ok
}

// Invoice returns the data of an invoice.* event.
func (e *Event) Invoice() (*InvoiceData, bool) { d, ok := e.Data.(*InvoiceData); return d, ok }

// Payment returns the data of a payment.* event.
func (e *Event) Payment() (*PaymentData, bool) { d, ok := e.Data.(*PaymentData); return d, ok }

// Refund returns the data of a refund.created event.
func (e *Event) Refund() (*RefundData, bool) { d, ok := e.Data.(*RefundData); return d, ok }

// Product returns the data of a product.created event.
func (e *Event) Product() (*ProductData, bool) { d, ok := e.Data.(*ProductData); return d, ok }

// InventoryAdjustment returns the data of an inventory.adjusted event.
func (e *Event) InventoryAdjustment() (*InventoryAdjustmentData, bool) {
	d, ok := e.Data.(*InventoryAdjustmentData)
	return d, ok
}

// LowStock returns the data of an inventory.low_stock event.
func (e *Event) LowStock() (*LowStockData, bool) { d, ok := e.Data.(*LowStockData); return d, ok }

// Test returns the data of a webhook.test event.
func (e *Event) Test() (*TestData, bool) { d, ok := e.Data.(*TestData); return d, ok }

// Unknown returns the data of an event whose type this SDK does not know.
func (e *Event) Unknown() (*UnknownData, bool) { d, ok := e.Data.(*UnknownData); return d, ok }

// wireEvent is the envelope as it travels. CreatedAt is a string so that
// encoding controls the exact format and decoding can tell "absent" apart.
type wireEvent struct {
	ID        string          `json:"id"`
	Type      EventType       `json:"type"`
	CreatedAt string          `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

// errBadEvent is the cause wrapped by decoding and encoding failures; the
// details never quote payload values, because payloads may end up in logs.
var errBadEvent = errors.New("webhooks: malformed event")

// MarshalJSON writes the wire envelope. It fails if ID or Type is empty, if
// Type is EventAll, or if Data's type does not match a known Type (so the
// mock server can't emit an envelope receivers would misdecode). With Data
// nil it writes Raw as the data object.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.ID == "" || e.Type == "" || e.Type == EventAll {
		return nil, fmt.Errorf("%w: id and a concrete type are required", errBadEvent)
	}
	if !inRange(e.CreatedAt) {
		return nil, fmt.Errorf("%w: createdAt out of range", errBadEvent)
	}
	var data []byte
	switch {
	case e.Data != nil:
		// A typed nil would encode as "data":null, which no receiver decodes.
		if v := reflect.ValueOf(e.Data); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, fmt.Errorf("%w: data is a nil %T", errBadEvent, e.Data)
		}
		if mk, known := newData[e.Type]; known {
			if want := mk(); reflect.TypeOf(want) != reflect.TypeOf(e.Data) {
				return nil, fmt.Errorf("%w: type %s needs data %T, not %T", errBadEvent, e.Type, want, e.Data)
			}
		}
		var err error
		if data, err = json.Marshal(e.Data); err != nil {
			return nil, err
		}
	case len(e.Raw) > 0:
		data = e.Raw
	default:
		return nil, fmt.Errorf("%w: data is required", errBadEvent)
	}
	return json.Marshal(wireEvent{
		ID:        e.ID,
		Type:      e.Type,
		CreatedAt: wire.FormatTime(e.CreatedAt),
		Data:      data,
	})
}

// UnmarshalJSON decodes the wire envelope and the data object into the
// struct for its type (UnknownData for types it does not know). It requires
// id, type, createdAt and an object-valued data; unknown fields are ignored
// for forward compatibility. Errors describe the problem without quoting
// payload values.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: %s", errBadEvent, safetext.JSONError(err))
	}
	switch {
	case w.ID == "":
		return fmt.Errorf("%w: missing id", errBadEvent)
	case w.Type == "":
		return fmt.Errorf("%w: missing type", errBadEvent)
	case w.CreatedAt == "":
		return fmt.Errorf("%w: missing createdAt", errBadEvent)
	}
	created, err := time.Parse(time.RFC3339, w.CreatedAt)
	if err != nil || !inRange(created) {
		return fmt.Errorf("%w: createdAt is not RFC 3339", errBadEvent)
	}
	raw := bytes.TrimSpace(w.Data)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("%w: data must be an object", errBadEvent)
	}
	// The object field is read separately so an unknown type still reports
	// it, and a known type whose object disagrees is caught as corrupt.
	var probe struct {
		Object string `json:"object"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("%w: data: %s", errBadEvent, safetext.JSONError(err))
	}
	var data EventData
	if mk, known := newData[w.Type]; known {
		data = mk()
		if probe.Object != "" && probe.Object != data.ObjectType() {
			return fmt.Errorf("%w: data object does not match type %s", errBadEvent, w.Type)
		}
		if err := json.Unmarshal(raw, data); err != nil {
			return fmt.Errorf("%w: data: %s", errBadEvent, safetext.JSONError(err))
		}
		if err := normalizeTimes(data); err != nil {
			return err
		}
	} else {
		data = &UnknownData{Object: probe.Object, Raw: raw}
	}
	*e = Event{ID: w.ID, Type: w.Type, CreatedAt: created.UTC(), Data: data, Raw: raw}
	return nil
}
