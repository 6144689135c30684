package store

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/patients"
)

func TestIdempotencyStates(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	s.Clock().Set(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	a := s.Account("acct_1")
	if got, _ := a.BeginIdempotent("k", fp("POST /a 1")); got != IdempotencyProceed {
		t.Fatalf("first use: %v", got)
	}
	if got, _ := a.BeginIdempotent("k", fp("POST /a 1")); got != IdempotencyInUse {
		t.Errorf("same key in flight: %v, want in use", got)
	}
	if got, _ := a.BeginIdempotent("k", fp("POST /a 2")); got != IdempotencyReused {
		t.Errorf("other request while in flight: %v, want reused", got)
	}
	// A 5xx outcome is forgotten: the retry runs anew.
	a.FinishIdempotent("k", 503, nil, []byte("x"))
	if got, _ := a.BeginIdempotent("k", fp("POST /a 1")); got != IdempotencyProceed {
		t.Errorf("after a 5xx: %v, want proceed", got)
	}
	a.FinishIdempotent("k", 201, nil, []byte(`{"id":"x"}`))
	got, e := a.BeginIdempotent("k", fp("POST /a 1"))
	if got != IdempotencyReplay || e == nil || string(e.Body) != `{"id":"x"}` || e.Status != 201 {
		t.Errorf("completed: %v %+v", got, e)
	}
	s.Clock().Advance(IdempotencyRetention)
	if got, _ := a.BeginIdempotent("k", fp("POST /a 2")); got != IdempotencyProceed {
		t.Errorf("after retention even another request proceeds: %v", got)
	}
}

// Expired keys are swept once the map reaches its sweep size, and replays still work between
// sweeps.
func TestIdempotencySweep(t *testing.T) {
	t.Parallel()
	clk, start, a := frozenAccount()
	for i := range 4095 {
		storeAnswer(t, a, "k"+strconv.Itoa(i), []byte("{}"))
	}
	if out, _ := a.BeginIdempotent("k7", fp("fp")); out != IdempotencyReplay {
		t.Fatalf("replay: %v", out)
	}
	clk.Set(start.Add(IdempotencyRetention + time.Hour))
	if out, _ := a.BeginIdempotent("fresh", fp("fp")); out != IdempotencyProceed {
		t.Fatalf("fresh key: %v", out)
	}
	if out, _ := a.BeginIdempotent("late", fp("fp")); out != IdempotencyProceed {
		t.Fatalf("late key: %v", out)
	}
	a.idemMu.Lock()
	n := len(a.idem.entries)
	a.idemMu.Unlock()
	if n != 2 {
		t.Fatalf("%d keys kept after the sweep, want 2", n)
	}
}

// The answer and its audit triple are sealed together and come back as they went in; the
// stored form holds neither in the clear.
func TestIdempotencyAnswerSealed(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("sealed")
	body := []byte(`{"firstName":"Zelda"}`)
	if out, _ := a.BeginIdempotent("k", fp("fp")); out != IdempotencyProceed {
		t.Fatal(out)
	}
	a.FinishIdempotent("k", http.StatusCreated, http.Header{"Content-Type": {"application/json"}}, body, "create", "patient", "pat_1")
	a.idemMu.Lock()
	for _, e := range a.idem.entries {
		if sealed := a.idem.arena.get(e.answer); len(sealed) == 0 || bytes.Contains(sealed, []byte("Zelda")) || bytes.Contains(sealed, []byte("pat_1")) {
			t.Error("the stored answer is in the clear")
		}
	}
	a.idemMu.Unlock()
	out, e := a.BeginIdempotent("k", fp("fp"))
	if out != IdempotencyReplay || !bytes.Equal(e.Body, body) || !slices.Equal(e.Audit, []string{"create", "patient", "pat_1"}) ||
		e.Status != http.StatusCreated || http.Header(e.Header).Get("Content-Type") != "application/json" {
		t.Fatalf("replay: %v %+v", out, e)
	}
}

func TestUnpackAnswerRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{nil, {0xff}, {0, 17}, {0, 1}, {0, 1, 5, 'a'}, {0, 2, 1, 'a', 0x80}, {1, 1, 'k'}, {0xff, 0xff, 0x03}} {
		if _, _, _, err := unpackAnswer(b); err == nil {
			t.Errorf("%v: accepted", b)
		}
	}
	header, body, audit, err := unpackAnswer(packAnswer(nil, []byte("{}"), nil))
	if err != nil || string(body) != "{}" || len(audit) != 0 || header == nil || len(header) != 0 {
		t.Errorf("no header, no audit: %v %q %v %v", header, body, audit, err)
	}
	h := http.Header{"Content-Type": {"application/problem+json"}, "Www-Authenticate": {"a", "b"}}
	header, _, _, err = unpackAnswer(packAnswer(h, nil, []string{"x"}))
	if err != nil || !reflect.DeepEqual(http.Header(header), h) {
		t.Errorf("header: %v %v", header, err)
	}
}

// A snapshot whose idempotency entry is not keyed by a digest is refused and changes nothing.
func TestImportRejectsBadIdempotencyEntry(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("import")
	if _, err := a.createPatient(patients.Patient{FirstName: "A", LastName: "B", Email: "a@b.example"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		`{"data":{},"idempotency":{"k":{"fingerprint":"` + strings.Repeat("0", 64) + `"}}}`,
		`{"data":{},"idempotency":{"` + strings.Repeat("0", 64) + `":{"fingerprint":"fp"}}}`,
		`{"data":{},"idempotency":{"` + strings.Repeat("z", 64) + `":{"fingerprint":"` + strings.Repeat("0", 64) + `"}}}`,
	} {
		if err := a.Import([]byte(doc)); err == nil {
			t.Errorf("%s: imported", doc)
		}
	}
	if n := a.data.Patients.len(); n != 1 {
		t.Errorf("%d patients after refused imports, want 1", n)
	}
}

// The sweep compacts the answer arena once most of it is dead, and the survivors still replay
// their own answers.
func TestIdempotencySweepCompactsAnswers(t *testing.T) {
	t.Parallel()
	clk, start, a := frozenAccount()
	finish := func(k string) { storeAnswer(t, a, k, []byte(`{"key":"`+k+`"}`)) }
	for i := range 4090 {
		finish("old" + strconv.Itoa(i))
	}
	before := a.idem.arena.size
	// The old keys expire; the claim that brings the map to 4,096 keys sweeps them, with
	// new0…new5 already stored (they must survive the compaction).
	clk.Set(start.Add(IdempotencyRetention + time.Minute))
	for i := range 100 {
		finish("new" + strconv.Itoa(i))
	}
	if after := a.idem.arena.size; after*10 > before {
		t.Errorf("arena %d bytes after the sweep, %d before: not compacted", after, before)
	}
	if n := len(a.idem.entries); n != 100 {
		t.Errorf("%d entries after the sweep, want 100", n)
	}
	for i := range 100 {
		k := "new" + strconv.Itoa(i)
		out, e := a.BeginIdempotent(k, fp("fp"))
		if out != IdempotencyReplay || string(e.Body) != `{"key":"`+k+`"}` || http.Header(e.Header).Get("Content-Type") != "application/json" {
			t.Fatalf("%s after compaction: %v %+v", k, out, e)
		}
	}
}

// frozenAccount is an account on a clock frozen at its start.
func frozenAccount() (*clock.Clock, time.Time, *Account) {
	clk := clock.New()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk.Set(start)
	return clk, start, New(Options{Clock: clk}).Account("acct")
}

// storeAnswer claims key and stores a 201 JSON answer for it.
func storeAnswer(t *testing.T, a *Account, key string, body []byte) {
	t.Helper()
	if out, _ := a.BeginIdempotent(key, fp("fp")); out != IdempotencyProceed {
		t.Fatalf("key %s: %v", key, out)
	}
	a.FinishIdempotent(key, http.StatusCreated, http.Header{"Content-Type": {"application/json"}}, body)
}

// fp is the digest of a request description, as the HTTP layer fingerprints requests.
func fp(request string) [sha256.Size]byte { return sha256.Sum256([]byte(request)) }
