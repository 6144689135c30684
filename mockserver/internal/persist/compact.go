package persist

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// rowsPerRecord bounds the records of one kind in one snapshot record (a patient is about 400
// bytes of JSON: a chunk stays far below durable.MaxRecordSize).
const rowsPerRecord = 1000

// Compact writes a snapshot of the whole state and drops the log it covers (durable.Log.Compact).
// Changes go on meanwhile; those logged after the cut replay on top of the snapshot, which is
// safe: records are whole states (puts), and a change an account's snapshot holds already is
// skipped by its number (store.Change.Seq).
func (e *Engine) Compact() error {
	e.mu.Lock()
	e.since, e.changed = 0, false
	e.mu.Unlock()
	var size countingWriter
	err := e.log.Compact(func(w io.Writer) error {
		size.w = w
		return e.writeSnapshot(&size)
	})
	e.mu.Lock()
	e.snapBytes = size.n
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("persist: compacting: %w", err)
	}
	return nil
}

// startCompactLocked starts a compaction in the background; the caller holds e.mu.
func (e *Engine) startCompactLocked() {
	e.compactOn = true
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		e.compactLogged()
		e.mu.Lock()
		e.compactOn = false
		e.mu.Unlock()
	}()
}

// compactLogged compacts, logging a failure (the log is unchanged then: the next try redoes it).
func (e *Engine) compactLogged() {
	if err := e.Compact(); err != nil && e.opts.Logger != nil {
		e.opts.Logger.Error("compacting the data directory failed", "dir", e.dir, "error", err)
	}
}

// compactEvery compacts every interval while changes arrive, until Close.
func (e *Engine) compactEvery(interval time.Duration) {
	defer e.bg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			e.mu.Lock()
			run := e.changed && !e.compactOn
			if run {
				e.compactOn = true
			}
			e.mu.Unlock()
			if run {
				e.compactLogged()
				e.mu.Lock()
				e.compactOn = false
				e.mu.Unlock()
			}
		}
	}
}

// writeSnapshot writes the whole state as records: the header (format, key check, id
// generator), the server's clock, every credential, the OAuth registry, then each account —
// its number and clock, its records in chunks, its pending deliveries — and the named
// snapshots' index.
func (e *Engine) writeSnapshot(w io.Writer) error {
	p := e.parts
	write := func(r record) error {
		b, err := json.Marshal(r)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	}
	ids, err := p.Store.IDs().MarshalBinary()
	if err != nil {
		return err
	}
	server := p.Store.Clock().State()
	if err := write(record{T: recHeader, Format: Format, KeyCheck: p.Store.KeyCheck(), IDs: ids, SavedAt: time.Now().UTC()}); err != nil {
		return err
	}
	if err := write(record{T: recClock, Clock: &server}); err != nil {
		return err
	}
	for _, c := range p.Keys.States() {
		if err := write(record{T: recCred, Cred: &c}); err != nil {
			return err
		}
	}
	for oa := range slices.Chunk(p.OAuth.States(), rowsPerRecord) {
		if err := write(record{T: recOAuth, OAuth: oa}); err != nil {
			return err
		}
	}
	accounts := p.Store.Accounts()
	slices.SortFunc(accounts, func(a, b *store.Account) int { return strings.Compare(a.ID, b.ID) })
	for _, a := range accounts {
		rows, err := a.ExportRows(rowsPerRecord)
		if err != nil {
			return err
		}
		r := record{T: recAccount, A: a.ID, Seq: rows.Seq}
		if c := a.Clock(); c != p.Store.Clock() {
			st := c.State()
			r.Clock = &st
		}
		if err := write(r); err != nil {
			return err
		}
		for _, c := range rows.Chunks {
			if err := write(record{T: recRows, A: a.ID, Kind: c.Kind, Rows: c.JSON}); err != nil {
				return err
			}
		}
		for pd := range slices.Chunk(p.Webhooks.ExportPending(a.ID), rowsPerRecord) {
			if err := write(record{T: recPending, A: a.ID, Pending: pd}); err != nil {
				return err
			}
		}
	}
	for _, n := range e.snaps.names() {
		if err := write(record{T: recSnapname, A: n.account, Name: n.name, File: n.file}); err != nil {
			return err
		}
	}
	return write(record{T: recSnapEnd})
}

// countingWriter counts what goes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
