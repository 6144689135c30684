package httpapi

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// DefaultJournalSize is how many requests the journal keeps per account by default.
const DefaultJournalSize = 10_000

// JournalEntry is one journalled request. Bodies, the Authorization header and query values
// are never stored (they may carry credentials or PHI): only query parameter names.
type JournalEntry struct {
	// At is when the request arrived, on its account's clock (millisecond precision).
	At          time.Time `json:"at"`
	RequestID   string    `json:"requestId"`
	Method      string    `json:"method"`
	Path        string    `json:"path"`
	QueryParams []string  `json:"queryParams"`
	// Status is the answer's status; 0 when the connection was dropped.
	Status     int     `json:"status"`
	DurationMs float64 `json:"durationMs"`
	// Account and CredentialID are empty for requests without a known credential.
	Account        string `json:"account,omitempty"`
	CredentialID   string `json:"credentialId,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// Fault says what an injected fault did: "status", "drop", "delay", or with afterCommit
	// "status-after-commit", "drop-after-commit".
	Fault string `json:"fault,omitempty"`

	seq uint64
}

// journal keeps the latest entries per account in rings of a fixed size, so one busy account
// never evicts another's entries.
type journal struct {
	mu        sync.Mutex
	size      int // <= 0: off
	seq       uint64
	byAccount map[string]*ring
}

type ring struct {
	entries []JournalEntry
	next    int // the oldest entry once full
}

func (j *journal) add(e JournalEntry) {
	if j.size <= 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.seq = j.seq
	r := j.byAccount[e.Account]
	if r == nil {
		r = &ring{}
		j.byAccount[e.Account] = r
	}
	if len(r.entries) < j.size {
		r.entries = append(r.entries, e)
		return
	}
	r.entries[r.next] = e
	r.next = (r.next + 1) % j.size
}

// list returns the account's entries ("" = every request, whatever its account), newest last.
func (j *journal) list(account string) []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []JournalEntry{}
	for acct, r := range j.byAccount {
		if account == "" || acct == account {
			out = append(out, r.entries[r.next:]...)
			out = append(out, r.entries[:r.next]...)
		}
	}
	if account == "" {
		slices.SortFunc(out, func(a, b JournalEntry) int { return cmp.Compare(a.seq, b.seq) })
	}
	for i := range out {
		out[i].QueryParams = slices.Clone(out[i].QueryParams)
	}
	return out
}

// Requests returns the journal of an account ("" = all), newest last.
func (a *API) Requests(account string) []JournalEntry { return a.tools.journal.list(account) }
