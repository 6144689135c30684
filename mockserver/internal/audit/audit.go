// Package audit is the mock server's audit log (docs/protocol.md §10): append-only, hash-chained per
// account, so any edit, removal or reordering of an event breaks verification.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/jsonx"
)

// Outcomes of an audited request.
const (
	Success = "success"
	Denied  = "denied"
)

// GenesisHash is the prevHash of an account's first event.
var GenesisHash = strings.Repeat("0", 64)

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
	Outcome      string    `json:"outcome"`
	PrevHash     string    `json:"prevHash"`
	Hash         string    `json:"hash"`
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
	b = append(b, `,"prevHash":`...)
	b = jsonx.String(b, prevHash)
	b = append(b, `,"requestId":`...)
	b = jsonx.String(b, e.RequestID)
	b = append(b, `,"resourceId":`...)
	b = jsonx.String(b, e.ResourceID)
	b = append(b, `,"resourceType":`...)
	b = jsonx.String(b, e.ResourceType)
	b = append(b, '}')
	return sha256.Sum256(b)
}

// Verify reports whether events form an intact chain from the genesis hash.
func Verify(events []Event) bool {
	prev := GenesisHash
	for _, e := range events {
		if e.PrevHash != prev || ComputeHash(e) != e.Hash {
			return false
		}
		prev = e.Hash
	}
	return true
}

// Log holds one chain per account. It is safe for concurrent use.
//
// Its layout is a fenced optimisation (BENCHMARKS.md "Fenced optimisations") kept by
// BenchmarkFenceAuditLog. Every event is kept (the chain is verifiable from the genesis hash), in a compact form that
// holds no pointers, so the garbage collector never scans it however long the log grows: the
// hash as 32 bytes rather than 64 hex digits, no prevHash (it is the previous event's hash),
// the time as Unix seconds, ids of the server's form as their 16 bytes, and every other string
// (actors, addresses, actions, resource types, outcomes, ids of another form) as an index into
// the log's table of distinct strings. Events live in fixed-size chunks, so appending never
// copies the events already stored. Events rebuilds the full records.
type Log struct {
	mu      sync.Mutex
	chains  map[string]*chain
	symbols []string          // distinct strings, by index
	symbol  map[string]uint32 // string → index in symbols
}

// chunkEvents is the number of events per chunk: 1,024 × 128 B = 128 KiB.
const chunkEvents = 1024

// chain is one account's events and the hex hash of the newest (the next event's prevHash).
type chain struct {
	chunks  []*[chunkEvents]entry
	n       int // events in chain
	lastHex string
}

// entry is an event as the log stores it (no pointers).
type entry struct {
	id, requestID, resourceID                compactID
	actor, action, resourceType, ip, outcome uint32 // indexes into Log.symbols
	at                                       int64  // Unix seconds, UTC
	hash                                     [sha256.Size]byte
}

// compactID holds an id of the server's form (wire.WellFormedID: a prefix, "_", 32 lowercase hex
// digits) as the prefix's symbol and the 16 bytes the digits spell; any other id as the symbol
// of the whole.
type compactID struct {
	raw   [16]byte
	sym   uint32 // the prefix's symbol when isRaw, else the whole id's
	isRaw bool
}

// compact returns id's compact form; the caller holds l.mu.
func (l *Log) compact(id string) compactID {
	var c compactID
	if wire.WellFormedID(id) {
		prefix, hexPart, _ := strings.Cut(id, "_")
		if _, err := hex.Decode(c.raw[:], []byte(hexPart)); err == nil {
			c.sym, c.isRaw = l.intern(prefix), true
			return c
		}
	}
	return compactID{sym: l.intern(id)}
}

// string rebuilds the id; the caller holds l.mu.
func (l *Log) string(c compactID) string {
	if !c.isRaw {
		return l.symbols[c.sym]
	}
	var b [64]byte
	out := append(b[:0], l.symbols[c.sym]...)
	out = append(out, '_')
	out = hex.AppendEncode(out, c.raw[:])
	return string(out)
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{chains: map[string]*chain{}, symbol: map[string]uint32{}} }

// intern returns the index of s in the log's string table, adding it when new; the caller holds
// l.mu. The table stays small for API traffic: credential ids, client addresses, a few
// constants, and the odd id of another form from a denied request.
func (l *Log) intern(s string) uint32 {
	if i, ok := l.symbol[s]; ok {
		return i
	}
	s = strings.Clone(s)
	i := uint32(len(l.symbols))
	l.symbols = append(l.symbols, s)
	l.symbol[s] = i
	return i
}

// Append links e into account's chain (setting PrevHash and Hash) and returns it.
func (l *Log) Append(account string, e Event) Event {
	e.At = wire.Time(e.At)
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[account]
	if c == nil {
		c = &chain{lastHex: GenesisHash}
		l.chains[account] = c
	}
	e.PrevHash = c.lastHex
	sum := computeSum(&e, e.PrevHash)
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum[:])
	e.Hash = string(hx[:])
	c.lastHex = e.Hash
	if c.n%chunkEvents == 0 {
		c.chunks = append(c.chunks, new([chunkEvents]entry))
	}
	c.chunks[c.n/chunkEvents][c.n%chunkEvents] = entry{
		id: l.compact(e.ID), requestID: l.compact(e.RequestID), resourceID: l.compact(e.ResourceID),
		actor: l.intern(e.Actor), action: l.intern(e.Action), resourceType: l.intern(e.ResourceType),
		ip: l.intern(e.IP), outcome: l.intern(e.Outcome), at: e.At.Unix(), hash: sum,
	}
	c.n++
	return e
}

// Events returns a copy of account's chain, oldest first.
func (l *Log) Events(account string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[account]
	if c == nil {
		return []Event{}
	}
	out := make([]Event, c.n)
	prev := GenesisHash
	for i := range out {
		en := &c.chunks[i/chunkEvents][i%chunkEvents]
		h := hex.EncodeToString(en.hash[:])
		out[i] = Event{
			ID: l.string(en.id), At: time.Unix(en.at, 0).UTC(), Actor: l.symbols[en.actor], Action: l.symbols[en.action],
			ResourceType: l.symbols[en.resourceType], ResourceID: l.string(en.resourceID), RequestID: l.string(en.requestID),
			IP: l.symbols[en.ip], Outcome: l.symbols[en.outcome], PrevHash: prev, Hash: h,
		}
		prev = h
	}
	return out
}
