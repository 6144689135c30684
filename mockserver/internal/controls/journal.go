package controls

import (
	"cmp"
	linked "container/list"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// JournalEntry is one journalled request. Bodies, the Authorization header, query values and
// idempotency keys are never stored (they may carry credentials or PHI): only the names of the
// query parameters the route knows, and a digest of the key. An entry is at most 4 KiB
// (docs/protocol.md §13): its path is cut to MaxJournalPath bytes and its parameter names are
// the route's.
type JournalEntry struct {
	// At is when the request arrived, on its account's clock (millisecond precision).
	At        time.Time `json:"at"`
	RequestID string    `json:"requestId"`
	Method    string    `json:"method"`
	// Path keeps route words and well-formed ids; any other segment is "{redacted}". Cut to
	// MaxJournalPath bytes.
	Path string `json:"path"`
	// QueryParams are the names of the query parameters the route knows, sorted; the name of
	// any other parameter is not kept: "other" stands (once) for them all.
	QueryParams []string `json:"queryParams"`
	// Status is the answer's status; 0 when the connection was dropped.
	Status     int     `json:"status"`
	DurationMs float64 `json:"durationMs"`
	// Account and CredentialID are empty for requests without a known credential.
	Account      string `json:"account,omitempty"`
	CredentialID string `json:"credentialId,omitempty"`
	// IdempotencyKey is a digest of a POST's Idempotency-Key (16 hex digits, salted per server):
	// equal keys show equal digests, the key itself is never kept.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// Fault says what an injected fault did: "status", "drop", "delay", or with afterCommit
	// "status-after-commit", "drop-after-commit".
	Fault string `json:"fault,omitempty"`
	// Stub is the id of the stub that answered the request (POST /__admin/stubs), if one did.
	Stub string `json:"stub,omitempty"`
}

// Journal bounds (RELIABILITY.md "Bounds").
const (
	// MaxJournalPath bounds an entry's path, in bytes.
	MaxJournalPath = 1024
	// DefaultJournalAccounts is how many accounts' journals memory keeps: past it, the journal
	// of the account that was least recently active goes.
	DefaultJournalAccounts = 1_000
	// DefaultJournalTotal bounds the entries of all accounts together: past it, the oldest entry
	// of the account that was least recently active goes.
	DefaultJournalTotal = 200_000
)

// Journal keeps the latest entries per account in rings of a fixed size, so one busy account
// never evicts another's entries; the accounts' rings are ordered by activity, so that the
// bounds on accounts and on entries in all evict from the least recently active.
type Journal struct {
	mu        sync.Mutex
	size      int    // per account; <= 0: off
	accounts  int    // rings kept at most (0: DefaultJournalAccounts)
	total     int    // entries kept at most (0: DefaultJournalTotal)
	seq       uint64 // orders entries across accounts
	entries   int    // entries in all rings
	byAccount map[string]*linked.Element
	activity  linked.List // of *ring, most recently active first
	salt      [32]byte    // keys the digests of idempotency keys (KeyDigest), drawn once per server
}

// ring is one account's entries, oldest first from head.
type ring struct {
	account string
	entries []journalled // capacity: the journal's size
	head, n int
}

// journalled is an entry with its place in the server-wide order.
type journalled struct {
	JournalEntry
	seq uint64
}

func (r *ring) at(i int) *journalled { return &r.entries[(r.head+i)%len(r.entries)] }

// push adds e as the newest entry and reports whether the oldest went to make room (the ring
// holds size entries).
func (r *ring) push(e journalled, size int) (dropped bool) {
	if r.n == len(r.entries) && len(r.entries) < size {
		if r.head != 0 { // entries were dropped from the front: make the ring a slice again
			r.entries = slices.Concat(r.entries[r.head:], r.entries[:r.head])
			r.head = 0
		}
		r.entries = append(r.entries, e)
		r.n++
		return false
	}
	if r.n == len(r.entries) {
		*r.at(0) = e // overwrite the oldest
		r.head = (r.head + 1) % len(r.entries)
		return true
	}
	*r.at(r.n) = e
	r.n++
	return false
}

func (r *ring) dropOldest() {
	*r.at(0) = journalled{}
	r.head = (r.head + 1) % len(r.entries)
	r.n--
}

// Add keeps e as its account's newest entry.
func (j *Journal) Add(e JournalEntry) {
	if j.size <= 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	el := j.byAccount[e.Account]
	if el == nil {
		if j.byAccount == nil {
			j.byAccount = map[string]*linked.Element{}
		}
		el = j.activity.PushFront(&ring{account: e.Account})
		j.byAccount[e.Account] = el
	} else {
		j.activity.MoveToFront(el)
	}
	if !el.Value.(*ring).push(journalled{e, j.seq}, j.size) {
		j.entries++
	}
	for j.activity.Len() > cmp.Or(j.accounts, DefaultJournalAccounts) {
		j.forget(j.activity.Back())
	}
	for j.entries > cmp.Or(j.total, DefaultJournalTotal) {
		back := j.activity.Back()
		r := back.Value.(*ring)
		r.dropOldest()
		j.entries--
		if r.n == 0 {
			j.forget(back)
		}
	}
}

// forget drops an account's journal; the caller holds j.mu.
func (j *Journal) forget(el *linked.Element) {
	r := j.activity.Remove(el).(*ring)
	delete(j.byAccount, r.account)
	j.entries -= r.n
}

// Counts returns how many accounts have a journal and how many entries they hold in all.
func (j *Journal) Counts() (accounts, entries int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.activity.Len(), j.entries
}

// List returns the account's entries ("" = every request, whatever its account), newest last.
func (j *Journal) List(account string) []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var kept []journalled
	for acct, el := range j.byAccount {
		if account == "" || acct == account {
			r := el.Value.(*ring)
			for i := range r.n {
				kept = append(kept, *r.at(i))
			}
		}
	}
	if account == "" {
		slices.SortFunc(kept, func(a, b journalled) int { return cmp.Compare(a.seq, b.seq) })
	}
	out := make([]JournalEntry, len(kept))
	for i, e := range kept {
		out[i] = e.JournalEntry
		out[i].QueryParams = slices.Clone(e.QueryParams)
	}
	return out
}

// Cut returns s cut to at most n bytes, on a UTF-8 boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// MethodName is a method as the journal keeps it: the constant for a standard method, else a
// copy cut to 32 bytes.
func MethodName(m string) string {
	for _, std := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut,
		http.MethodHead, http.MethodOptions} {
		if m == std {
			return std
		}
	}
	return strings.Clone(Cut(m, 32))
}

// KeyDigest is what the journal keeps of an Idempotency-Key: 16 hex digits of an HMAC-SHA-256
// under a key drawn once per server, so equal keys match within one server and the key cannot be
// read back or tried against another server's journal.
func (j *Journal) KeyDigest(key string) string {
	m := hmac.New(sha256.New, j.salt[:])
	m.Write([]byte(key))
	return hex.EncodeToString(m.Sum(nil)[:8])
}
