package httpapi

import (
	"context"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// Durability is the data directory as the request path sees it (mockserver/internal/persist):
// changes are written to its file as they commit; Sync waits until everything committed so far
// is durable.
type Durability interface {
	Sync(ctx context.Context) error
}

// With a data directory, the answer of a write is held until what it changed is durable
// (docs/protocol.md §13: "a write is durable before its response is sent").
// The route's store calls go through a session of the account (store.Session), which keeps the
// durability of the request's own last commit — its writes, and its idempotency entry, which
// the idempotency step commits — so the request waits for its own fsync (shared with
// every request whose changes joined the same group commit), not for its neighbours'. A write
// that committed nothing — an idempotent replay above all, whose answer acknowledges a change
// another request made — waits for everything logged so far. Reads pass straight through. If
// the changes cannot be made durable, or the wait is cut short, the answer is 503: the write
// may or may not have reached the disk, and a retry with the same Idempotency-Key settles it.
//
// beginDurable starts the session of a write (nil: nothing to wait for).
func (a *API) beginDurable(rq *request) *store.Session {
	if a.opts.Durability == nil || rq.Method == http.MethodGet || rq.Method == http.MethodHead {
		return nil
	}
	sess := rq.acct.Session()
	rq.acct = sess.Account()
	return sess
}

// awaitDurable holds the answer of a write in a session until what it changed is on disk.
func (a *API) awaitDurable(rq *request, sess *store.Session, ans *answer) *answer {
	if sess == nil {
		return ans
	}
	wait := sess.Wait
	if !sess.Committed() {
		wait = a.opts.Durability.Sync
	}
	return a.awaitWrite(rq, wait, ans)
}

// awaitSync holds the answer of an OAuth request until everything changed so far is on disk
// (with a data directory).
func (a *API) awaitSync(rq *request, ans *answer) *answer {
	if a.opts.Durability == nil {
		return ans
	}
	return a.awaitWrite(rq, a.opts.Durability.Sync, ans)
}

// awaitWrite returns ans once wait did, or 503 when it failed.
func (a *API) awaitWrite(rq *request, wait func(context.Context) error, ans *answer) *answer {
	if err := wait(rq.Context()); err != nil {
		if a.opts.Logger != nil {
			a.opts.Logger.Error("a change could not be made durable", "request_id", rq.id, "error", err)
		}
		return rq.problem(httpcore.NotDurable())
	}
	return ans
}

// UseDataDir makes the API answer writes once durable (d). Call it before the API serves.
func (a *API) UseDataDir(d Durability) { a.opts.Durability = d }
