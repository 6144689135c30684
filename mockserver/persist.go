package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/persist"
	"github.com/medspa/medspa-go/mockserver/internal/persist/import02"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// WithDataDir keeps the server's state in the directory dir (created if needed), so that a
// server started again on it — after Close, a crash or a SIGKILL — loses nothing it
// acknowledged (docs/protocol.md §13): records, API keys, OAuth clients, live tokens and
// refresh-token families (by digest), idempotency keys, clocks, webhook endpoints with their
// pending deliveries (those that fell due while the server was down run after start), named
// snapshots, and every account's audit events — appended to its audit log in the directory's
// bbolt file (dir/data.db) before the request that caused them is answered: memory keeps the
// newest (WithAuditRetention), AuditEventsAfter pages through the rest. A write is durable
// before its response is sent; the Go methods that change state return once their change is
// durable. The directory's layout is in docs/mock-server.md ("Data directory"); one server at
// a time may use it (New fails when another holds it). The PHI key is WithPHIKey's if given
// (not written to the directory), else dir/phi.key, made on first use. WithStartTime applies
// only to a directory that holds no state yet.
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithCompactInterval does nothing: the data directory (WithDataDir) holds the state itself,
// with nothing to compact (its file reuses its free pages).
//
// Deprecated: the data directory has no compaction step any more.
func WithCompactInterval(d time.Duration) Option { return func(o *options) { o.compactEvery = d } }

// openDataFile opens the data directory's bbolt file (dir/data.db), which holds the state and
// the audit files, importing the files of release 0.2 found in dir (import02: a migration run
// once); nil without a data directory.
func openDataFile(dir string) (*durable.DB, error) {
	if dir == "" {
		return nil, nil
	}
	db, err := persist.OpenFile(dir, false)
	if err != nil {
		return nil, fmt.Errorf("mockserver: data directory: %w", err)
	}
	if err := import02.Import(db, dir); err != nil {
		return nil, errors.Join(fmt.Errorf("mockserver: data directory: importing the files of release 0.2 in %s: %w", dir, err), db.Close())
	}
	return db, nil
}

func closeDataFile(db *durable.DB) {
	if db != nil {
		db.Close()
	}
}

// openData reads the data directory's state (in db, which the engine closes when released)
// into the server's parts.
func (s *Server) openData(db *durable.DB) error {
	d, err := persist.Open(persist.Parts{Store: s.store, Keys: s.api.Keys(), OAuth: s.api.OAuth(),
		Webhooks: s.hooks, SetClock: s.restoreClock}, db)
	if err != nil {
		return fmt.Errorf("mockserver: data directory: %w", err)
	}
	s.data = d
	s.api.UseDataDir(d)
	s.admin.UseDataDir(d, d.Snapshots())
	return nil
}

// DataDirState says what the server found in its data directory (WithDataDir) at start: Fresh
// when it held no state (a new directory), else how much it read.
type DataDirState struct {
	Fresh bool
	// SnapshotRecords counts the records read; LoggedChanges the changes committed after the
	// last clean close (non-zero after a crash: their webhook events are delivered again).
	SnapshotRecords, LoggedChanges int
	// SkippedChanges counts the keyed requests that committed writes but never got their
	// answer (a crash in between): their writes were left out, so the client's retry with the
	// same Idempotency-Key runs anew.
	SkippedChanges int
	// Replay is how long reading the state took.
	Replay time.Duration
}

// DataDir returns the data directory's path and what the server found in it at start; ok is
// false without WithDataDir.
func (s *Server) DataDir() (dir string, st DataDirState, ok bool) {
	if s.data == nil {
		return "", DataDirState{}, false
	}
	r := s.data.Loaded()
	return s.opts.dataDir, DataDirState{Fresh: r.Fresh, SnapshotRecords: r.Records, LoggedChanges: r.Changes,
		SkippedChanges: r.Skipped, Replay: r.Took}, true
}

// durable returns once everything the server logged so far is durable (no-op without a data
// directory): the Go methods that change state call it before returning.
func (s *Server) durable() error {
	if s.data == nil {
		return nil
	}
	return s.data.Sync(context.Background())
}

// durableAfter is durable after err: the first error wins.
func (s *Server) durableAfter(err error) error {
	if err != nil {
		return err
	}
	return s.durable()
}

// restoreClock gives an account ("" the server) a clock setting read back from the data
// directory or a snapshot (nil: the account follows the server's clock).
func (s *Server) restoreClock(account string, st *clock.State) {
	switch {
	case account == "" && st != nil:
		s.clock.Restore(*st)
	case account == "":
	case st == nil:
		s.store.Account(account).SetClock(nil)
		s.hooks.Poke()
	default:
		s.clockFor(account, true).Restore(*st)
	}
}

// restoreClockLogged gives account the clock setting a snapshot saved (nil: the server's clock),
// and logs it.
func (s *Server) restoreClockLogged(account string, st *clock.State) {
	s.restoreClock(account, st)
	s.clockChanged(account)
}

// clockChanged logs account's clock setting ("" the server's) to the data directory.
func (s *Server) clockChanged(account string) {
	if s.data == nil {
		return
	}
	c := s.clockFor(account, false)
	if account != "" && c == s.clock {
		s.data.ClockChanged(account, nil)
		return
	}
	st := c.State()
	s.data.ClockChanged(account, &st)
	_ = s.durable() // a failure of the directory shows in the next write's answer
}

// stateFormat names the layout SaveState writes; stateFormatV1 is the layout before sealed
// values were bound to their place (LoadState migrates it).
const (
	stateFormat   = "medspa-mock-state/2"
	stateFormatV1 = "medspa-mock-state/1"
)

// state is what SaveState writes: accounts' data and idempotency keys (PHI sealed), API keys and
// OAuth clients as SHA-256 digests of their secrets, and the id generator's position (so a
// seeded server that restarts does not hand out the same ids and secrets again).
type state struct {
	Format      string                     `json:"format"`
	SavedAt     time.Time                  `json:"savedAt"`
	PHIKeyCheck string                     `json:"phiKeyCheck"`
	IDs         json.RawMessage            `json:"ids"`
	Credentials json.RawMessage            `json:"credentials"`
	OAuth       json.RawMessage            `json:"oauthClients,omitempty"`
	Accounts    map[string]json.RawMessage `json:"accounts"`
}

// SaveState writes the server's state as JSON: every account's data and idempotency keys, the
// API keys and OAuth clients (only digests of their secrets; signing secrets as they are; OAuth
// codes and tokens are left out). PHI stays sealed with the server's PHI key, bound to its
// account: a server loading the state needs the same key (WithPHIKey). Snapshots, the journal,
// faults and clocks are not included; for all of that across restarts, use WithDataDir.
func (s *Server) SaveState(w io.Writer) error {
	st := state{Format: stateFormat, SavedAt: s.clock.Now(), PHIKeyCheck: s.store.KeyCheck(), Accounts: map[string]json.RawMessage{}}
	var err error
	if st.IDs, err = s.store.IDs().MarshalBinary(); err != nil {
		return err
	}
	if st.Credentials, err = s.api.Keys().Export(); err != nil {
		return err
	}
	if st.OAuth, err = s.api.OAuth().ExportClients(); err != nil {
		return err
	}
	for _, a := range s.store.Accounts() {
		if st.Accounts[a.ID], err = a.Export(); err != nil {
			return err
		}
	}
	return json.NewEncoder(w).Encode(st)
}

// LoadState reads what SaveState wrote into this server (accounts it names are replaced, keys
// are added). State written before sealed values were bound to their account, record and field
// (medspa-mock-state/1) is migrated: sealed again, bound. It fails before changing anything
// when the state has an unknown format or was sealed with another PHI key. With a data
// directory, what it loads is durable when it returns.
func (s *Server) LoadState(r io.Reader) error {
	var st state
	if err := json.NewDecoder(r).Decode(&st); err != nil {
		return fmt.Errorf("mockserver: reading state: %w", err)
	}
	if st.Format != stateFormat && st.Format != stateFormatV1 {
		return fmt.Errorf("mockserver: state format %q, want %q", st.Format, stateFormat)
	}
	if st.PHIKeyCheck != s.store.KeyCheck() {
		return errors.New("mockserver: the state was saved with another PHI key")
	}
	states := make(map[*store.Account][]byte, len(st.Accounts))
	for id, b := range st.Accounts {
		a := s.store.Account(id)
		if st.Format == stateFormatV1 {
			var err error
			if b, err = a.MigrateUnbound(b); err != nil {
				return fmt.Errorf("mockserver: migrating account %s: %w", id, err)
			}
		}
		states[a] = b
	}
	if err := s.api.Keys().Import(st.Credentials); err != nil {
		return err
	}
	if st.OAuth != nil {
		if err := s.api.OAuth().ImportClients(st.OAuth); err != nil {
			return err
		}
	}
	for a, b := range states {
		if err := a.Import(b); err != nil {
			return err
		}
	}
	if err := s.store.IDs().UnmarshalBinary(st.IDs); err != nil {
		return err
	}
	return s.durable()
}

// CheckDataDir verifies the data directory dir (WithDataDir) without changing it: its bbolt
// file (bbolt's own consistency check, and each audit log's head: its newest events are those
// committed) and every account's audit chain. It returns the damage found (nil: none). The
// directory must not be in use by a server.
func CheckDataDir(dir string) error {
	db, err := durable.OpenDB(filepath.Join(dir, durable.FileName), durable.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return errors.Join(db.Check(), audit.Check(db))
}
