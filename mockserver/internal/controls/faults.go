package controls

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// Fault makes the next Times matching requests fail (docs/protocol.md §12 "POST /__admin/faults").
type Fault struct {
	// Account limits the fault to requests authenticated for that account ("" = any).
	Account string `json:"account,omitempty"`
	// Method limits it to one HTTP method ("" = any).
	Method string `json:"method,omitempty"`
	// Path is the request path as sent (/api/v1/patients), or a prefix ending in "*" ("" = any).
	Path string `json:"path,omitempty"`
	// Status answers with this status and the protocol's problem body: 429 rate_limited,
	// 500 internal_error, 502 bad_gateway, 503 service_unavailable, 504 gateway_timeout,
	// 401 unauthorized, 404 not_found; any other 4xx/5xx injected_fault.
	Status int `json:"status,omitempty"`
	// RetryAfter sets Retry-After (seconds) on the answer.
	RetryAfter *int `json:"retryAfter,omitempty"`
	// DelayMs delays the answer (the request's context still cancels the wait).
	DelayMs int `json:"delayMs,omitempty"`
	// DropConnection closes the connection without an answer (clients see a transport error).
	DropConnection bool `json:"dropConnection,omitempty"`
	// AfterCommit (extension) processes the request normally first and then replaces the answer
	// with Status or drops the connection: the write happened, the client does not know it. This
	// is how a test checks that retries of committed writes are safe (idempotency keys).
	AfterCommit bool `json:"afterCommit,omitempty"`
	// Times is how many matching requests fail (at least 1).
	Times int `json:"times"`
}

// faultStatuses are the statuses an injected fault answers with their own code: those a real
// server gives unprompted (a credential gone, a record gone, limits, outages), each with the
// first code internal/wire's table lists for it (401 unauthorized, 404 not_found, 429
// rate_limited, 500 internal_error, 502 bad_gateway, 503 service_unavailable, 504
// gateway_timeout). Any other status answers injected_fault (docs/protocol.md §14).
var faultStatuses = []int{401, 404, 429, 500, 502, 503, 504}

// faultCode is the problem code of an injected status.
func faultCode(status int) string {
	if slices.Contains(faultStatuses, status) {
		for _, c := range wire.ErrorCodes {
			if c.Status == status {
				return c.Code
			}
		}
	}
	return "injected_fault"
}

// validate checks a fault, naming every invalid field.
func (f *Fault) validate() error {
	var errs store.FieldErrors
	if f.Times < 1 {
		errs.Add("/times", "out_of_range", "must be at least 1")
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		errs.Add("/status", "out_of_range", "must be an error status, 400–599")
	}
	if f.RetryAfter != nil && *f.RetryAfter < 0 {
		errs.Add("/retryAfter", "out_of_range", "must be 0 or more seconds")
	}
	if f.DelayMs < 0 || f.DelayMs > 600_000 {
		errs.Add("/delayMs", "out_of_range", "must be 0–600000 milliseconds")
	}
	if f.Status != 0 && f.DropConnection {
		errs.Add("/dropConnection", "invalid_value", "cannot be combined with status")
	}
	if f.Status == 0 && !f.DropConnection && (f.DelayMs == 0 || f.AfterCommit) {
		errs.Add("/status", "required", "one of status, dropConnection or delayMs (without afterCommit) is required")
	}
	if f.Path != "" && !strings.HasPrefix(f.Path, "/") {
		errs.Add("/path", "invalid_format", "must start with /")
	}
	if len(f.Path) > httpcore.MaxPathBytes {
		errs.Add("/path", "too_long", "must be at most "+strconv.Itoa(httpcore.MaxPathBytes)+" bytes (no longer path reaches the server)")
	}
	return errs.Err()
}

// matches reports whether the fault applies to a request.
func (f *Fault) matches(account, method, path string) bool {
	if f.Account != "" && f.Account != account {
		return false
	}
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if prefix, ok := strings.CutSuffix(f.Path, "*"); ok {
		return strings.HasPrefix(path, prefix)
	}
	return f.Path == "" || f.Path == path
}

// Problem is the answer of a status fault.
func (f *Fault) Problem() *problem.Problem {
	p := problem.WithStatus(f.Status, faultCode(f.Status), "injected by the mock server's fault controls")
	if f.Status == http.StatusUnauthorized {
		p.WithHeader("WWW-Authenticate", `Bearer realm="medspa"`)
	}
	if f.RetryAfter != nil {
		p.WithHeader("Retry-After", strconv.Itoa(*f.RetryAfter))
	}
	return p
}

// DefaultArmedFaults bounds the faults armed at once (RELIABILITY.md "Bounds"): every request
// looks through them, so past it arming another is refused (422) until some are used up or
// cleared.
const DefaultArmedFaults = 1_000

// Faults are the armed faults, oldest first; the first match takes one of its times. Faults
// used up stay listed (GET /__admin/faults) among the newest spentFaults.
type Faults struct {
	mu    sync.Mutex
	limit int              // 0: DefaultArmedFaults
	now   func() time.Time // the server clock, for armedAt and lastUsedAt
	seq   uint64
	armed []*armedFault
	spent []*armedFault // newest last, at most spentFaults
}

// spentFaults bounds the used-up faults GET /__admin/faults still lists (RELIABILITY.md "Bounds").
const spentFaults = 100

// armedFault is a fault with what its listing shows: an id, when it was armed, and how it was used.
type armedFault struct {
	Fault
	id         string
	used       int
	armedAt    time.Time
	lastUsedAt time.Time
}

// FaultState is a fault as GET /__admin/faults lists it: its definition (Times is what it was
// armed with), how many uses are left and were used, and when.
type FaultState struct {
	ID string `json:"id"`
	Fault
	Left       int        `json:"left"`
	Used       int        `json:"used"`
	ArmedAt    time.Time  `json:"armedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func (f *armedFault) state() FaultState {
	s := FaultState{ID: f.id, Fault: f.Fault, Left: f.Times, Used: f.used, ArmedAt: f.armedAt}
	s.Times = f.Times + f.used
	if s.RetryAfter != nil {
		ra := *s.RetryAfter
		s.RetryAfter = &ra
	}
	if !f.lastUsedAt.IsZero() {
		t := f.lastUsedAt
		s.LastUsedAt = &t
	}
	return s
}

// Arm validates f, naming every invalid field, and arms it.
func (fs *Faults) Arm(f Fault) error {
	if err := f.validate(); err != nil {
		return err
	}
	if f.RetryAfter != nil { // the caller keeps its pointer; the armed fault its own value
		ra := *f.RetryAfter
		f.RetryAfter = &ra
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if limit := cmp.Or(fs.limit, DefaultArmedFaults); len(fs.armed) >= limit {
		return problem.Field("/times", "out_of_range", "at most "+strconv.Itoa(limit)+" faults may be armed at once; clear some first")
	}
	fs.seq++
	fs.armed = append(fs.armed, &armedFault{Fault: f, id: "flt_" + strconv.FormatUint(fs.seq, 10), armedAt: nowOf(fs.now)})
	return nil
}

// Size is how many faults are armed.
func (fs *Faults) Size() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.armed)
}

// Clear disarms every fault (and forgets those used up).
func (fs *Faults) Clear() {
	fs.mu.Lock()
	fs.armed, fs.spent = nil, nil
	fs.mu.Unlock()
}

// List returns the armed faults, oldest first, then the newest used-up ones (GET
// /__admin/faults); with an account, those that can apply to its requests (its own and those of
// any account).
func (fs *Faults) List(account string) []FaultState {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := []FaultState{}
	for _, f := range slices.Concat(fs.armed, fs.spent) {
		if account == "" || f.Account == "" || f.Account == account {
			out = append(out, f.state())
		}
	}
	return out
}

// Take returns the fault for a request and counts it, or nil. Counting under the lock makes
// Times exact under concurrency.
func (fs *Faults) Take(account, method, path string) *Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.armed {
		if f.matches(account, method, path) {
			f.Times--
			f.used++
			f.lastUsedAt = nowOf(fs.now)
			used := f.Fault
			if f.Times == 0 {
				fs.armed = append(fs.armed[:i:i], fs.armed[i+1:]...)
				if len(fs.spent) >= spentFaults {
					fs.spent = append(fs.spent[:0:0], fs.spent[1:]...)
				}
				fs.spent = append(fs.spent, f)
			}
			return &used
		}
	}
	return nil
}
