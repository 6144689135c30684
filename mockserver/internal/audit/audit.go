// Package audit is the mock server's audit log (contract §10): append-only, hash-chained per
// account, so any edit, removal or reordering of an event breaks verification.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
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

// canonical is an event without its hash, fields declared in sorted key order, so that
// encoding/json writes the canonical form (keys sorted, no whitespace) without a map to sort.
type canonical struct {
	Action       string `json:"action"`
	Actor        string `json:"actor"`
	At           string `json:"at"`
	ID           string `json:"id"`
	IP           string `json:"ip"`
	Outcome      string `json:"outcome"`
	PrevHash     string `json:"prevHash"`
	RequestID    string `json:"requestId"`
	ResourceID   string `json:"resourceId"`
	ResourceType string `json:"resourceType"`
}

// ComputeHash is hex SHA-256 of e.PrevHash followed by the canonical JSON of e without hash:
// keys sorted, no whitespace, `at` in RFC 3339 UTC at second precision.
func ComputeHash(e Event) string {
	b, _ := json.Marshal(canonical{ // a struct of strings always encodes
		Action: e.Action, Actor: e.Actor, At: e.At.UTC().Format(time.RFC3339), ID: e.ID, IP: e.IP,
		Outcome: e.Outcome, PrevHash: e.PrevHash, RequestID: e.RequestID, ResourceID: e.ResourceID, ResourceType: e.ResourceType,
	})
	h := sha256.New()
	h.Write([]byte(e.PrevHash))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
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
type Log struct {
	mu     sync.Mutex
	chains map[string][]Event
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{chains: map[string][]Event{}} }

// Append links e into account's chain (setting PrevHash and Hash) and returns it.
func (l *Log) Append(account string, e Event) Event {
	e.At = e.At.UTC().Truncate(time.Second)
	l.mu.Lock()
	defer l.mu.Unlock()
	chain := l.chains[account]
	e.PrevHash = GenesisHash
	if n := len(chain); n > 0 {
		e.PrevHash = chain[n-1].Hash
	}
	e.Hash = ComputeHash(e)
	l.chains[account] = append(chain, e)
	return e
}

// Events returns a copy of account's chain, oldest first.
func (l *Log) Events(account string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.chains[account])
	if out == nil {
		out = []Event{}
	}
	return out
}
