package mockserver

import (
	"errors"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
)

// AuditEvent is one entry of an account's hash-chained audit log (docs/protocol.md §10): every
// request that read or wrote a record, and every denied request (401, 403).
type AuditEvent struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
	// Actor is the credential's id (key_… or an OAuth client id); empty for unknown credentials.
	Actor string `json:"actor"`
	// Action is list, read, create, update or delete.
	Action string `json:"action"`
	// ResourceType is singular: patient, appointment, invoice, …
	ResourceType string `json:"resourceType"`
	// ResourceID is the record's id; a denied request's path segment is kept only when it has
	// the shape of a server id. Empty for lists, and for every anonymous event (null in JSON).
	ResourceID string `json:"resourceId"`
	RequestID  string `json:"requestId"`
	IP         string `json:"ip"`
	// Path is set on anonymous events only (AnonymousAudit): the request path, route words and
	// well-formed ids kept, anything else "{redacted}", cut to 256 bytes; never a query.
	Path string `json:"path,omitempty"`
	// Outcome is success or denied.
	Outcome string `json:"outcome"`
	// PrevHash is the previous event's Hash (64 zeros for the first); Hash is the hex SHA-256
	// of PrevHash followed by the event's canonical JSON without hash.
	PrevHash string `json:"prevHash"`
	Hash     string `json:"hash"`
}

// MarshalJSON writes the event as the admin surface does (resourceId null on an anonymous event).
func (e AuditEvent) MarshalJSON() ([]byte, error) { return audit.Event(e).MarshalJSON() }

// AnonymousAudit names the audit chain of denied requests that had no valid credential (they
// belong to no account): a ring of the newest 10,000, in memory only. AuditEvents and AuditLog
// take it (or "") as the account.
const AnonymousAudit = "_anonymous"

// AuditCheckpoint stands for the events of a chain that left memory (audit retention,
// WithAuditRetention): how many, and the hash of the last of them, which the first event kept
// has as its PrevHash. Nothing dropped: 0 and 64 zeros.
type AuditCheckpoint struct {
	Dropped int64  `json:"dropped"`
	Hash    string `json:"hash"`
}

// AuditPage is a run of a chain's events, oldest first, as GET /__admin/audit-events answers it.
type AuditPage struct {
	Events []AuditEvent `json:"events"`
	// Verified says the events form an intact chain linked to their predecessor: the checkpoint
	// (AuditLog), or the event the page follows (AuditEventsAfter).
	Verified bool `json:"verified"`
	// FirstBroken is the id of the first event that does not follow its predecessor, when
	// Verified is false.
	FirstBroken string          `json:"firstBroken,omitempty"`
	Checkpoint  AuditCheckpoint `json:"checkpoint"`
	// HasMore says events follow the last one (AuditEventsAfter).
	HasMore bool `json:"hasMore"`
}

// ErrAuditEventNotFound is returned by AuditEventsAfter for an event id the server does not hold.
var ErrAuditEventNotFound = errors.New("mockserver: no such audit event")

// AuditZeroID pages from the start of a chain (AuditEventsAfter).
const AuditZeroID = "aud_00000000000000000000000000000000"

// AuditEvents returns the events of account's audit log kept in memory (the newest; see
// WithAuditRetention), oldest first. Account "" (or AnonymousAudit) is the ring of denied
// requests whose credentials were unknown.
func (s *Server) AuditEvents(account string) []AuditEvent {
	return publicEvents(s.admin.AuditEvents(account))
}

// AuditLog returns account's audit events kept in memory with the checkpoint of those that left
// and whether they verify from it.
func (s *Server) AuditLog(account string) AuditPage {
	if account == "" {
		account = AnonymousAudit
	}
	return publicPage(s.api.Audit().Kept(account))
}

// AuditEventsAfter returns up to 1,000 events of account's chain that follow the event with id
// after (AuditZeroID: from the start), oldest first: from memory, or from the account's audit
// file under a data directory (WithDataDir), so every event can be read however many left
// memory. An id the server does not hold is ErrAuditEventNotFound.
func (s *Server) AuditEventsAfter(account, after string) (AuditPage, error) {
	if account == "" {
		account = AnonymousAudit
	}
	p, err := s.api.Audit().After(account, after)
	if errors.Is(err, audit.ErrNotFound) {
		return AuditPage{}, ErrAuditEventNotFound
	}
	if err != nil {
		return AuditPage{}, err
	}
	return publicPage(p), nil
}

func publicEvents(events []audit.Event) []AuditEvent {
	out := make([]AuditEvent, len(events))
	for i, e := range events {
		out[i] = AuditEvent(e)
	}
	return out
}

func publicPage(p audit.Page) AuditPage {
	return AuditPage{Events: publicEvents(p.Events), Verified: p.Verified, FirstBroken: p.FirstBroken, Checkpoint: AuditCheckpoint(p.Checkpoint), HasMore: p.HasMore}
}

// VerifyAuditChain reports whether events (as AuditEvents returns them) form an intact hash
// chain from the start: any edited, dropped or reordered event makes it false. Once events have
// left memory, use VerifyAuditChainFrom with the checkpoint's hash.
func VerifyAuditChain(events []AuditEvent) bool {
	return VerifyAuditChainFrom(audit.GenesisHash, events)
}

// VerifyAuditChainFrom reports whether events form an intact hash chain whose first event follows
// the event with hash prev (an AuditCheckpoint's Hash, or the last event of the previous page).
func VerifyAuditChainFrom(prev string, events []AuditEvent) bool {
	in := make([]audit.Event, len(events))
	for i, e := range events {
		in[i] = audit.Event(e)
	}
	return audit.VerifyFrom(prev, in)
}
