// Package persist keeps the mock server's state in a data directory (docs/protocol.md §13,
// "restart loses nothing acknowledged"): every committed change goes to a log in the directory's
// bbolt file (mockserver/internal/durable) before the request that made it is answered, the log is
// compacted into a snapshot as it grows, and a server that starts on the directory replays
// snapshot and log into its parts. The layout of the directory is in README (dirReadme).
//
// What the log holds comes from one place per part, so that a new kind of change persists by
// construction: the store's commit point (store.OnCommit: every put and delete of a record of
// any kind, its events and its idempotency claim), the credential registry's change hook
// (auth.Registry.OnChange), the OAuth registry's (auth.OAuth.OnChange), and the clock and
// named-snapshot calls of the server (ClockChanged, Snapshots).
package persist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Parts are the server's stateful parts that the engine persists and replays into.
type Parts struct {
	Store    *store.Store
	Keys     *auth.Registry
	OAuth    *auth.OAuth
	Webhooks *webhook.Dispatcher
	// SetClock gives an account ("": the server) the clock setting read back from the log; nil
	// st returns the account to the server's clock. The caller owns clocks (their OnMove hooks).
	SetClock func(account string, st *clock.State)
}

// Options tune the engine. The zero value is the safe default.
type Options struct {
	// Sync is the log's fsync policy (default durable.SyncAlways: a write survives a power
	// loss; SyncNone: it survives the process being killed).
	Sync durable.SyncPolicy
	// CompactBytes is how much the log may grow past its last snapshot before it is compacted
	// (default DefaultCompactBytes); a snapshot larger than that raises the bound to its own
	// size, so compaction costs O(1) per byte logged.
	CompactBytes int64
	// CompactEvery compacts at least this often while changes arrive (0: by size only).
	CompactEvery time.Duration
	// Logger receives compaction failures (nil: none).
	Logger *slog.Logger
	// DB, when set, is the data file that keeps the log (as its log "state", the 0.2 files of
	// dir/state imported into it), shared with the audit files; the engine closes it when it is
	// released (Close, Abandon, a failed Open). Nil: a file of its own under dir/state.
	DB *durable.DB
}

// DefaultCompactBytes is the least log growth between compactions (the bound is the last
// snapshot's size when larger): the log's file, whose free pages are reused, stays within about
// twice the state's size plus this.
const DefaultCompactBytes = 1 << 20

// Engine keeps a server's state in a data directory. Its methods are safe for concurrent use.
type Engine struct {
	dir   string
	parts Parts
	opts  Options
	log   *durable.Log
	snaps *Snapshots

	// mu guards what follows; it is a leaf (hooks call in under the locks of the parts).
	mu        sync.Mutex
	last      *durable.Commit // the last commit enqueued: Sync waits for it
	since     int64           // bytes logged since the last compaction started
	snapBytes int64           // size of the last snapshot
	changed   bool            // something was logged since the last compaction started
	compactOn bool            // a compaction runs
	closed    bool
	replayed  Replayed

	stop chan struct{}
	bg   sync.WaitGroup
}

// Replayed says what Open found in the directory.
type Replayed struct {
	// Fresh says the directory held no state: a new server.
	Fresh bool
	// Snapshot and Changes count the snapshot's records and the log's records after it.
	Snapshot, Changes int
	// Skipped counts the changes of idempotency claims that were never resolved (a crash
	// between a keyed write and its answer): left out, so the client's retry runs anew.
	Skipped int
	// Recovery is what the log repaired (a torn tail).
	Recovery durable.Recovery
	// Took is how long the replay took.
	Took time.Duration
}

// Open opens the data directory dir (creating its layout if needed), replays its state into
// parts and registers the hooks that log every change from now on. Another process (or
// server) holding dir open makes it fail with durable.ErrLocked.
func Open(dir string, parts Parts, opts Options) (*Engine, error) {
	if opts.CompactBytes <= 0 {
		opts.CompactBytes = DefaultCompactBytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("persist: %w", err)
	}
	if err := writeReadme(dir); err != nil {
		return nil, err
	}
	var log *durable.Log
	var err error
	if opts.DB != nil {
		log, err = opts.DB.Log(stateDir, filepath.Join(dir, stateDir))
	} else {
		log, err = durable.Open(filepath.Join(dir, stateDir), durable.Options{Sync: opts.Sync})
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("persist: %w", err), closeDB(opts.DB))
	}
	e := &Engine{dir: dir, parts: parts, opts: opts, log: log, stop: make(chan struct{})}
	e.snaps = newSnapshots(e)
	start := time.Now()
	if err := e.replay(); err != nil {
		return nil, errors.Join(err, log.Close(), closeDB(opts.DB))
	}
	e.replayed.Recovery = log.Recovery()
	e.replayed.Took = time.Since(start)
	if err := e.snaps.collect(); err != nil {
		return nil, errors.Join(err, log.Close(), closeDB(opts.DB))
	}
	parts.Store.OnCommit(e.commit, true)
	parts.Keys.OnChange(e.credChanged)
	parts.OAuth.OnChange(e.oauthChanged)
	if opts.CompactEvery > 0 {
		e.bg.Add(1)
		go e.compactEvery(opts.CompactEvery)
	}
	return e, nil
}

// Replayed reports what Open found and replayed.
func (e *Engine) Replayed() Replayed { return e.replayed }

// Dir is the data directory.
func (e *Engine) Dir() string { return e.dir }

// Snapshots is the store of named account snapshots (DIR/snapshots).
func (e *Engine) Snapshots() *Snapshots { return e.snaps }

// Sync returns once every change logged so far is durable (admin and OAuth requests, and the
// server's Go methods, wait for it before answering), or with the failure that keeps it from
// being so, or ctx's error.
func (e *Engine) Sync(ctx context.Context) error {
	e.mu.Lock()
	c := e.last
	e.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Wait(ctx)
}

// append logs one record and returns its commit.
func (e *Engine) append(r record) store.Pending {
	b, err := json.Marshal(r)
	if err != nil {
		return failed{fmt.Errorf("persist: encoding a %s record: %w", r.T, err)}
	}
	return e.enqueue(b)
}

// enqueue logs encoded records as one atomic batch, in the order of calls.
func (e *Engine) enqueue(recs ...[]byte) *durable.Commit {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.log.Enqueue(recs...)
	e.last = c // a refusal too (a closed or failed log): Sync reports it until a later commit
	for _, r := range recs {
		e.since += int64(len(r))
	}
	e.changed = true
	if !e.compactOn && !e.closed && e.since >= max(e.opts.CompactBytes, e.snapBytes) {
		e.startCompactLocked()
	}
	return c
}

// failed is the outcome of a change that could not be logged at all.
type failed struct{ err error }

func (f failed) Wait(context.Context) error { return f.err }

// commit logs a committed change of an account (store.OnCommit): under the account's lock, so
// the log holds each account's changes in commit order.
func (e *Engine) commit(a *store.Account, c store.Change) store.Pending {
	r := record{T: recTx, A: c.Account, Seq: c.Seq, Ev: c.Events, Claim: c.Claim, Resolved: c.Resolved}
	if c.Replaced {
		r.T, r.Claim = recReplace, ""
		switch {
		case c.Source != "":
			r.File = c.Source
		case c.State != nil:
			r.State = c.State
		}
	}
	r.W = make([]store.LoggedWrite, len(c.Writes))
	for i, w := range c.Writes {
		r.W[i] = store.LoggedWrite{Kind: w.Kind, ID: w.ID}
		if w.Deleted {
			continue
		}
		if w.Value == nil {
			return failed{fmt.Errorf("persist: a %s write without its record (a kind without a table?)", w.Kind)}
		}
		b, err := json.Marshal(w.Value)
		if err != nil {
			return failed{fmt.Errorf("persist: encoding a %s: %w", w.Kind, err)}
		}
		r.W[i].Value = b
	}
	return e.append(r)
}

// credChanged logs a credential's new state (auth.Registry.OnChange).
func (e *Engine) credChanged(st auth.CredentialState) { e.append(record{T: recCred, Cred: &st}) }

// oauthChanged logs one OAuth mutation's records (auth.OAuth.OnChange).
func (e *Engine) oauthChanged(recs []auth.OAuthRecord) { e.append(record{T: recOAuth, OAuth: recs}) }

// ClockChanged logs an account's clock setting ("" the server's; nil st: the account follows
// the server's clock again). Call it after every change of a clock.
func (e *Engine) ClockChanged(account string, st *clock.State) {
	e.append(record{T: recClock, A: account, Clock: st})
}

// Close compacts the log one last time (so a restart replays a snapshot only, pending webhook
// deliveries and retries included), then closes it. Changes after Close fail. It returns the
// first error met.
func (e *Engine) Close() error { return e.release(true) }

// Abandon releases the data directory without the last compaction, as a crash would leave it
// (every logged change is on disk; none is compacted): for tests of the replay.
func (e *Engine) Abandon() error { return e.release(false) }

// release stops the background compactions, compacts when asked, and closes the log; the second
// call does nothing.
func (e *Engine) release(compact bool) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	close(e.stop)
	e.bg.Wait() // a running compaction ends first
	var err error
	if compact {
		err = e.Compact()
	}
	return errors.Join(err, e.log.Close(), closeDB(e.opts.DB))
}

func closeDB(db *durable.DB) error {
	if db == nil {
		return nil
	}
	return db.Close()
}
