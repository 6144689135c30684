package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"unicode/utf8"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/persist"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// account returns an existing account, or 404.
func (s *Surface) account(id string) (*store.Account, error) {
	if id == "" {
		return nil, problem.Field("/account", "required", "is required")
	}
	acct, ok := s.store.LookupAccount(id)
	if !ok {
		return nil, problem.NotFound("account")
	}
	return acct, nil
}

// SnapshotStore keeps named account snapshots (each an AccountSnapshot's JSON): in memory, or
// in the data directory (mockserver/internal/persist), whose Load also returns the snapshot's key
// as its source, which a restore's change names (store.Change.Source).
type SnapshotStore interface {
	Save(account, name string, snap []byte) error
	Load(account, name string) (snap []byte, source string, ok bool, err error)
}

// memorySnapshots keeps snapshots in memory, by account and name.
type memorySnapshots struct {
	mu     sync.Mutex
	byName map[string][]byte // account + "\x00" + name → the snapshot
}

func (m *memorySnapshots) Save(account, name string, snap []byte) error {
	m.mu.Lock()
	m.byName[account+"\x00"+name] = snap
	m.mu.Unlock()
	return nil
}

func (m *memorySnapshots) Load(account, name string) ([]byte, string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.byName[account+"\x00"+name]
	return b, "", ok, nil
}

// Snapshot saves the account's whole state under name, replacing an earlier snapshot of that
// name (docs/protocol.md §12): its records and idempotency keys, its own clock, its pending
// webhook deliveries and retries, its OAuth clients' codes and tokens, and its audit chain.
func (s *Surface) Snapshot(account, name string) error {
	if p := checkSnapshotName(name); p != nil {
		return p
	}
	acct, err := s.account(account)
	if err != nil {
		return err
	}
	audited := s.audit.Export(account)
	snap := persist.AccountSnapshot{Format: persist.SnapshotFormat, Audit: &audited,
		Pending: s.hooks.ExportPending(account), OAuth: s.oauth.ExportAccount(account)}
	if snap.Store, err = acct.Export(); err != nil {
		return err
	}
	if c := acct.Clock(); c != s.store.Clock() {
		st := c.State()
		snap.Clock = &st
	}
	b, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	return s.snapshots.Save(account, name, b)
}

// checkSnapshotName refuses a snapshot name that is not one line of text of 1–200 characters
// (docs/protocol.md §2 "text"; a name is the caller's to choose, "before login" included).
func checkSnapshotName(name string) *problem.Problem {
	switch {
	case name == "":
		return problem.Field("/name", "required", "is required")
	case !store.TextAllowed(name, false):
		return problem.Field("/name", "invalid_format", "must not contain control, bidirectional-override or invisible characters")
	case utf8.RuneCountInString(name) > 200:
		return problem.Field("/name", "too_long", "must be at most 200 characters")
	}
	return nil
}

// Restore puts back the account's state saved under name — all that Snapshot saved: records
// and keys, clock, pending deliveries (those due run at once), codes and tokens (those issued
// since are gone), the audit chain (its file keeps every event, and the restore). The snapshot
// stays for later restores.
func (s *Surface) Restore(account, name string) error {
	acct, err := s.account(account)
	if err != nil {
		return err
	}
	if checkSnapshotName(name) != nil { // no snapshot has such a name: the shape first
		return problem.NotFound("snapshot")
	}
	b, source, ok, err := s.snapshots.Load(account, name)
	if err != nil {
		return err
	}
	if !ok {
		return problem.NotFound("snapshot")
	}
	var snap persist.AccountSnapshot
	if err := json.Unmarshal(b, &snap); err != nil || snap.Format != persist.SnapshotFormat {
		return fmt.Errorf("admin: snapshot %q of %s is damaged", name, account)
	}
	if err := acct.ImportFrom(snap.Store, source); err != nil {
		return err
	}
	if err := s.oauth.ImportAccount(account, snap.OAuth); err != nil {
		return err
	}
	if s.opts.RestoreClock != nil {
		s.opts.RestoreClock(account, snap.Clock)
	}
	if snap.Audit != nil {
		if err := s.audit.Import(context.Background(), account, *snap.Audit); err != nil {
			return err
		}
	}
	return s.hooks.ImportPending(acct, snap.Pending)
}

// toolRoutes are the admin endpoints of the test tools: faults, the journal, snapshots,
// fixtures, and the admin OpenAPI document.
func (s *Surface) toolRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/__admin/reset", handle: withBody(http.StatusNoContent,
			func(_ *request, p accountBody) (any, error) { return nil, s.Reset(p.Account) })},
		{method: http.MethodPost, pattern: "/__admin/faults", handle: withBody(http.StatusNoContent,
			func(_ *request, f controls.Fault) (any, error) { return nil, s.InjectFault(f) })},
		{method: http.MethodDelete, pattern: "/__admin/faults", handle: func(rq *request) (int, any, error) {
			s.ClearFaults()
			return http.StatusNoContent, nil, nil
		}},
		{method: http.MethodGet, pattern: "/__admin/requests", handle: func(rq *request) (int, any, error) {
			return http.StatusOK, map[string]any{"requests": s.Requests(rq.URL.Query().Get("account"))}, nil
		}},
		{method: http.MethodPost, pattern: "/__admin/snapshots", handle: withBody(http.StatusNoContent,
			func(_ *request, p struct {
				Account string `json:"account"`
				Name    string `json:"name"`
			}) (any, error) {
				return nil, s.Snapshot(p.Account, p.Name)
			})},
		{method: http.MethodPost, pattern: "/__admin/snapshots/{name}/restore", handle: withBody(http.StatusNoContent,
			func(rq *request, p accountBody) (any, error) { return nil, s.Restore(p.Account, rq.PathValue("name")) })},
		{method: http.MethodPost, pattern: "/__admin/fixtures", handle: withBody(http.StatusCreated,
			func(_ *request, fx Fixtures) (any, error) { return s.LoadFixtures(fx) })},
		{method: http.MethodGet, pattern: "/__admin/openapi.yaml", handle: func(rq *request) (int, any, error) {
			return 0, httpcore.New(http.StatusOK, "application/yaml", api.AdminOpenAPIYAML), nil
		}},
	}
}
