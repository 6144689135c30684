package httpapi

import (
	"net/http"
	"sync"
	"unicode/utf8"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// account returns an existing account, or 404.
func (a *API) account(id string) (*store.Account, error) {
	if id == "" {
		return nil, problem.Field("/account", "required", "is required")
	}
	acct, ok := a.store.LookupAccount(id)
	if !ok {
		return nil, problem.NotFound("account")
	}
	return acct, nil
}

// snapshots are saved account states, by account and name.
type snapshots struct {
	mu     sync.Mutex
	byName map[string][]byte // account + "\x00" + name → Account.Export
}

// Snapshot saves the account's whole state (data and idempotency keys) under name, replacing
// an earlier snapshot of that name.
func (a *API) Snapshot(account, name string) error {
	if p := checkSnapshotName(name); p != nil {
		return p
	}
	acct, err := a.account(account)
	if err != nil {
		return err
	}
	b, err := acct.Export()
	if err != nil {
		return err
	}
	a.snapshots.mu.Lock()
	a.snapshots.byName[account+"\x00"+name] = b
	a.snapshots.mu.Unlock()
	return nil
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

// Restore puts back the account's state saved under name; the snapshot stays for later
// restores.
func (a *API) Restore(account, name string) error {
	acct, err := a.account(account)
	if err != nil {
		return err
	}
	if checkSnapshotName(name) != nil { // no snapshot has such a name: the shape first
		return problem.NotFound("snapshot")
	}
	a.snapshots.mu.Lock()
	b, ok := a.snapshots.byName[account+"\x00"+name]
	a.snapshots.mu.Unlock()
	if !ok {
		return problem.NotFound("snapshot")
	}
	return acct.Import(b)
}

// adminToolRoutes are the admin endpoints of the test tools: faults, the journal, snapshots,
// fixtures, and the admin OpenAPI document.
func (a *API) adminToolRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/__admin/reset", handle: withBody(http.StatusNoContent,
			func(_ *request, p accountBody) (any, error) { return nil, a.Reset(p.Account) })},
		{method: http.MethodPost, pattern: "/__admin/faults", handle: withBody(http.StatusNoContent,
			func(_ *request, f Fault) (any, error) { return nil, a.InjectFault(f) })},
		{method: http.MethodDelete, pattern: "/__admin/faults", handle: func(rq *request) (int, any, error) {
			a.ClearFaults()
			return http.StatusNoContent, nil, nil
		}},
		{method: http.MethodGet, pattern: "/__admin/requests", handle: func(rq *request) (int, any, error) {
			return http.StatusOK, map[string]any{"requests": a.Requests(rq.URL.Query().Get("account"))}, nil
		}},
		{method: http.MethodPost, pattern: "/__admin/snapshots", handle: withBody(http.StatusNoContent,
			func(_ *request, p struct {
				Account string `json:"account"`
				Name    string `json:"name"`
			}) (any, error) {
				return nil, a.Snapshot(p.Account, p.Name)
			})},
		{method: http.MethodPost, pattern: "/__admin/snapshots/{name}/restore", handle: withBody(http.StatusNoContent,
			func(rq *request, p accountBody) (any, error) { return nil, a.Restore(p.Account, rq.PathValue("name")) })},
		{method: http.MethodPost, pattern: "/__admin/fixtures", handle: withBody(http.StatusCreated,
			func(_ *request, fx Fixtures) (any, error) { return a.LoadFixtures(fx) })},
		{method: http.MethodGet, pattern: "/__admin/openapi.yaml", handle: func(rq *request) (int, any, error) {
			return http.StatusOK, rawBody{contentType: "application/yaml", body: api.AdminOpenAPIYAML}, nil
		}},
	}
}
