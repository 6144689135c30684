package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/reqlog"
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
			_ = newPatientList(page, 1000, w).appendJSON(nil)
		}
	})
	b.Run("page/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(list(page, 1000, w))
		}
	})
}

// BenchmarkFenceAnswerBuffers keeps answerbuf.go: a page of 25 encoded into a pooled buffer
// versus a fresh one.
func BenchmarkFenceAnswerBuffers(b *testing.B) {
	page := make([]patients.Patient, 25)
	for i := range page {
		page[i] = benchPatient(i)
	}
	l := newPatientList(page, 1000, store.Window{Page: 1, PerPage: 25})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf := answerBuffers.Get().(*[]byte)
			body := l.appendJSON((*buf)[:0])
			recycle(buf, body)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = l.appendJSON(nil)
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

// plainLoggedPath is loggedPath without its first pass: split and join every path.
func plainLoggedPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !keptSegment(s) {
			segs[i] = "{redacted}"
		}
	}
	return strings.Join(segs, "/")
}

// BenchmarkFenceLoggedPath keeps the first pass of loggedPath (redact.go): a clean path (the
// usual case) returned as it is versus split and joined.
func BenchmarkFenceLoggedPath(b *testing.B) {
	p := "/api/v1/patients/pat_0193a1b2c3d4e5f60718293a4b5c6d7e"
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = loggedPath(p)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = plainLoggedPath(p)
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
	var vals [3]string // the request's
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			setLimitHeaders(h, st, v, &vals)
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

// BenchmarkFenceCatchAllRoute keeps the catch-all route (mw_route.go): a request routed once
// versus looked up and then served (routed twice).
func BenchmarkFenceCatchAllRoute(b *testing.B) {
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{})
	plain := http.NewServeMux()
	for _, rt := range a.routes() {
		plain.HandleFunc(rt.method+" "+rt.pattern, func(http.ResponseWriter, *http.Request) {})
	}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/patients/pat_0193a1b2c3d4e5f60718293a4b5c6d7e", nil)
	fast := http.NewServeMux()
	for _, rt := range a.routes() {
		fast.HandleFunc(rt.method+" "+rt.pattern, func(http.ResponseWriter, *http.Request) {})
	}
	fast.HandleFunc(unroutedPattern, func(http.ResponseWriter, *http.Request) {})
	w := httptest.NewRecorder()
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			fast.ServeHTTP(w, r)
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if _, pattern := plain.Handler(r); pattern != "" {
				plain.ServeHTTP(w, r)
			}
		}
	})
}

// BenchmarkFenceRoutedWriter keeps routedWriter (request.go): a request's state carried across
// the route's ServeMux in the writer versus in a copy of the request with a context value.
func BenchmarkFenceRoutedWriter(b *testing.B) {
	type stateKey struct{}
	const path = "/api/v1/patients/pat_0193a1b2c3d4e5f60718293a4b5c6d7e"
	var got *request
	fast := http.NewServeMux()
	fast.HandleFunc("GET /api/v1/patients/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, got = stateOf(w, r)
	})
	plain := http.NewServeMux()
	plain.HandleFunc("GET /api/v1/patients/{id}", func(w http.ResponseWriter, r *http.Request) {
		got = r.Context().Value(stateKey{}).(*request)
		got.Request = r
	})
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rq := newRequest(r)
			rq.serveMux(fast, w)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rq := newRequest(r)
			rq.Request = r.WithContext(context.WithValue(r.Context(), stateKey{}, rq))
			plain.ServeHTTP(w, rq.Request)
		}
	})
	if got == nil || got.PathValue("id") == "" {
		b.Fatal("the handler did not get the request's state")
	}
}

// BenchmarkFenceRequestLog keeps logRequest (mw_journal.go): the request's log line made as a
// record versus through Logger.LogAttrs with its attributes in a slice; and, to the server's own
// handler, handed over as fields ("fields") versus as a record ("record").
func BenchmarkFenceRequestLog(b *testing.B) {
	l := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := JournalEntry{Method: "GET", Path: "/api/v1/patients/pat_0193a1b2c3d4e5f60718293a4b5c6d7e", Status: 200,
		RequestID: "req_0193a1b2c3d4e5f60718293a4b5c6d7e", Account: "acct_0193a1b2c3d4e5f60718293a4b5c6d7e"}
	d := 130 * time.Microsecond
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			logRequest(l, &e, time.Now(), d)
		}
	})
	own := slog.New(reqlog.New(io.Discard))
	b.Run("fields", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			logRequest(own, &e, time.Now(), d)
		}
	})
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			line := reqlog.Line{Time: time.Now(), Level: levelOf(e.Status), Method: e.Method, Path: e.Path, Status: e.Status,
				Duration: d, RequestID: e.RequestID, Account: e.Account}
			_ = own.Handler().Handle(context.Background(), line.Record(journalPC))
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			attrs := []slog.Attr{
				slog.String("method", e.Method), slog.String("path", e.Path), slog.Int("status", e.Status),
				slog.Duration("duration", d), slog.String("request_id", e.RequestID),
			}
			if e.Account != "" {
				attrs = append(attrs, slog.String("account", e.Account))
			}
			l.LogAttrs(context.Background(), levelOf(e.Status), "request", attrs...)
		}
	})
}

// writerSink keeps the benchmarks' writers reachable, as the pipeline's are (they escape into
// http.ResponseWriter).
var writerSink http.ResponseWriter

// BenchmarkFenceRequestWriters keeps the journal's and the audit step's writers inside the
// request state (request.go): a request's state with both, versus the state and each writer
// allocated on its own.
func BenchmarkFenceRequestWriters(b *testing.B) {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/patients", nil)
	w := httptest.NewRecorder()
	a := &API{}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rq := newRequest(r)
			rq.statusW = statusWriter{ResponseWriter: w}
			rq.auditW = auditWriter{ResponseWriter: &rq.statusW, api: a, rq: rq}
			writerSink = &rq.auditW
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rq := newRequest(r)
			sw := &statusWriter{ResponseWriter: w}
			writerSink = &auditWriter{ResponseWriter: sw, api: a, rq: rq}
		}
	})
}

// BenchmarkFencePatientPages keeps patientPages and patientAnswers (answerbuf.go): page 2 of 20
// patients opened into a pooled slice and encoded, versus into a fresh one; and one patient
// ("one/") answered from the pool versus a fresh one.
func BenchmarkFencePatientPages(b *testing.B) {
	acct := store.New(store.Options{}).Account("acct_bench")
	at := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	for i := range 100 {
		n := strconv.Itoa(i)
		in := store.PatientInput{FirstName: store.Given("Ada" + n), LastName: store.Given("Lovelace"), Email: store.Given("ada" + n + "@example.com")}
		if _, err := acct.CreatePatient(in, at.Add(time.Duration(i)*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
	w := store.Window{Page: 2, PerPage: 20}
	// encode encodes an answer as run does, giving back what it holds, and checks its size.
	encode := func(b *testing.B, v jsonAppender, atLeast int) {
		buf := answerBuffers.Get().(*[]byte)
		body := v.appendJSON((*buf)[:0])
		if r, ok := v.(releaser); ok {
			r.release()
		}
		if len(body) < atLeast {
			b.Fatalf("an answer of %d bytes", len(body))
		}
		recycle(buf, body)
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			page := patientPages.Get().(*[]patients.Patient)
			items, total, err := acct.ListPatientsInto(store.PatientFilter{}, w, (*page)[:0])
			if err != nil {
				b.Fatal(err)
			}
			l := newPatientList(items, total, w)
			l.pooled = page
			encode(b, l, 3000)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, total, err := acct.ListPatients(store.PatientFilter{}, w)
			if err != nil {
				b.Fatal(err)
			}
			encode(b, newPatientList(items, total, w), 3000)
		}
	})
	// GET by id: the patient answered from patientAnswers versus a fresh one.
	first, _, err := acct.ListPatients(store.PatientFilter{}, store.Window{Page: 1, PerPage: 1})
	if err != nil {
		b.Fatal(err)
	}
	id := first[0].ID
	b.Run("one/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := acct.GetPatient(id)
			if err != nil {
				b.Fatal(err)
			}
			answer := patientAnswers.Get().(*pooledPatient)
			answer.patientJSON = patientJSON(p)
			encode(b, answer, 100)
		}
	})
	b.Run("one/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := acct.GetPatient(id)
			if err != nil {
				b.Fatal(err)
			}
			encode(b, (*patientJSON)(&p), 100)
		}
	})
}
