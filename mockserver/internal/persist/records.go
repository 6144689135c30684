package persist

import (
	"encoding/json"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Format names the layout of the data directory's log and snapshot records.
const Format = "medspa-mock-data/2"

// The log holds records of these types (record.T), one JSON object each. A compaction's
// snapshot writes header, clock, cred, oauth, account, rows, pending, snapname and end records:
// the whole state, per entity, in pieces of bounded size. Between snapshots the log holds tx,
// replace, cred, oauth, clock and snapname records, one per committed change, in commit order
// per account (and per registry).
const (
	recHeader   = "header"   // snapshot: format, PHI key check, id generator; the snapshot's first record
	recSnapEnd  = "end"      // snapshot: its last record (records of other types are in both)
	recAccount  = "account"  // snapshot: an account, the number of its last change, its own clock
	recRows     = "rows"     // snapshot: a chunk of an account's records of one kind (store.RowChunk)
	recPending  = "pending"  // snapshot: an account's pending webhook deliveries
	recTx       = "tx"       // a committed change of an account's data (store.Change)
	recReplace  = "replace"  // an account's state replaced (reset, import, restored snapshot)
	recCred     = "cred"     // an API key's state (auth.CredentialState)
	recOAuth    = "oauth"    // OAuth clients, codes, tokens, families (auth.OAuthRecord)
	recClock    = "clock"    // the server's clock, or an account's own (or its return to the server's)
	recSnapname = "snapname" // a named snapshot saved (file) or dropped
)

// record is one record of the log or of a snapshot: T says which fields it uses.
type record struct {
	T string `json:"t"`
	// A is the account (every account-scoped type; for clock, "" is the server's clock).
	A string `json:"a,omitempty"`

	// tx and replace: the change's number, writes, events and idempotency claim (store.Change).
	Seq      uint64              `json:"seq,omitempty"`
	W        []store.LoggedWrite `json:"w,omitempty"`
	Ev       []store.Event       `json:"ev,omitempty"`
	Claim    string              `json:"claim,omitempty"`
	Resolved string              `json:"resolved,omitempty"`
	// replace: the new state inline, or the snapshot file holding it (File), or neither (empty).
	State json.RawMessage `json:"state,omitempty"`
	File  string          `json:"file,omitempty"`

	// rows: the kind and the JSON array of records.
	Kind string          `json:"k,omitempty"`
	Rows json.RawMessage `json:"rows,omitempty"`

	Cred    *auth.CredentialState `json:"cred,omitempty"`
	OAuth   []auth.OAuthRecord    `json:"oauth,omitempty"`
	Pending []webhook.Pending     `json:"pending,omitempty"`
	// clock and account: the clock's setting; nil with Own false: the account follows the
	// server's clock.
	Clock *clock.State `json:"clock,omitempty"`
	// snapname: the snapshot's name; File "" drops it.
	Name string `json:"name,omitempty"`

	// header.
	Format   string          `json:"format,omitempty"`
	KeyCheck string          `json:"keyCheck,omitempty"`
	IDs      json.RawMessage `json:"ids,omitempty"`
	SavedAt  time.Time       `json:"savedAt,omitzero"`
}

// AccountSnapshot is an account's whole state as a named snapshot holds it (docs/protocol.md
// §12, §13: "snapshots carry the whole account"): the store's state (data and idempotency
// entries), the account's own clock, its pending webhook deliveries and retries, the codes and
// tokens of its OAuth clients, and its audit chain (the events in memory and the checkpoint
// standing for the rest).
type AccountSnapshot struct {
	Format  string             `json:"format"`
	Store   json.RawMessage    `json:"store"`
	Clock   *clock.State       `json:"clock,omitempty"` // nil: the account follows the server's clock
	Pending []webhook.Pending  `json:"pending"`
	OAuth   []auth.OAuthRecord `json:"oauth"`
	Audit   *audit.State       `json:"audit,omitempty"`
}

// SnapshotFormat names the layout of AccountSnapshot.
const SnapshotFormat = "medspa-mock-account/2"
