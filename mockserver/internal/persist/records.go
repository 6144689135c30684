package persist

import (
	"encoding/json"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

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
