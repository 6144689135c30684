// Package wiretest runs the SDK against scripted servers that are not ours, go-github style: an
// httptest.Server on loopback with a fresh mux per test, whose handlers assert exactly what the
// SDK sends (method, path, query, headers, body, as docs/protocol.md says) and answer what a
// real, broken or hostile server might. The mock server keeps its end-to-end role; these tests
// hold the SDK to the protocol, not to our mock.
package wiretest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
)

// APIKey is the key every scripted client sends.
const APIKey = "msk_test_wiretest00000000000000000000"

// Server is a scripted API server and a client of it.
type Server struct {
	*httptest.Server
	// Mux routes the test's handlers; a request it does not route fails the test.
	Mux *http.ServeMux
	// Client sends to the server with APIKey, without retry waits.
	Client   *medspa.Client
	requests atomic.Int64
}

// New starts a server (closed with t) and a client of it; opts are applied after the defaults.
func New(t testing.TB, opts ...medspa.Option) *Server {
	t.Helper()
	s := &Server{Mux: http.NewServeMux()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if _, pattern := s.Mux.Handler(r); pattern == "" {
			t.Errorf("unexpected request %s %s", r.Method, r.URL)
			http.Error(w, "unexpected", http.StatusTeapot)
			return
		}
		s.Mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	c, err := medspa.New(append([]medspa.Option{medspa.WithBaseURL(s.URL), medspa.WithAPIKey(APIKey),
		medspa.WithRetryWait(0, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	s.Client = c
	return s
}

// Requests counts the requests the server received.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Want is a request as the SDK must send it.
type Want struct {
	// Method and Path (escaped, as on the wire) of the request.
	Method, Path string
	// Query is the exact raw query ("" for none). The SDK encodes parameters sorted by name.
	Query string
	// Body is the exact JSON body ("" for none, and then no Content-Type either).
	Body string
	// Accept is the Accept header (default application/json).
	Accept string
}

// Check fails t unless r is exactly want, with the headers every call carries: Authorization
// with APIKey, Accept, a medspa-go User-Agent, Content-Type with a body (and only then), and
// an Idempotency-Key on POST (and only there).
func Check(t testing.TB, r *http.Request, want Want) {
	t.Helper()
	if r.Method != want.Method || r.URL.EscapedPath() != want.Path {
		t.Errorf("request %s %s, want %s %s", r.Method, r.URL.EscapedPath(), want.Method, want.Path)
	}
	if r.URL.RawQuery != want.Query {
		t.Errorf("query\n got %q\nwant %q", r.URL.RawQuery, want.Query)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("reading the body: %v", err)
	}
	if string(body) != want.Body {
		t.Errorf("body\n got %s\nwant %s", body, want.Body)
	}
	accept := want.Accept
	if accept == "" {
		accept = "application/json"
	}
	contentType := ""
	if want.Body != "" {
		contentType = "application/json"
	}
	for name, v := range map[string]string{"Authorization": "Bearer " + APIKey, "Accept": accept, "Content-Type": contentType} {
		if got := r.Header.Get(name); got != v {
			t.Errorf("%s: %q, want %q", name, got, v)
		}
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "medspa-go/") {
		t.Errorf("User-Agent %q", ua)
	}
	// docs/protocol.md §8: 1–255 printable ASCII characters, on POST only; the SDK's own are UUIDs.
	key := r.Header.Get("Idempotency-Key")
	printable := len(key) >= 1 && len(key) <= 255 && strings.IndexFunc(key, func(r rune) bool { return r < 0x20 || r > 0x7e }) < 0
	if printable != (r.Method == http.MethodPost) {
		t.Errorf("%s with Idempotency-Key %q", r.Method, key)
	}
}

// Reply answers status with body: application/json, or application/problem+json for an error.
func Reply(w http.ResponseWriter, status int, body string) {
	ct := "application/json"
	if status >= 400 {
		ct = "application/problem+json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Request-Id", "req_wiretest")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// Exchange is one request the SDK must send and the server's reply to it.
type Exchange struct {
	Want Want
	// Status and Answer are the reply (default 200 and "{}"; 204 sends no body).
	Status int
	Answer string
}

// Case is one call of a service and the exchanges it must make.
type Case struct {
	Name string
	// Call makes the call and returns its result and the call's *medspa.Response (nil for an
	// All iteration, see Count and Iterates).
	Call func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error)
	// Iterates says that Call walks an All iteration of its own, which has no *Response.
	Iterates bool
	// Exchange is the first request and its reply; Then the ones that must follow (pages).
	Exchange
	Then []Exchange
	// Check, when set, checks the result of a call that must succeed.
	Check func(t *testing.T, got any)
	// Err, when set, says the call must fail, and checks the error.
	Err func(t *testing.T, err error)
}

// Run runs each case, in parallel, against a server of its own: the call must send exactly the
// case's requests, in order, and succeed with what Check accepts (or fail as Err wants). A call
// that got an answer (success, or an *medspa.Error) must return the *medspa.Response of the
// last one: its status, request id and attempts.
func Run(t *testing.T, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			s := New(t)
			script := append([]Exchange{tc.Exchange}, tc.Then...)
			var n atomic.Int64
			s.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if i >= len(script) {
					t.Errorf("request %d beyond the script: %s %s", i+1, r.Method, r.URL)
					Reply(w, http.StatusTeapot, "{}")
					return
				}
				x := script[i]
				Check(t, r, x.Want)
				status, answer := x.Status, x.Answer
				if status == 0 {
					status = http.StatusOK
				}
				if answer == "" && status != http.StatusNoContent {
					answer = "{}"
				}
				Reply(w, status, answer)
			})
			got, resp, err := tc.Call(context.Background(), s.Client)
			if !tc.Iterates {
				checkResponse(t, got, resp, err, script)
			}
			switch {
			case tc.Err != nil && err == nil:
				t.Fatalf("call succeeded with %+v; want an error", got)
			case tc.Err != nil:
				tc.Err(t, err)
			case err != nil:
				t.Fatalf("call: %v", err)
			}
			if s.Requests() != len(script) {
				t.Errorf("%d requests, want %d", s.Requests(), len(script))
			}
			if tc.Check != nil {
				tc.Check(t, got)
			}
		})
	}
}

// checkResponse holds a call's *Response to the script's last answer.
func checkResponse(t *testing.T, got any, resp *medspa.Response, err error, script []Exchange) {
	t.Helper()
	if _, iterated := got.(counted); iterated {
		return // an All iteration returns no *Response
	}
	var apiErr *medspa.Error
	if resp == nil {
		if err == nil || errors.As(err, &apiErr) {
			t.Errorf("no *Response (err %v)", err)
		}
		return
	}
	last := script[len(script)-1]
	status := last.Status
	if status == 0 {
		status = http.StatusOK
	}
	if resp.StatusCode != status || resp.RequestID != "req_wiretest" || resp.Attempts != len(script) ||
		resp.Header.Get("X-Request-Id") != "req_wiretest" {
		t.Errorf("Response %+v, want status %d, request id req_wiretest, %d attempts", resp, status, len(script))
	}
}

// RunRefused checks that each call fails with medspa.ErrInvalidArgument before anything
// reaches the wire: an id that is empty or not one path segment, nil params.
func RunRefused(t *testing.T, calls map[string]func(ctx context.Context, c *medspa.Client) error) {
	t.Helper()
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := New(t)
			err := call(context.Background(), s.Client)
			if !errors.Is(err, medspa.ErrInvalidArgument) {
				t.Errorf("err %v, want ErrInvalidArgument", err)
			}
			if s.Requests() != 0 {
				t.Errorf("%d requests reached the server", s.Requests())
			}
		})
	}
}

// Ids are well-formed ids (docs/protocol.md §2) for scripted answers.
const (
	PatientID     = "pat_0193a1b2c3d4e5f60718293a4b5c6d7e"
	AppointmentID = "apt_0193a1b2c3d4e5f60718293a4b5c6d7e"
	InvoiceID     = "inv_0193a1b2c3d4e5f60718293a4b5c6d7e"
	PaymentID     = "pay_0193a1b2c3d4e5f60718293a4b5c6d7e"
	RefundID      = "ref_0193a1b2c3d4e5f60718293a4b5c6d7e"
	ProductID     = "prd_0193a1b2c3d4e5f60718293a4b5c6d7e"
	StockID       = "stk_0193a1b2c3d4e5f60718293a4b5c6d7e"
	AdjustmentID  = "adj_0193a1b2c3d4e5f60718293a4b5c6d7e"
	WebhookID     = "whk_0193a1b2c3d4e5f60718293a4b5c6d7e"
	EventID       = "evt_0193a1b2c3d4e5f60718293a4b5c6d7e"
)

// OddZone is a time zone with an offset and a local time with a fractional second: a time the
// SDK must send as UTC, "Z", whole seconds (docs/protocol.md §2).
var OddZone = time.FixedZone("UTC-5:30", -(5*3600 + 1800))

// OddTime is 2026-11-22T14:03:00.75Z as 08:33:00.75 in OddZone; it goes on the wire as
// "2026-11-22T14:03:00Z".
var OddTime = time.Date(2026, 11, 22, 8, 33, 0, 750_000_000, OddZone)

// OddTimeWire is OddTime as the SDK must write it.
const OddTimeWire = "2026-11-22T14:03:00Z"

// OddTimeQuery is OddTimeWire query-escaped.
const OddTimeQuery = "2026-11-22T14%3A03%3A00Z"

// OneLine checks that err's message is one line holding none of leaks (PHI or values the
// server sent), and returns the message.
func OneLine(t *testing.T, err error, leaks ...string) string {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	for _, l := range leaks {
		if strings.Contains(msg, l) {
			t.Errorf("error %q holds %q", msg, l)
		}
	}
	return msg
}

// Page is a list answer holding the records data (JSON objects, comma-separated).
func Page(data string, total, page, perPage int) string {
	return fmt.Sprintf(`{"data":[%s],"meta":{"total":%d,"page":%d,"perPage":%d}}`, data, total, page, perPage)
}

// counted is Count's result: how many records an iteration yielded.
type counted int

// Count drains an All iterator: how many records it yielded, or its error (an iteration has no
// *Response). With Yielded it makes the case of a method that walks pages.
func Count[T any](seq iter.Seq2[T, error]) (any, *medspa.Response, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return nil, nil, err
		}
		n++
	}
	return counted(n), nil, nil
}

// Yielded checks that Count counted n records.
func Yielded(n int) func(t *testing.T, got any) {
	return func(t *testing.T, got any) {
		t.Helper()
		if got != counted(n) {
			t.Errorf("%v records, want %d", got, n)
		}
	}
}

// Equal checks that a call's result is want (a pointer to the decoded resource), showing the
// difference.
func Equal(want any) func(t *testing.T, got any) {
	return func(t *testing.T, got any) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
	}
}
