// Package reports is the reports area of the MedSpa API: revenue, appointments, patients and
// custom reports over a time window, as JSON (typed results) or CSV. Reports carry counts,
// amounts and ids only, never protected health information.
//
// Buckets are local days (2026-11-22), ISO weeks (2026-W47, ISO week-numbering year) or months
// (2026-11) in the report's time zone. In CSV downloads, text cells starting with =, +, - or @
// are prefixed with a single quote so that spreadsheets do not run them as formulas.
package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
)

// Name names a report, for Service.CSV; it is also the "report" field of every answer.
type Name string

// Report names.
const (
	NameRevenue      Name = "revenue"
	NameAppointments Name = "appointments"
	NamePatients     Name = "patients"
	NameCustom       Name = "custom"
)

// Validate refuses a Name other than the four above (medspa.ErrInvalidArgument), so that a
// misspelt report name fails before anything is sent.
func (n Name) Validate() error {
	if n == "" {
		return fmt.Errorf("%w: no report name", client.ErrInvalidArgument)
	}
	return client.CheckEnum(n, NameRevenue, NameAppointments, NamePatients, NameCustom)
}

// GroupBy is the bucket dimension of the revenue, appointments and patients reports.
type GroupBy string

// Group-by values of the standard reports; each report accepts some of them (see Params).
const (
	GroupByDay      GroupBy = "day"
	GroupByWeek     GroupBy = "week"
	GroupByMonth    GroupBy = "month"
	GroupByProvider GroupBy = "provider"
	GroupByService  GroupBy = "service"
	GroupByStatus   GroupBy = "status"
)

// Validate refuses a GroupBy other than the six above (medspa.ErrInvalidArgument): the call
// path runs it before anything is sent.
func (g GroupBy) Validate() error {
	return client.CheckEnum(g, GroupByDay, GroupByWeek, GroupByMonth, GroupByProvider, GroupByService, GroupByStatus)
}

// Params are the query of the revenue, appointments and patients reports. Zero fields take the
// server's defaults: the 30 days up to and including now, UTC, and the report's own default
// groupBy.
//
// The window is [From, To): From inclusive, To exclusive, so a record stamped exactly at To is
// outside. A zero To is the end of the server clock's current second, so what was just written
// (even under a frozen clock, as with mockserver.WithStartTime) is inside; a zero From is 30
// days before To. An explicit To of time.Now() leaves out the current second: leave To zero,
// or add a second.
type Params struct {
	// From is the window start (inclusive); zero: 30 days before To.
	From time.Time `url:"from,omitempty"`
	// To is the window end (exclusive); at most 366 days after From. Zero: the end of the
	// server's current second, so the current second is inside.
	To time.Time `url:"to,omitempty"`
	// Timezone is the IANA zone of the day/week/month buckets ("America/New_York").
	Timezone string `url:"timezone,omitempty"`
	// GroupBy is the bucket dimension (GroupByDay, …): revenue takes day, week, month,
	// provider or service; appointments also status; patients day, week or month.
	GroupBy GroupBy `url:"groupBy,omitempty"`
}

// RevenueParams are the query of the revenue report (groupBy day, week, month, provider or
// service; default day). The window is [From, To), To defaulting to the end of the server's
// current second (see Params).
type RevenueParams = Params

// AppointmentsParams are the query of the appointments report (groupBy day, week, month,
// provider, service or status; default status). The window is [From, To) on startAt, To
// defaulting to the end of the server's current second (see Params).
type AppointmentsParams = Params

// PatientsParams are the query of the patients report (groupBy day, week or month; default
// month). The window is [From, To), To defaulting to the end of the server's current second
// (see Params).
type PatientsParams = Params

// RevenueTotals are the revenue metrics of a bucket or of the whole window. Amounts are in
// minor units (cents).
type RevenueTotals struct {
	// Collected is the sum of succeeded payment amounts (by payment createdAt).
	Collected int64 `json:"collected"`
	// Payments is the number of succeeded payments.
	Payments int64 `json:"payments"`
	// Invoiced is the sum of invoice totals (by invoice createdAt).
	Invoiced int64 `json:"invoiced"`
	// Invoices is the number of invoices.
	Invoices int64 `json:"invoices"`
	// Refunded is the sum of refund amounts (by refund createdAt).
	Refunded int64 `json:"refunded"`
	// Net is Collected − Refunded (negative when a bucket refunds more than it collects).
	Net int64 `json:"net"`
}

// RevenueRow is one bucket of the revenue report.
type RevenueRow struct {
	// Key is the bucket: a day, week or month key, a provider id or a service ("unassigned"
	// when the invoice has no appointment).
	Key string `json:"key"`
	RevenueTotals
}

// UnmarshalJSON decodes the metrics. Refunded and Net are extensions of the protocol
// (docs/protocol.md §9): a server without refunds sends neither, and Net is then Collected, as
// nothing was refunded.
func (t *RevenueTotals) UnmarshalJSON(b []byte) error {
	var key string // totals have none
	return decodeRevenue(b, &key, t)
}

// UnmarshalJSON decodes the bucket's key and metrics, as RevenueTotals.UnmarshalJSON does.
func (r *RevenueRow) UnmarshalJSON(b []byte) error { return decodeRevenue(b, &r.Key, &r.RevenueTotals) }

// decodeRevenue decodes a bucket's key and revenue metrics, telling an absent net from a zero
// one; null changes nothing, as for any struct.
func decodeRevenue(b []byte, key *string, t *RevenueTotals) error {
	type metrics RevenueTotals // without the UnmarshalJSON method
	w := struct {
		Key string `json:"key"`
		metrics
		Net *int64 `json:"net"` // shadows metrics.Net
	}{Key: *key, metrics: metrics(*t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*key, *t = w.Key, RevenueTotals(w.metrics)
	switch {
	case w.Net != nil:
		t.Net = *w.Net
	case !bytes.Equal(bytes.TrimSpace(b), []byte("null")):
		t.Net = t.Collected
	}
	return nil
}

// RevenueReport is the revenue report.
type RevenueReport struct {
	Report   Name          `json:"report"`
	From     time.Time     `json:"from"`
	To       time.Time     `json:"to"`
	Timezone string        `json:"timezone"`
	GroupBy  string        `json:"groupBy"`
	Currency string        `json:"currency"`
	Data     []RevenueRow  `json:"data"`
	Totals   RevenueTotals `json:"totals"`
}

// AppointmentsTotals are the appointment metrics of a bucket or of the whole window (by
// startAt). Rates are rounded to 4 decimals and are 0 when their denominator is 0.
type AppointmentsTotals struct {
	Total      int64 `json:"total"`
	Scheduled  int64 `json:"scheduled"`
	Confirmed  int64 `json:"confirmed"`
	CheckedIn  int64 `json:"checkedIn"`
	InProgress int64 `json:"inProgress"`
	Completed  int64 `json:"completed"`
	Cancelled  int64 `json:"cancelled"`
	NoShow     int64 `json:"noShow"`
	// NoShowRate is NoShow / (Completed + NoShow).
	NoShowRate float64 `json:"noShowRate"`
	// CancellationRate is Cancelled / Total.
	CancellationRate float64 `json:"cancellationRate"`
}

// AppointmentsRow is one bucket of the appointments report; with groupBy status the key is
// the API status value ("no_show").
type AppointmentsRow struct {
	Key string `json:"key"`
	AppointmentsTotals
}

// AppointmentsReport is the appointments report.
type AppointmentsReport struct {
	Report   Name               `json:"report"`
	From     time.Time          `json:"from"`
	To       time.Time          `json:"to"`
	Timezone string             `json:"timezone"`
	GroupBy  string             `json:"groupBy"`
	Currency string             `json:"currency"`
	Data     []AppointmentsRow  `json:"data"`
	Totals   AppointmentsTotals `json:"totals"`
}

// PatientsTotals are the patient metrics of a bucket or of the whole window.
type PatientsTotals struct {
	// NewPatients were created in the bucket.
	NewPatients int64 `json:"newPatients"`
	// ActivePatients is the number of distinct patients with a completed appointment starting
	// in the bucket.
	ActivePatients int64 `json:"activePatients"`
	// ReturningPatients are active patients who had a completed appointment before the
	// bucket's start (for the totals: before the window's start).
	ReturningPatients int64 `json:"returningPatients"`
}

// PatientsRow is one bucket of the patients report.
type PatientsRow struct {
	Key string `json:"key"`
	PatientsTotals
}

// PatientsReport is the patients report.
type PatientsReport struct {
	Report   Name           `json:"report"`
	From     time.Time      `json:"from"`
	To       time.Time      `json:"to"`
	Timezone string         `json:"timezone"`
	GroupBy  string         `json:"groupBy"`
	Currency string         `json:"currency"`
	Data     []PatientsRow  `json:"data"`
	Totals   PatientsTotals `json:"totals"`
}

// Service runs reports. Get one from medspa.New (the client's Reports field). Every method also
// returns the metadata of the server's answer (*medspa.Response: status, request id, rate
// limit, attempts), with the result or the error; it is nil when no answer arrived.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type Service struct{ e *client.Engine }

// NewService returns the reports service over e (medspa.New does this for you).
func NewService(e *client.Engine) *Service { return &Service{e: e} }

// Revenue runs the revenue report.
func (s *Service) Revenue(ctx context.Context, params *RevenueParams, opts ...client.RequestOption) (*RevenueReport, *client.Response, error) {
	return client.Call[RevenueReport](ctx, s.e, http.MethodGet, path(NameRevenue), params, opts...)
}

// Appointments runs the appointments report.
func (s *Service) Appointments(ctx context.Context, params *AppointmentsParams, opts ...client.RequestOption) (*AppointmentsReport, *client.Response, error) {
	return client.Call[AppointmentsReport](ctx, s.e, http.MethodGet, path(NameAppointments), params, opts...)
}

// Patients runs the patients report.
func (s *Service) Patients(ctx context.Context, params *PatientsParams, opts ...client.RequestOption) (*PatientsReport, *client.Response, error) {
	return client.Call[PatientsReport](ctx, s.e, http.MethodGet, path(NamePatients), params, opts...)
}

// Custom runs a custom report.
func (s *Service) Custom(ctx context.Context, params *CustomParams, opts ...client.RequestOption) (*CustomReport, *client.Response, error) {
	return client.Call[CustomReport](ctx, s.e, http.MethodGet, path(NameCustom), params, opts...)
}

// CSV downloads report name (NameRevenue, NameAppointments, NamePatients or NameCustom) as CSV
// with params: a *CustomParams for NameCustom, a *Params (or nil) for the others. The caller
// reads and closes the body. An unknown name, or params of the other kind, is
// medspa.ErrInvalidArgument before anything is sent.
func (s *Service) CSV(ctx context.Context, name Name, params any, opts ...client.RequestOption) (io.ReadCloser, *client.Response, error) {
	if err := name.Validate(); err != nil {
		return nil, nil, err
	}
	switch params.(type) {
	case *CustomParams:
		if name != NameCustom {
			return nil, nil, fmt.Errorf("%w: report %s takes *reports.Params, not *reports.CustomParams", client.ErrInvalidArgument, name)
		}
	case *Params, nil:
		if name == NameCustom {
			return nil, nil, fmt.Errorf("%w: report custom takes *reports.CustomParams", client.ErrInvalidArgument)
		}
	default:
		return nil, nil, fmt.Errorf("%w: report params must be *reports.Params or *reports.CustomParams, not %T", client.ErrInvalidArgument, params)
	}
	return s.e.Stream(ctx, path(name), params, "text/csv", opts...)
}

// path is the route of report name.
func path(name Name) client.Route { return client.Path("reports", string(name)) }
