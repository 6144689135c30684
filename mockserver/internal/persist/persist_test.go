package persist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
	"github.com/medspa/medspa-go/patients"
	bolt "go.etcd.io/bbolt"
)

// server is the parts of a server on a data directory, without HTTP.
type server struct {
	st    *store.Store
	keys  *auth.Registry
	oauth *auth.OAuth
	hooks *webhook.Dispatcher
	e     *Engine
	dir   string
}

var testKey = bytes.Repeat([]byte{4}, 32)

// open starts the parts on dir, with the test key, a frozen server clock and seed 1.
func open(t *testing.T, dir string) *server {
	t.Helper()
	clk := clock.New()
	clk.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	st := store.New(store.Options{Clock: clk, IDs: store.NewIDGen(1), Sealer: store.NewSealer(testKey)})
	s := &server{st: st, keys: auth.NewRegistry(), oauth: auth.NewOAuth(), hooks: webhook.New(st, webhook.Options{}), dir: dir}
	setClock := func(account string, cs *clock.State) {
		if account == "" && cs != nil {
			clk.Restore(*cs)
		}
	}
	db, err := OpenFile(dir, true)
	if err == nil {
		s.e, err = Open(Parts{Store: st, Keys: s.keys, OAuth: s.oauth, Webhooks: s.hooks, SetClock: setClock}, db)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openFile opens dir's file without fsync.
func openFile(t *testing.T, dir string) *durable.DB {
	t.Helper()
	db, err := OpenFile(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// crash releases the directory as a crash leaves it: no last compaction.
func (s *server) crash(t *testing.T) {
	t.Helper()
	if err := s.e.Abandon(); err != nil {
		t.Fatal(err)
	}
	s.hooks.Close()
}

func (s *server) close(t *testing.T) {
	t.Helper()
	if err := s.e.Close(); err != nil {
		t.Fatal(err)
	}
	s.hooks.Close()
}

func patient(first string) store.PatientInput {
	return store.PatientInputOf(patients.Patient{FirstName: first, LastName: "L", Email: first + "@example.com", Notes: "n"})
}

// dump is an account's data and entries as JSON, for comparisons.
func dump(t *testing.T, a *store.Account) string {
	t.Helper()
	b, err := a.Export()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A keyed request's writes count only with their outcome: a crash between a keyed write and
// its idempotency entry leaves neither (the client's retry runs anew, once), while a write
// whose entry was committed comes back with it, and a write of a request whose outcome was not
// kept (5xx) comes back without one.
func TestUnresolvedClaimsAreLeftOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	a := s.st.Account("acct_claims")
	keyed := func(key string, finish int) string {
		sess := a.Session()
		h := sess.Account()
		if out, _ := h.BeginIdempotent(key, [32]byte{1}); out != store.IdempotencyProceed {
			t.Fatal(out)
		}
		p, err := h.CreatePatient(patient(key), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if finish != 0 {
			h.FinishIdempotent(key, finish, nil, []byte(p.ID))
			if err := sess.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return p.ID
	}
	done := keyed("done", 201)
	failed := keyed("failed", 503)
	cut := keyed("cut", 0)                                       // the crash comes before its answer
	plain, err := a.CreatePatient(patient("plain"), time.Time{}) // no key: no claim
	if err != nil {
		t.Fatal(err)
	}
	if err := s.e.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.crash(t)

	s = open(t, dir)
	defer s.close(t)
	a = s.st.Account("acct_claims")
	for id, want := range map[string]bool{done: true, failed: true, cut: false, plain.ID: true} {
		if _, err := a.GetPatient(id); (err == nil) != want {
			t.Errorf("patient %s after the crash: %v, want present %v", id, err, want)
		}
	}
	if got := s.e.Loaded().Skipped; got != 1 {
		t.Errorf("skipped %d changes, want 1", got)
	}
	if out, e := a.BeginIdempotent("done", [32]byte{1}); out != store.IdempotencyReplay || string(e.Body) != done {
		t.Errorf("the finished key after the crash: %v", out)
	}
	for _, k := range []string{"failed", "cut"} {
		if out, _ := a.BeginIdempotent(k, [32]byte{1}); out != store.IdempotencyProceed {
			t.Errorf("key %s after the crash: %v, want a new run", k, out)
		}
	}
}

// Concurrent writers, updates and resets lose nothing: what a restart after a crash finds
// equals what the server held.
func TestConcurrentWritesAndResetsLoseNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	accounts := []string{"acct_w1", "acct_w2", "acct_w3"}
	var wg sync.WaitGroup
	for _, id := range accounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := s.st.Account(id)
			for i := range 150 {
				p, err := a.CreatePatient(patient(fmt.Sprintf("p%d", i)), time.Time{})
				if err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if _, err := a.UpdatePatient(p.ID, store.PatientInput{Notes: store.Given(fmt.Sprintf("changed %d", i))}); err != nil {
						t.Error(err)
					}
				}
				if i%50 == 0 {
					a.Reset()
				}
			}
		}()
	}
	wg.Wait()
	if err := s.e.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, id := range accounts {
		want[id] = dump(t, s.st.Account(id))
	}
	s.crash(t)

	s = open(t, dir)
	defer s.close(t)
	for _, id := range accounts {
		if got := dump(t, s.st.Account(id)); got != want[id] {
			t.Errorf("%s after compactions and a crash:\n%s\nwant\n%s", id, got, want[id])
		}
	}
}

// After a crash, a server on a frozen clock makes ids after those it made before (webhook
// subscriptions compare ids), and a seeded one does not hand out the same secrets again.
func TestIDsMoveOnAfterACrash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	a := s.st.Account("acct_ids")
	var last string
	for i := range 20 {
		p, err := a.CreatePatient(patient(fmt.Sprint("p", i)), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		last = p.ID
	}
	secret := make([]byte, 16)
	_, _ = s.st.IDs().Rand().Read(secret)
	s.keys.Add("msk_test_x", &auth.Credential{ID: "key_1", Account: "acct_ids", SigningSecret: fmt.Sprintf("%x", secret)})
	if err := s.e.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.crash(t)

	s = open(t, dir)
	defer s.close(t)
	p, err := s.st.Account("acct_ids").CreatePatient(patient("after"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID <= last {
		t.Errorf("id after the crash %s, not after %s", p.ID, last)
	}
	again := make([]byte, 16)
	_, _ = s.st.IDs().Rand().Read(again)
	if bytes.Equal(again, secret) {
		t.Error("a seeded server handed out the same secret again after a crash")
	}
}

// A directory sealed with another key is refused, naming the reason; nothing of it changes.
func TestRefusesWhatItCannotReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	a := s.st.Account("acct_refuse")
	if _, err := a.CreatePatient(patient("x"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	snap, _ := json.Marshal(AccountSnapshot{Format: SnapshotFormat, Store: json.RawMessage(dump(t, a))})
	if err := s.e.Snapshots().Save("acct_refuse", "s", snap); err != nil {
		t.Fatal(err)
	}
	s.close(t)

	clk := clock.New()
	st := store.New(store.Options{Clock: clk, Sealer: store.NewSealer(bytes.Repeat([]byte{5}, 32))})
	_, err := Open(Parts{Store: st, Keys: auth.NewRegistry(), OAuth: auth.NewOAuth(), Webhooks: webhook.New(st, webhook.Options{}),
		SetClock: func(string, *clock.State) {}}, openFile(t, dir))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("another PHI key")) {
		t.Fatalf("another key: %v", err)
	}

	s = open(t, dir)
	defer s.close(t)
	if got, _, ok, err := s.e.Snapshots().Load("acct_refuse", "s"); !ok || err != nil || !bytes.Equal(got, snap) {
		t.Fatalf("the snapshot after the refusal: %v %v", ok, err)
	}
}

// Every write of a kind the store has no table for fails (it would not load), and a file with
// records of a kind this server does not know is refused: a new kind of record must be a table
// of the store's data.
func TestUnknownKindIsRefused(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	if _, err := s.st.Account("acct_k").CreatePatient(patient("k"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	p := s.e.commit(s.st.Account("acct_k"), store.Change{Account: "acct_k", Writes: []store.Write{{Kind: "giftcard", ID: "gft_1"}}})
	if err := p.Wait(context.Background()); err == nil {
		t.Fatal("a write without its record was logged")
	}
	s.close(t)
	db, err := bolt.Open(filepath.Join(s.dir, durable.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.Bucket([]byte("acct/acct_k")).CreateBucketIfNotExists([]byte("giftcard"))
		if err == nil {
			err = b.Put([]byte("gft_1"), []byte(`{"id":"gft_1"}`))
		}
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(store.Options{Clock: clock.New(), Sealer: store.NewSealer(testKey)})
	dir := s.dir
	_, err = Open(Parts{Store: st, Keys: auth.NewRegistry(), OAuth: auth.NewOAuth(), Webhooks: webhook.New(st, webhook.Options{}),
		SetClock: func(string, *clock.State) {}}, openFile(t, dir))
	if !errors.Is(err, store.ErrUnknownKind) {
		t.Fatalf("reading an unknown kind: %v", err)
	}
}

// Churn does not grow the file: the pages of records deleted (here by resets) are reused, so
// after 40 rounds of 300 creates and a reset the file is within twice its size after 3.
func TestChurnReusesPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	defer s.close(t)
	a := s.st.Account("acct_churn")
	var after3 int64
	for round := range 40 {
		a.Reset()
		for i := range 300 {
			if _, err := a.CreatePatient(patient(fmt.Sprintf("c%d", i)), time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.e.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, durable.FileName))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case round == 2:
			after3 = fi.Size()
		case round > 2 && fi.Size() > 2*after3:
			t.Fatalf("round %d: the file is %d bytes, %d after round 3", round+1, fi.Size(), after3)
		}
	}
}
