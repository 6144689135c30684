package appointments_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// FuzzAppointmentBodies sends arbitrary bodies to create and patch (in-process): the answer is
// never a 5xx, every error is a problem document, and a rejected request changes nothing.
func FuzzAppointmentBodies(f *testing.F) {
	for _, seed := range []string{
		`{"providerId":"p","service":"s","startAt":"2031-01-01T10:00:00Z","endAt":"2031-01-01T10:30:00Z"}`,
		`{"startAt":"2031-01-01T10:00:00Z"}`, `{"endAt":"0000-01-01T00:00:00+01:00"}`, `{"startAt":"9999-12-31T23:59:59-23:59"}`,
		`{"status":"no_show"}`, `{"status":"cancelled","cancellationReason":"x"}`, `{"roomId":null,"notes":null}`,
		`{"patientId":"pat_00000000000000000000000000000000"}`, `{"startAt":1e400}`, `[]`, `null`, "\xff", `{"a":1,"a":1}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	srv, err := mockserver.New()
	if err != nil {
		f.Fatal(err)
	}
	c, key := testenv.Unlimited(f, srv) // an exhausted plan would stall the fuzzer on 429 waits
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"})
	if err != nil {
		f.Fatal(err)
	}
	ap, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: p.ID, ProviderID: "prv", Service: "s", StartAt: at(0), EndAt: at(30)})
	if err != nil {
		f.Fatal(err)
	}
	hc := srv.HTTPClient()
	send := func(t *testing.T, method, path string, body []byte) (int, []byte) {
		return testenv.Send(t, hc, method, mockserver.InProcessBaseURL+path, key.Key, "application/json", body)
	}
	f.Fuzz(func(t *testing.T, body []byte, patch bool) {
		if !patch {
			// Make the patient reference valid, so the interesting rules run.
			body = []byte(strings.Replace(string(body), "{", `{"patientId":"`+p.ID+`",`, 1))
			before, _, _ := c.Appointments.List(ctx, nil)
			status, _ := send(t, http.MethodPost, "/api/v1/appointments", body)
			after, _, _ := c.Appointments.List(ctx, nil)
			want := before.Meta.Total
			if status == http.StatusCreated {
				want++
			}
			if after.Meta.Total != want {
				t.Fatalf("status %d: total %d → %d", status, before.Meta.Total, after.Meta.Total)
			}
			return
		}
		before, _, _ := c.Appointments.Get(ctx, ap.ID)
		status, _ := send(t, http.MethodPatch, "/api/v1/appointments/"+ap.ID, body)
		if after, _, _ := c.Appointments.Get(ctx, ap.ID); status != http.StatusOK && *after != *before {
			t.Fatalf("rejected (%d) but changed: %+v → %+v", status, before, after)
		}
	})
}
