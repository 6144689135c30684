package reports_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/internal/testing/wiretest"
	"github.com/medspa/medspa-go/reports"
)

// window is a report window given in an odd zone with fractions of a second; it goes on the
// wire as UTC "Z" whole seconds.
var window = reports.Params{From: wiretest.OddTime, To: wiretest.OddTime.AddDate(0, 1, 0), Timezone: "America/New_York", GroupBy: reports.GroupByWeek}

const windowQuery = "from=" + wiretest.OddTimeQuery + "&groupBy=week&timezone=America%2FNew_York&to=2026-12-22T14%3A03%3A00Z"

// TestWire holds every method of the reports service to the protocol (docs/protocol.md §2, §9
// "Reports"): exactly what it sends (windows as UTC "Z" whole seconds), and what it makes of
// the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	base := "/api/v1/reports/"
	wiretest.Run(t, []wiretest.Case{{
		Name: "Revenue",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Revenue(ctx, &window)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: base + "revenue", Query: windowQuery}, Answer: `{"report":"revenue",` +
			`"groupBy":"week","data":[{"key":"2026-W47","collected":15000,"payments":1,"invoiced":15000,"invoices":1,"refunded":0,"net":15000}],` +
			`"totals":{"collected":15000,"payments":1,"invoiced":15000,"invoices":1}}`},
		Check: func(t *testing.T, got any) {
			r := got.(*reports.RevenueReport)
			if r.Report != reports.NameRevenue || len(r.Data) != 1 || r.Data[0].Key != "2026-W47" || r.Data[0].Collected != 15000 || r.Totals.Invoices != 1 {
				t.Errorf("report %+v", r)
			}
			// The totals come from a server without refunds (no refunded, no net): net is collected.
			if r.Data[0].Net != 15000 || r.Totals.Net != 15000 || r.Totals.Refunded != 0 {
				t.Errorf("net: row %+v, totals %+v", r.Data[0], r.Totals)
			}
		},
	}, {
		Name: "Revenue with refunds: net as sent, even zero or negative",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Revenue(ctx, &window)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: base + "revenue", Query: windowQuery}, Answer: `{"report":"revenue",` +
			`"groupBy":"week","data":[{"key":"2026-W47","collected":15000,"payments":1,"invoiced":0,"invoices":0,"refunded":15000,"net":0},` +
			`{"key":"2026-W48","collected":0,"payments":0,"invoiced":0,"invoices":0,"refunded":500,"net":-500},{"key":"2026-W49"}],` +
			`"totals":{"collected":15000,"payments":1,"invoiced":0,"invoices":0,"refunded":15500,"net":-500}}`},
		Check: func(t *testing.T, got any) {
			type m = reports.RevenueTotals
			r := got.(*reports.RevenueReport)
			want := []reports.RevenueRow{{Key: "2026-W47", RevenueTotals: m{Collected: 15000, Payments: 1, Refunded: 15000}},
				{Key: "2026-W48", RevenueTotals: m{Refunded: 500, Net: -500}}, {Key: "2026-W49"}}
			if diff := cmp.Diff(want, r.Data); diff != "" || r.Totals != (m{Collected: 15000, Payments: 1, Refunded: 15500, Net: -500}) {
				t.Errorf("rows (-want +got):\n%s\ntotals %+v", diff, r.Totals)
			}
		},
	}, {
		Name: "Appointments",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Appointments(ctx, &window)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: base + "appointments", Query: windowQuery},
			Answer: `{"report":"appointments","data":[{"key":"no_show","total":2,"noShow":1,"noShowRate":0.5}],"totals":{"total":2}}`},
		Check: func(t *testing.T, got any) {
			if r := got.(*reports.AppointmentsReport); len(r.Data) != 1 || r.Data[0].NoShowRate != 0.5 || r.Totals.Total != 2 {
				t.Errorf("report %+v", r)
			}
		},
	}, {
		Name: "Patients without params",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Patients(ctx, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: base + "patients"},
			Answer: `{"report":"patients","data":[],"totals":{"newPatients":3}}`},
		Check: func(t *testing.T, got any) {
			if r := got.(*reports.PatientsReport); r.Totals.NewPatients != 3 {
				t.Errorf("report %+v", r)
			}
		},
	}, {
		// A filter value may hold a colon (the server cuts at the first); the metric
		// constructors write op:field.
		Name: "Custom with a colon in a filter value",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourceAppointments,
				Metrics: []reports.Metric{reports.MetricCount, reports.Avg("durationMinutes"), reports.Min("durationMinutes"), reports.Max("durationMinutes")},
				GroupBy: []reports.Dimension{reports.DimensionWeek, "service"},
				Filters: []reports.Filter{reports.Where("service", "Botox: forehead", "Peel")}})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: base + "custom", Query: "filter=service%3ABotox%3A+forehead%2CPeel&groupBy=week%2Cservice" +
				"&metrics=count%2Cavg%3AdurationMinutes%2Cmin%3AdurationMinutes%2Cmax%3AdurationMinutes&source=appointments"},
			Answer: `{"report":"custom","source":"appointments","columns":["week","service","count","avg:durationMinutes","min:durationMinutes","max:durationMinutes"],"rows":[]}`,
		},
	}, {
		Name: "Custom",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Custom(ctx, &reports.CustomParams{From: wiretest.OddTime, Source: reports.SourcePayments,
				Metrics: []reports.Metric{"count", "sum:amount"}, GroupBy: []reports.Dimension{"method"},
				Filters: []reports.Filter{reports.Where("status", "succeeded", "failed"), reports.Where("currency", "usd")}})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: base + "custom", Query: "filter=status%3Asucceeded%2Cfailed&filter=currency%3Ausd&from=" +
				wiretest.OddTimeQuery + "&groupBy=method&metrics=count%2Csum%3Aamount&source=payments"},
			Answer: `{"report":"custom","source":"payments","columns":["method","count","sum:amount"],"rows":[["card",2,30000]]}`,
		},
		Check: func(t *testing.T, got any) {
			r := got.(*reports.CustomReport)
			if len(r.Rows) != 1 || r.Rows[0][0] != "card" || r.Rows[0][1] != int64(2) || r.Rows[0][2] != int64(30000) {
				t.Errorf("report %+v", r)
			}
		},
	}, {
		Name: "CSV",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			body, resp, err := c.Reports.CSV(ctx, reports.NameRevenue, &window)
			if err != nil {
				return nil, resp, err
			}
			defer body.Close()
			b, err := io.ReadAll(body)
			return string(b), resp, err
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: base + "revenue", Query: windowQuery, Accept: "text/csv"},
			Answer: "key,collected\n2026-W47,15000\n"},
		Check: func(t *testing.T, got any) {
			if got != "key,collected\n2026-W47,15000\n" {
				t.Errorf("csv %q", got)
			}
		},
	}, {
		Name: "Revenue refused window",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Reports.Revenue(ctx, &window)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: base + "revenue", Query: windowQuery}, Status: 422,
			Answer: `{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,` +
				`"code":"validation_error","requestId":"req_1","errors":[{"pointer":"to","code":"out_of_range","detail":"at most 366 days"}]}`},
		Err: func(t *testing.T, err error) {
			var e *medspa.Error
			if !errors.Is(err, medspa.ErrValidation) || !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Pointer != "to" {
				t.Errorf("err %v", err)
			}
		},
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"CSV a misspelt name": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, "revnue", &reports.RevenueParams{})
			return err
		},
		"CSV custom with standard params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, reports.NameCustom, &reports.RevenueParams{})
			return err
		},
		"CSV revenue with custom params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, reports.NameRevenue, &reports.CustomParams{Source: reports.SourcePayments})
			return err
		},
		"CSV with other params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, reports.NameRevenue, map[string]string{"groupBy": "day"})
			return err
		},
		"Revenue an unknown groupBy": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Revenue(ctx, &reports.RevenueParams{GroupBy: "year"})
			return err
		},
		"Custom an unknown source": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: "refunds"})
			return err
		},
		"Custom a malformed metric": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourcePayments, Metrics: []reports.Metric{reports.Sum("amount,count")}})
			return err
		},
		"Custom a dimension with a comma": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourcePayments, GroupBy: []reports.Dimension{"method,status"}})
			return err
		},
		"Custom a filter value with a comma": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("method", "card,cash")}})
			return err
		},
		"Custom a filter value with a control character": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("method", "card\x00")}})
			return err
		},
		"Custom a filter on a field with a colon": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("a:b", "x")}})
			return err
		},
		"Custom a filter without values": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("method")}})
			return err
		},
		"CSV custom with a filter value with a comma": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, reports.NameCustom, &reports.CustomParams{Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("method", "a,b")}})
			return err
		},
		"CSV without a name": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, "", nil)
			return err
		},
		"CSV of another path": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Reports.CSV(ctx, "../patients", nil)
			return err
		},
	})
}

// TestCSVStreamsPastTheResponseLimit: a CSV download is not read into memory, so the response
// limit does not apply to it, while a JSON report over the limit is refused.
func TestCSVStreamsPastTheResponseLimit(t *testing.T) {
	t.Parallel()
	s := wiretest.New(t, medspa.WithMaxResponseBytes(1024))
	rows := strings.Repeat("2026-W47,15000\n", 10_000) // 150 kB
	s.Mux.HandleFunc("GET /api/v1/reports/revenue", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == "text/csv" {
			w.Header().Set("Content-Type", "text/csv")
			_, _ = io.WriteString(w, rows)
			return
		}
		wiretest.Reply(w, 200, `{"report":"revenue","data":[`+strings.Repeat(`{"key":"2026-W47"},`, 100)+`{}]}`)
	})
	ctx := context.Background()
	body, _, err := s.Client.Reports.CSV(ctx, reports.NameRevenue, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || string(got) != rows {
		t.Fatalf("CSV: %d bytes, %v", len(got), err)
	}
	if _, _, err := s.Client.Reports.Revenue(ctx, nil); !errors.Is(err, medspa.ErrResponseTooLarge) {
		t.Fatalf("JSON over the limit: %v", err)
	}
}
