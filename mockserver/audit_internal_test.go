package mockserver

import (
	"testing"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
)

// TestAuditConstantsMatch: the public constants spell out the audit package's values (go doc
// shows a literal, not an internal name).
func TestAuditConstantsMatch(t *testing.T) {
	t.Parallel()
	if AnonymousAudit != audit.Anonymous || AuditZeroID != audit.ZeroID || DefaultAuditRetention != audit.DefaultRetention {
		t.Errorf("public audit constants drifted from the audit package's")
	}
}
