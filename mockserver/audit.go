package mockserver

import (
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
	ResourceID   string `json:"resourceId"`
	RequestID    string `json:"requestId"`
	IP           string `json:"ip"`
	// Outcome is success or denied.
	Outcome string `json:"outcome"`
	// PrevHash is the previous event's Hash (64 zeros for the first); Hash is the hex SHA-256
	// of PrevHash followed by the event's canonical JSON without hash.
	PrevHash string `json:"prevHash"`
	Hash     string `json:"hash"`
}

// AuditEvents returns account's audit log, oldest first. Account "" is the server-level chain
// of denied requests whose credentials were unknown (they belong to no account).
func (s *Server) AuditEvents(account string) []AuditEvent {
	events := s.api.AuditEvents(account)
	out := make([]AuditEvent, len(events))
	for i, e := range events {
		out[i] = AuditEvent(e)
	}
	return out
}

// VerifyAuditChain reports whether events (as AuditEvents returns them) form an intact hash
// chain: any edited, dropped or reordered event makes it false.
func VerifyAuditChain(events []AuditEvent) bool {
	in := make([]audit.Event, len(events))
	for i, e := range events {
		in[i] = audit.Event(e)
	}
	return audit.Verify(in)
}
