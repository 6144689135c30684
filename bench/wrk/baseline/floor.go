package main

// The protocol floor (-floor): the baseline doing, for every request, only the work the mock's
// protocol requires of an authenticated read and nothing else, each piece in its cheapest plain
// form, written straight into the handler with no pipeline:
//
//   - the bearer credential looked up by its SHA-256 digest (keys are kept as digests);
//   - a token bucket under a mutex, and the five rate-limit headers;
//   - a request id and its X-Request-Id header;
//   - an audit event recorded before the answer: its canonical JSON hashed with SHA-256 onto the
//     previous event's hash, kept in a bounded ring;
//   - a journal entry in a bounded ring;
//   - a metadata log line, appended to a buffer written out 64 KiB at a time;
//   - the patient's PHI kept sealed with AES-GCM and opened for the answer;
//   - the answer encoded by hand into a pooled buffer (net/http adds its Content-Length).
//
// No implementation that keeps those guarantees on net/http can beat it by much: the gap
// between it and the plain server is the price of the protocol itself (bench/wrk/floor.sh,
// BENCHMARKS.md).

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// floorRing bounds the audit and journal rings.
const floorRing = 1 << 16

type floorEntry struct {
	method, path, requestID, account string
	status                           int
	at                               time.Time
	duration                         time.Duration
}

type floorEvent struct {
	id, requestID, resourceID string
	at                        int64
	hash                      [sha256.Size]byte
}

type floorServer struct {
	s     *store
	creds map[[sha256.Size]byte]string // token digest → account
	aead  cipher.AEAD
	phi   map[string][]byte // patient id → nonce ‖ sealed "first\x00last\x00email"

	mu     sync.Mutex // the token bucket
	tokens float64
	last   time.Time

	auditMu sync.Mutex
	events  []floorEvent
	prev    [sha256.Size]byte
	seq     uint64

	requests atomic.Uint64 // request ids

	journalMu sync.Mutex
	journal   []floorEntry
	jn        int

	logMu  sync.Mutex
	logBuf []byte
	logOut io.Writer
}

// Header values that never change, shared by every answer (net/http copies them before writing).
var (
	floorJSON   = []string{"application/json"}
	floorPolicy = []string{`"burst";q=1000000000;w=60`}
	floorLimit  = []string{"1000000000"}
)

var floorBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func newFloor(s *store, token string, logOut io.Writer) *floorServer {
	key := make([]byte, 32)
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	f := &floorServer{s: s, creds: map[[sha256.Size]byte]string{sha256.Sum256([]byte(token)): "acct_floor"},
		logOut: logOut, aead: aead, phi: make(map[string][]byte, len(s.order)), tokens: 1e9, last: time.Now(),
		events: make([]floorEvent, 0, floorRing), journal: make([]floorEntry, floorRing)}
	for i, id := range s.order {
		p := s.byID[id]
		nonce := make([]byte, aead.NonceSize())
		binary.BigEndian.PutUint64(nonce, uint64(i+1))
		plain := []byte(p.FirstName + "\x00" + p.LastName + "\x00" + p.Email)
		f.phi[id] = aead.Seal(nonce, nonce, plain, []byte(id))
	}
	return f
}

// open returns a patient with its PHI opened from the sealed copy.
func (f *floorServer) open(p Patient, buf []byte) (Patient, []byte) {
	sealed := f.phi[p.ID]
	ns := f.aead.NonceSize()
	buf, err := f.aead.Open(buf[:0], sealed[:ns], sealed[ns:], []byte(p.ID))
	if err != nil {
		panic(err)
	}
	all := string(buf)
	p.FirstName, all, _ = strings.Cut(all, "\x00")
	p.LastName, p.Email, _ = strings.Cut(all, "\x00")
	return p, buf
}

func (f *floorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	account, known := f.creds[sha256.Sum256([]byte(tok))]
	if !ok || !known {
		writeJSON(w, http.StatusUnauthorized, apiError{"unauthorized", "missing or invalid bearer token"})
		return
	}
	f.mu.Lock()
	f.tokens = min(1e9, f.tokens+start.Sub(f.last).Seconds()*1e9/60)
	f.last = start
	f.tokens--
	remaining := int64(f.tokens)
	f.mu.Unlock()
	seq := f.requests.Add(1)
	var idb [16]byte
	binary.BigEndian.PutUint64(idb[:], uint64(start.UnixNano()))
	binary.BigEndian.PutUint64(idb[8:], seq)
	requestID := "req_" + hex.EncodeToString(idb[:])
	// The header values share one string and one array: two allocations for seven headers.
	var hb [128]byte
	b := append(hb[:0], `"burst";r=`...)
	b = strconv.AppendInt(b, remaining, 10)
	b = append(b, ";t=1"...)
	endLimit := len(b)
	b = strconv.AppendInt(b, start.Unix()+1, 10)
	all := string(b)
	vals := &[4]string{all[:endLimit], all[len(`"burst";r=`) : endLimit-len(";t=1")], all[endLimit:], requestID}
	h := w.Header()
	h["Content-Type"] = floorJSON
	h["Ratelimit"] = vals[0:1:1]
	h["Ratelimit-Policy"] = floorPolicy
	h["X-Ratelimit-Limit"] = floorLimit
	h["X-Ratelimit-Remaining"] = vals[1:2:2]
	h["X-Ratelimit-Reset"] = vals[2:3:3]
	h["X-Request-Id"] = vals[3:4:4]

	bp := floorBuffers.Get().(*[]byte)
	defer floorBuffers.Put(bp)
	var body []byte
	var resource string
	status := http.StatusOK
	if id := r.PathValue("id"); id != "" {
		resource = id
		f.s.mu.RLock()
		p, found := f.s.byID[id]
		f.s.mu.RUnlock()
		if !found {
			status = http.StatusNotFound
			body = append((*bp)[:0], `{"error":"not_found"}`...)
		} else {
			var plain [128]byte
			p, _ = f.open(p, plain[:0])
			body = appendPatient((*bp)[:0], p)
		}
	} else {
		page, ok1 := intParam(r, "page", 1, 1, 1<<30)
		perPage, ok2 := intParam(r, "perPage", 20, 1, 100)
		if !ok1 || !ok2 {
			writeJSON(w, http.StatusBadRequest, apiError{"bad_request", "invalid page or perPage"})
			return
		}
		f.s.mu.RLock()
		total := len(f.s.order)
		first := min((page-1)*perPage, total)
		ids := f.s.order[first:min(first+perPage, total)]
		body = append((*bp)[:0], `{"data":[`...)
		plain := make([]byte, 0, 128)
		for i, id := range ids {
			if i > 0 {
				body = append(body, ',')
			}
			var p Patient
			p, plain = f.open(f.s.byID[id], plain)
			body = appendPatient(body, p)
		}
		f.s.mu.RUnlock()
		body = append(body, `],"meta":{"total":`...)
		body = strconv.AppendInt(body, int64(total), 10)
		body = append(body, `,"page":`...)
		body = strconv.AppendInt(body, int64(page), 10)
		body = append(body, `,"perPage":`...)
		body = strconv.AppendInt(body, int64(perPage), 10)
		body = append(body, "}}"...)
	}
	f.audit(start, account, resource, requestID, r.RemoteAddr, status)
	w.WriteHeader(status)
	w.Write(body)
	*bp = body
	end := time.Now()
	f.journalMu.Lock()
	f.journal[f.jn%floorRing] = floorEntry{method: r.Method, path: strings.Clone(r.URL.Path), requestID: requestID,
		account: account, status: status, at: start, duration: end.Sub(start)}
	f.jn++
	f.journalMu.Unlock()
	f.log(r, end, end.Sub(start), status, requestID, account)
}

// audit records the access: canonical JSON hashed onto the previous event's hash.
func (f *floorServer) audit(at time.Time, actor, resource, requestID, ip string, status int) {
	bp := floorBuffers.Get().(*[]byte)
	defer floorBuffers.Put(bp)
	f.auditMu.Lock()
	defer f.auditMu.Unlock()
	f.seq++
	var idb [16]byte
	binary.BigEndian.PutUint64(idb[:], uint64(at.UnixNano()))
	binary.BigEndian.PutUint64(idb[8:], f.seq)
	id := "aud_" + hex.EncodeToString(idb[:])
	b := append((*bp)[:0], `{"action":"patient.read","actor":"`...)
	b = append(b, actor...)
	b = append(b, `","at":"`...)
	b = at.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, `","id":"`...)
	b = append(b, id...)
	b = append(b, `","ip":"`...)
	b = append(b, ip...)
	b = append(b, `","outcome":"`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `","prevHash":"`...)
	b = hex.AppendEncode(b, f.prev[:])
	b = append(b, `","requestId":"`...)
	b = append(b, requestID...)
	b = append(b, `","resourceId":"`...)
	b = append(b, resource...)
	b = append(b, `","resourceType":"patient"}`...)
	f.prev = sha256.Sum256(b)
	*bp = b
	e := floorEvent{id: id, requestID: requestID, resourceID: resource, at: at.Unix(), hash: f.prev}
	if len(f.events) < floorRing {
		f.events = append(f.events, e)
	} else {
		f.events[f.seq%floorRing] = e
	}
}

// log appends the request's metadata line, written out 64 KiB at a time.
func (f *floorServer) log(r *http.Request, end time.Time, d time.Duration, status int, requestID, account string) {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	b := append(f.logBuf, "time="...)
	b = end.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, " level=INFO msg=request method="...)
	b = append(b, r.Method...)
	b = append(b, " path="...)
	b = append(b, r.URL.Path...)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, " duration="...)
	b = strconv.AppendFloat(b, d.Seconds()*1e3, 'f', 3, 64)
	b = append(b, "ms"...)
	b = append(b, " request_id="...)
	b = append(b, requestID...)
	b = append(b, " account="...)
	b = append(b, account...)
	b = append(b, '\n')
	f.logBuf = b
	if len(b) >= 64<<10 {
		f.flushLogLocked()
	}
}

// flushLog writes out the lines the buffer holds.
func (f *floorServer) flushLog() {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	f.flushLogLocked()
}

func (f *floorServer) flushLogLocked() {
	_, _ = f.logOut.Write(f.logBuf) // a log that cannot be written does not fail the request
	f.logBuf = f.logBuf[:0]
}

func appendPatient(b []byte, p Patient) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, p.ID...)
	b = append(b, `","firstName":"`...)
	b = append(b, p.FirstName...)
	b = append(b, `","lastName":"`...)
	b = append(b, p.LastName...)
	b = append(b, `","email":"`...)
	b = append(b, p.Email...)
	b = append(b, `","createdAt":"`...)
	b = p.CreatedAt.AppendFormat(b, time.RFC3339)
	return append(b, `"}`...)
}
