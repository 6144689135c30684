package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
)

// The benchmarks that keep the fenced optimisations of this package (BENCHMARKS.md "Fenced
// optimisations"): each runs the optimisation ("fast") and the plain code it replaces
// ("plain") in one run, so the ratio between them is what justifies it.

func benchPatient(i int) patients.Patient {
	at := time.Date(2026, 11, 24, 6, 40, 1, 0, time.UTC)
	return patients.Patient{ID: "pat_0193a1b2c3d4e5f60718293a4b5c6d7e", FirstName: "Bench", LastName: "Patient" + strconv.Itoa(i),
		Email: "bench" + strconv.Itoa(i) + "@example.com", Phone: "+15555550100", DateOfBirth: client.NewDate(1980, 2, 29),
		Tags: []string{"vip"}, CreatedAt: at, UpdatedAt: at}
}

// BenchmarkFenceEncoders keeps encode.go: a patient, and a page of 25, encoded by hand versus by
// encoding/json.
func BenchmarkFenceEncoders(b *testing.B) {
	p := benchPatient(0)
	page := make([]patients.Patient, 25)
	for i := range page {
		page[i] = benchPatient(i)
	}
	w := store.Window{Page: 1, PerPage: 25}
	b.Run("patient/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = (*patientJSON)(&p).appendJSON(nil)
		}
	})
	b.Run("patient/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&p)
		}
	})
	b.Run("page/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = (&patientList{listAnswer: list(page, 1000, w)}).appendJSON(nil)
		}
	})
	b.Run("page/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(list(page, 1000, w))
		}
	})
}

// BenchmarkFenceCheckJSON keeps the byte scan of jsoncheck.go: a create body checked for
// duplicate keys and depth by scanning its bytes versus walking its tokens.
func BenchmarkFenceCheckJSON(b *testing.B) {
	body := []byte(`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","phone":"+15551234567",` +
		`"dateOfBirth":"1980-02-29","gender":"female","address":{"line1":"1 Main St","city":"Springfield","country":"US"},` +
		`"allergies":["latex","penicillin"],"notes":"first visit","tags":["vip"]}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkJSON(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkJSONTokens(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFenceRateLimitHeaders keeps setLimitHeaders (mw_ratelimit.go): the changing values
// made in one string with their slices in one array, and the plan's constant values made once,
// versus every value formatted on its own for each request (plainLimitHeaders).
func BenchmarkFenceRateLimitHeaders(b *testing.B) {
	st := benchLimitState()
	v := limitValues{remaining: 999_999_999, full: 1, dailyLeft: 9_950, toMidnight: 41_200, reset: 1_795_629_126}
	h := http.Header{}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			setLimitHeaders(h, st, v)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			plainLimitHeaders(h, st.plan, v)
		}
	})
}

func benchLimitState() *limitState {
	st := &limitState{plan: auth.Plan{Name: "custom", RatePerMinute: 1e9, Burst: 1e9, Daily: 10_000}}
	st.policy, st.limit = constantHeaders(st.plan)
	return st
}

// plainLimitHeaders is setLimitHeaders without the optimisation: each value formatted and
// allocated on its own, the constant ones too.
func plainLimitHeaders(h http.Header, plan auth.Plan, v limitValues) {
	state := `"burst";r=` + strconv.FormatInt(v.remaining, 10) + `;t=` + strconv.FormatInt(v.full, 10)
	if plan.Daily > 0 {
		state += `, "daily";r=` + strconv.FormatInt(v.dailyLeft, 10) + `;t=` + strconv.FormatInt(v.toMidnight, 10)
	}
	policy, limit := constantHeaders(plan)
	h.Set("Ratelimit-Policy", policy[0])
	h.Set("Ratelimit", state)
	h.Set("X-Ratelimit-Limit", limit[0])
	h.Set("X-Ratelimit-Remaining", strconv.FormatInt(v.remaining, 10))
	h.Set("X-Ratelimit-Reset", strconv.FormatInt(v.reset, 10))
}
