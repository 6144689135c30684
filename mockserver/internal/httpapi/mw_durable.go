package httpapi

import (
	"context"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// Durability is the data directory as the request path sees it (mockserver/internal/persist):
// changes are logged as they commit; Sync waits until everything logged so far is durable.
type Durability interface {
	Sync(ctx context.Context) error
}

// durable holds the answer of a write until what it changed is durable (docs/protocol.md §13:
// "a write is durable before its response is sent"), when the server has a data directory.
// The route's store calls go through a session of the account (store.Session), which keeps the
// durability of the request's own last commit — its writes, and its idempotency entry, which
// the idempotency step below commits — so the request waits for its own fsync (shared with
// every request whose changes joined the same group commit), not for its neighbours'. A write
// that committed nothing — an idempotent replay above all, whose answer acknowledges a change
// another request made — waits for everything logged so far. Reads pass straight through. If
// the changes cannot be made durable, or the wait is cut short, the answer is 503: the write
// may or may not have reached the disk, and a retry with the same Idempotency-Key settles it.
func (a *API) durable(w http.ResponseWriter, rq *request, next handler) {
	if a.opts.Durability == nil || rq.Method == http.MethodGet || rq.Method == http.MethodHead {
		next(w, rq)
		return
	}
	sess := rq.acct.Session()
	rq.acct = sess.Account()
	held := &heldAnswer{status: http.StatusOK}
	next(held, rq)
	if aw, ok := w.(*auditWriter); ok && !aw.decided {
		aw.decide(held.status) // its event joins the transaction of the request's changes
	}
	wait := sess.Wait
	if !sess.Committed() {
		wait = a.opts.Durability.Sync
	}
	a.writeDurable(w, rq, held, wait)
}

// synced serves a request whose changes are logged outside the store's sessions (admin
// writes, OAuth: credential and token registries, clocks, fixtures), holding its answer until
// everything logged so far is durable. Without a data directory it serves as is.
func (a *API) synced(w http.ResponseWriter, rq *request, serve handler) {
	if a.opts.Durability == nil {
		serve(w, rq)
		return
	}
	held := &heldAnswer{status: http.StatusOK}
	serve(held, rq)
	a.writeDurable(w, rq, held, a.opts.Durability.Sync)
}

// writeDurable writes a held answer once wait says its changes are durable, or 503.
func (a *API) writeDurable(w http.ResponseWriter, rq *request, held *heldAnswer, wait func(context.Context) error) {
	if err := wait(rq.Context()); err != nil {
		if a.opts.Logger != nil {
			a.opts.Logger.Error("a change could not be made durable", "request_id", rq.id, "error", err)
		}
		problem.Write(w, rq.id, problem.New("service_unavailable",
			"the change could not be made durable; it may or may not have been applied: retry with the same Idempotency-Key").
			WithHeader("Retry-After", "1"))
		rq.status = http.StatusServiceUnavailable
		return
	}
	writeAnswer(w, rq, answer{status: held.status, header: held.header, body: held.body})
}

// UseDataDir makes the API answer writes once durable (d) and keep named snapshots in snaps.
// Call it before the API serves.
func (a *API) UseDataDir(d Durability, snaps SnapshotStore) {
	a.opts.Durability, a.opts.Snapshots, a.snapshots = d, snaps, snaps
}
