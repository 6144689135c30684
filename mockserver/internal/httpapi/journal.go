package httpapi

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// JournalEntry is one journalled request. Bodies, the Authorization header and query values
// are never stored (they may carry credentials or PHI): only query parameter names.
type JournalEntry struct {
	// At is when the request arrived, on its account's clock (millisecond precision).
	At        time.Time `json:"at"`
	RequestID string    `json:"requestId"`
	Method    string    `json:"method"`
	// Path keeps route words and well-formed ids; any other segment is "{redacted}".
	Path        string   `json:"path"`
	QueryParams []string `json:"queryParams"`
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
}

// journal keeps the latest entries per account in rings of a fixed size, so one busy account
// never evicts another's entries.
type journal struct {
	mu        sync.Mutex
	size      int    // <= 0: off
	seq       uint64 // orders entries across accounts
	byAccount map[string]*ring
}

type ring struct {
	entries []journalled
	next    int // the oldest entry once full
}

// journalled is an entry with its place in the server-wide order.
type journalled struct {
	JournalEntry
	seq uint64
}

func (j *journal) add(e JournalEntry) {
	if j.size <= 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	r := j.byAccount[e.Account]
	if r == nil {
		if j.byAccount == nil {
			j.byAccount = map[string]*ring{}
		}
		r = &ring{}
		j.byAccount[e.Account] = r
	}
	if len(r.entries) < j.size {
		r.entries = append(r.entries, journalled{e, j.seq})
		return
	}
	r.entries[r.next] = journalled{e, j.seq}
	r.next = (r.next + 1) % j.size
}

// list returns the account's entries ("" = every request, whatever its account), newest last.
func (j *journal) list(account string) []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var kept []journalled
	for acct, r := range j.byAccount {
		if account == "" || acct == account {
			kept = append(kept, r.entries[r.next:]...)
			kept = append(kept, r.entries[:r.next]...)
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

// Requests returns the journal of an account ("" = all), newest last.
func (a *API) Requests(account string) []JournalEntry { return a.requests.list(account) }
