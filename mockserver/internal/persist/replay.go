package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// replayState is what a replay gathers before the parts take it: the claims resolved, the
// pending deliveries and the events to deliver again, per account.
type replayState struct {
	resolved   map[string]bool              // claims whose outcome the log holds
	snapshot   bool                         // a snapshot header was read
	inSnapshot bool                         // between the snapshot's header and its end
	pending    map[string][]webhook.Pending // per account: the snapshot's, or a restored one's
	redeliver  map[string][]store.Event     // per account: events of changes logged after the snapshot
	postRecord int                          // records after the snapshot
}

// replay reads the snapshot and the log into the parts. It reads the log twice: first for the
// claims the log resolves (a keyed request's writes count only with its outcome: see
// store.Change.Claim), then to apply every record.
func (e *Engine) replay() error {
	st := &replayState{resolved: map[string]bool{}, pending: map[string][]webhook.Pending{}, redeliver: map[string][]store.Event{}}
	marker := []byte(`"resolved":`)
	err := e.log.Replay(func(b []byte) error {
		if !bytes.Contains(b, marker) {
			return nil
		}
		var r struct {
			T        string `json:"t"`
			Resolved string `json:"resolved"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("persist: a record that is not JSON: %w", err)
		}
		if r.T == recTx && r.Resolved != "" {
			st.resolved[r.Resolved] = true
		}
		return nil
	})
	if err == nil {
		err = e.log.Replay(func(b []byte) error { return e.apply(st, b) })
	}
	if err != nil {
		return fmt.Errorf("persist: replaying %s: %w", e.dir, err)
	}
	e.replayed.Fresh = !st.snapshot && e.replayed.Changes == 0
	return e.finishReplay(st)
}

// apply applies one record.
func (e *Engine) apply(st *replayState, b []byte) error {
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("persist: a record that is not JSON: %w", err)
	}
	p := e.parts
	switch {
	case r.T == recHeader:
		st.inSnapshot = true
	case r.T == recSnapEnd:
		st.inSnapshot = false
	}
	if st.inSnapshot || r.T == recSnapEnd {
		e.replayed.Snapshot++
	} else {
		e.replayed.Changes++
		st.postRecord++
	}
	switch r.T {
	case recSnapEnd:
	case recHeader:
		if r.Format != Format {
			return fmt.Errorf("persist: the data directory's format is %q, this server reads %q", r.Format, Format)
		}
		if r.KeyCheck != p.Store.KeyCheck() {
			return errors.New("persist: the data directory was sealed with another PHI key")
		}
		st.snapshot = true
		return p.Store.IDs().UnmarshalBinary(r.IDs)
	case recAccount:
		a := p.Store.Account(r.A)
		a.SetSnapshotSeq(r.Seq)
		p.SetClock(r.A, r.Clock)
	case recRows:
		return p.Store.Account(r.A).ReplayRows(r.Kind, r.Rows)
	case recPending:
		st.pending[r.A] = append(st.pending[r.A], r.Pending...)
	case recTx:
		a := p.Store.Account(r.A)
		if r.Claim != "" && !st.resolved[r.Claim] {
			a.SkipChange(r.Seq)
			e.replayed.Skipped++
			return nil
		}
		applied, err := a.ReplayChange(r.Seq, r.W, r.Ev)
		if applied {
			st.redeliver[r.A] = append(st.redeliver[r.A], r.Ev...)
		}
		return err
	case recReplace:
		state := []byte(r.State)
		var snap *AccountSnapshot
		if r.File != "" {
			s, err := e.snaps.read(r.File)
			if err != nil {
				return err
			}
			snap, state = s, s.Store
		}
		applied, err := p.Store.Account(r.A).ReplayReplace(r.Seq, state)
		if applied && snap != nil { // a restored snapshot brings its deliveries back
			st.pending[r.A] = snap.Pending
			delete(st.redeliver, r.A)
		}
		return err
	case recCred:
		if r.Cred == nil {
			return errors.New("persist: a cred record without its state")
		}
		if r.Cred.Credential != nil { // nil: revoked
			p.Store.Account(r.Cred.Credential.Account)
		}
		return p.Keys.Restore(*r.Cred)
	case recOAuth:
		for _, o := range r.OAuth {
			if o.Client != nil && o.Client.Credential != nil {
				p.Store.Account(o.Client.Credential.Account)
			}
		}
		return p.OAuth.Restore(r.OAuth)
	case recClock:
		if r.A != "" {
			p.Store.Account(r.A)
		}
		p.SetClock(r.A, r.Clock)
	case recSnapname:
		e.snaps.restoreName(r.A, r.Name, r.File)
	default:
		return fmt.Errorf("persist: a record of an unknown type %q", r.T)
	}
	return nil
}

// finishReplay hands the parts what the replay gathered: derived indexes rebuilt, the id
// generator moved past what the log drew, pending deliveries back (those due run at once), and
// the events of changes logged since the snapshot delivered again (at least once: some may
// have gone out before the server stopped).
func (e *Engine) finishReplay(st *replayState) error {
	p := e.parts
	p.Store.FinishReplay()
	p.OAuth.FinishRestore()
	if st.postRecord > 0 {
		// The generator's state is the snapshot's; since then the server drew ids and secrets
		// that the log does not record all of (codes, secrets): go elsewhere in the stream.
		var salt [8]byte
		binary.BigEndian.PutUint64(salt[:], uint64(st.postRecord))
		p.Store.IDs().Reseed(append(salt[:], e.log.Recovery().Snapshot...))
	}
	for account, pending := range st.pending {
		if err := p.Webhooks.ImportPending(p.Store.Account(account), pending); err != nil {
			return fmt.Errorf("persist: pending deliveries of %s: %w", account, err)
		}
	}
	for account, events := range st.redeliver {
		p.Store.Account(account).Redeliver(events)
	}
	return nil
}
