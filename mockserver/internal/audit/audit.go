// Package audit is the mock server's audit log (docs/protocol.md §10): append-only, hash-chained per
// account, so any edit, removal or reordering of an event breaks verification. Memory keeps the
// newest events of each chain (retention); the events that left memory are stood for by the
// chain's checkpoint, and under a data directory every event is also in the account's audit file
// (file.go), written before the request that caused it is answered.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/jsonx"
)

// Outcomes of an audited request.
const (
	Success = "success"
	Denied  = "denied"
)

// Anonymous is the chain of denials of requests with no valid credential (they belong to no
// account): a bounded ring, in memory only (docs/protocol.md §10).
const Anonymous = "_anonymous"

// GenesisHash is the prevHash of an account's first event.
var GenesisHash = strings.Repeat("0", 64)

// ZeroID is the id that pages from the start of a chain (GET /__admin/audit-events?after=).
var ZeroID = "aud_" + strings.Repeat("0", 32)

// Event is one audit record.
type Event struct {
	ID           string    `json:"id"`
	At           time.Time `json:"at"`
	Actor        string    `json:"actor"`
	Action       string    `json:"action"`
	ResourceType string    `json:"resourceType"`
	ResourceID   string    `json:"resourceId"`
	RequestID    string    `json:"requestId"`
	IP           string    `json:"ip"`
	// Path is set on events of the Anonymous chain only: the request path (no query), at most
	// MaxPathBytes. Such an event has no resource id: resourceId is null in its JSON.
	Path     string `json:"path,omitempty"`
	Outcome  string `json:"outcome"`
	PrevHash string `json:"prevHash"`
	Hash     string `json:"hash"`
}

// MaxPathBytes bounds an anonymous event's path (docs/protocol.md §10).
const MaxPathBytes = 256

// anonymous reports whether e is an event of the Anonymous chain (it carries a path).
func (e *Event) anonymous() bool { return e.Path != "" }

// MarshalJSON writes the event as the admin surface answers it: resourceId null on an anonymous
// event, path only there.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	v := struct {
		plain
		ResourceID *string `json:"resourceId"`
	}{plain: plain(e)}
	if !e.anonymous() {
		v.ResourceID = &e.ResourceID
	}
	return json.Marshal(v)
}

// ComputeHash is hex SHA-256 of e.PrevHash followed by the canonical JSON of e without hash:
// keys sorted, no whitespace, `at` in RFC 3339 UTC at second precision.
func ComputeHash(e Event) string {
	sum := computeSum(&e, e.PrevHash)
	return hex.EncodeToString(sum[:])
}

// computeSum is ComputeHash's digest with prevHash given apart (the log stores events without
// it). The canonical JSON is appended to a stack buffer in the field order of canonical; values
// encoding/json would escape go through it, so the bytes are exactly its output. A fenced
// optimisation kept by BenchmarkFenceAuditHash (BENCHMARKS.md).
func computeSum(e *Event, prevHash string) [sha256.Size]byte {
	var buf [512]byte
	b := append(buf[:0], prevHash...)
	var quoted [2*sha256.Size + 2]byte
	return canonicalSum(b, e, jsonx.String(quoted[:0], prevHash))
}

// computeSumHex is computeSum for a prevHash held as hex digits (the log's chains), which JSON
// needs no escaping for.
func computeSumHex(e *Event, prevHex *[2 * sha256.Size]byte) [sha256.Size]byte {
	var buf [512]byte
	b := append(buf[:0], prevHex[:]...)
	var quoted [2*sha256.Size + 2]byte
	q := append(quoted[:0], '"')
	q = append(q, prevHex[:]...)
	return canonicalSum(b, e, append(q, '"'))
}

// canonicalSum appends e's canonical JSON to b (which holds prevHash), with prevJSON as the
// prevHash member's value, and returns the SHA-256 of the whole.
func canonicalSum(b []byte, e *Event, prevJSON []byte) [sha256.Size]byte {
	b = append(b, `{"action":`...)
	b = jsonx.String(b, e.Action)
	b = append(b, `,"actor":`...)
	b = jsonx.String(b, e.Actor)
	b = append(b, `,"at":"`...)
	b = e.At.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, `","id":`...)
	b = jsonx.String(b, e.ID)
	b = append(b, `,"ip":`...)
	b = jsonx.String(b, e.IP)
	b = append(b, `,"outcome":`...)
	b = jsonx.String(b, e.Outcome)
	if e.anonymous() {
		b = append(b, `,"path":`...)
		b = jsonx.String(b, e.Path)
	}
	b = append(b, `,"prevHash":`...)
	b = append(b, prevJSON...)
	b = append(b, `,"requestId":`...)
	b = jsonx.String(b, e.RequestID)
	b = append(b, `,"resourceId":`...)
	if e.anonymous() {
		b = append(b, "null"...)
	} else {
		b = jsonx.String(b, e.ResourceID)
	}
	b = append(b, `,"resourceType":`...)
	b = jsonx.String(b, e.ResourceType)
	b = append(b, '}')
	return sha256.Sum256(b)
}

// Verify reports whether events form an intact chain from the genesis hash.
func Verify(events []Event) bool { return VerifyFrom(GenesisHash, events) }

// VerifyFrom reports whether events form an intact chain whose first event follows the event
// with hash prev (a checkpoint's hash, or the event a page follows).
func VerifyFrom(prev string, events []Event) bool {
	for _, e := range events {
		if !follows(prev, e) {
			return false
		}
		prev = e.Hash
	}
	return true
}

// FirstBroken returns the id of the first of events that does not follow its predecessor
// (prev for the first), or "" when they all do.
func FirstBroken(prev string, events []Event) string {
	for _, e := range events {
		if !follows(prev, e) {
			return e.ID
		}
		prev = e.Hash
	}
	return ""
}

// follows reports whether e links to the event with hash prev and its own hash recomputes.
func follows(prev string, e Event) bool {
	if e.PrevHash != prev || ComputeHash(e) != e.Hash {
		return false
	}
	return true
}

// Checkpoint stands for the events of a chain that left memory (docs/protocol.md §10): how many,
// and the hash of the last of them, which the first event kept has as its prevHash. Nothing
// dropped: 0 and GenesisHash.
type Checkpoint struct {
	Dropped int64  `json:"dropped"`
	Hash    string `json:"hash"`
}

// Page is a run of a chain's events, oldest first, as GET /__admin/audit-events answers it.
type Page struct {
	Events []Event `json:"events"`
	// Verified says the events form an intact chain linked to their predecessor (the checkpoint,
	// or the event the page follows).
	Verified bool `json:"verified"`
	// FirstBroken is the id of the first event that does not follow its predecessor (its
	// prevHash differs, or its hash does not recompute), when Verified is false.
	FirstBroken string     `json:"firstBroken,omitempty"`
	Checkpoint  Checkpoint `json:"checkpoint"`
	// HasMore says events follow the last one (paging with After).
	HasMore bool `json:"hasMore"`
}
