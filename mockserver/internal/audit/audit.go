// Package audit is the mock server's audit log (contract §10): append-only, hash-chained per
// account, so any edit, removal or reordering of an event breaks verification.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"
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
// encoding/json would escape go through it, so the bytes are exactly its output.
func computeSum(e *Event, prevHash string) [sha256.Size]byte {
	var buf [512]byte
	b := append(buf[:0], prevHash...)
	b = append(b, `{"action":`...)
	b = appendJSONString(b, e.Action)
	b = append(b, `,"actor":`...)
	b = appendJSONString(b, e.Actor)
	b = append(b, `,"at":"`...)
	b = e.At.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, `","id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"ip":`...)
	b = appendJSONString(b, e.IP)
	b = append(b, `,"outcome":`...)
	b = appendJSONString(b, e.Outcome)
	b = append(b, `,"prevHash":`...)
	b = appendJSONString(b, prevHash)
	b = append(b, `,"requestId":`...)
	b = appendJSONString(b, e.RequestID)
	b = append(b, `,"resourceId":`...)
	b = appendJSONString(b, e.ResourceID)
	b = append(b, `,"resourceType":`...)
	b = appendJSONString(b, e.ResourceType)
	b = append(b, '}')
	return sha256.Sum256(b)
}

// appendJSONString appends s as encoding/json writes it: printable ASCII other than the quote,
// backslash, '<', '>' and '&' is copied; anything else takes the slow path through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
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
// Every event is kept (the chain is verifiable from the genesis hash), in a compact form: the
// hash as 32 bytes rather than 64 hex digits, no prevHash (it is the previous event's hash),
// the time as Unix seconds, and the few distinct actors, addresses, actions, resource types and
// outcomes interned. Events rebuilds the full records.
type Log struct {
	mu      sync.Mutex
	chains  map[string]*chain
	strings map[string]string // interned low-cardinality values
}

// chain is one account's events and the hex hash of the newest (the next event's prevHash).
type chain struct {
	entries []entry
	lastHex string
}

// entry is an event as the log stores it.
type entry struct {
	id, requestID                            compactID
	resourceID                               string
	actor, action, resourceType, ip, outcome string // interned
	at                                       int64  // Unix seconds, UTC
	hash                                     [sha256.Size]byte
}

// compactID holds an id of the server's form, prefix + "_" + 32 lowercase hex digits, as the 16
// bytes the digits spell (the prefix is the field's: aud, req); any other id as is.
type compactID struct {
	raw   [16]byte
	other string
	isRaw bool
}

func compact(prefix, id string) compactID {
	hexPart, ok := strings.CutPrefix(id, prefix+"_")
	if !ok || len(hexPart) != 32 || strings.ToLower(hexPart) != hexPart {
		return compactID{other: id}
	}
	var c compactID
	if _, err := hex.Decode(c.raw[:], []byte(hexPart)); err != nil {
		return compactID{other: id}
	}
	c.isRaw = true
	return c
}

func (c compactID) string(prefix string) string {
	if !c.isRaw {
		return c.other
	}
	return prefix + "_" + hex.EncodeToString(c.raw[:])
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{chains: map[string]*chain{}, strings: map[string]string{}} }

// intern returns the log's copy of s, so that repeated values share one string; the caller holds
// l.mu. The set stays small: credential ids, client addresses and a few constants.
func (l *Log) intern(s string) string {
	if v, ok := l.strings[s]; ok {
		return v
	}
	s = strings.Clone(s)
	l.strings[s] = s
	return s
}

// Append links e into account's chain (setting PrevHash and Hash) and returns it.
func (l *Log) Append(account string, e Event) Event {
	e.At = e.At.UTC().Truncate(time.Second)
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
	c.entries = append(c.entries, entry{
		id: compact("aud", e.ID), resourceID: e.ResourceID, requestID: compact("req", e.RequestID),
		actor: l.intern(e.Actor), action: l.intern(e.Action), resourceType: l.intern(e.ResourceType),
		ip: l.intern(e.IP), outcome: l.intern(e.Outcome), at: e.At.Unix(), hash: sum,
	})
	return e
}

// Events returns a copy of account's chain, oldest first.
func (l *Log) Events(account string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var entries []entry
	if c := l.chains[account]; c != nil {
		entries = c.entries
	}
	out := make([]Event, len(entries))
	prev := GenesisHash
	for i, en := range entries {
		h := hex.EncodeToString(en.hash[:])
		out[i] = Event{
			ID: en.id.string("aud"), At: time.Unix(en.at, 0).UTC(), Actor: en.actor, Action: en.action, ResourceType: en.resourceType,
			ResourceID: en.resourceID, RequestID: en.requestID.string("req"), IP: en.ip, Outcome: en.outcome, PrevHash: prev, Hash: h,
		}
		prev = h
	}
	return out
}
