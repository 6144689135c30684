// Package store holds the mock server's domain state and rules, per account, with no HTTP: the
// records, their validation (input.go: every field rule, every invalid field listed at once),
// their invariants, and the domain's errors (errors.go), which the HTTP layer turns into problem
// documents in one place. Each account has its own lock, so unrelated accounts never contend;
// every mutation is one transaction under its account's lock (commit.go), so every rule that
// must be atomic (conflicts, stock, payments) holds, and every committed change passes one
// commit point.
package store

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
)

// Store is every account's state.
type Store struct {
	clock    *clock.Clock
	ids      *IDGen
	sealer   *Sealer
	checkURL URLCheck
	// idemLimit bounds each account's idempotency keys and answers' bytes.
	idemLimit idemBounds

	mu sync.RWMutex // guards the hooks
	// accounts maps an account id to its *Account: a sync.Map, whose case this is (keys written
	// once, read by every request).
	accounts sync.Map

	// onEvent is called (under the account's lock, so it must not block) for every domain event.
	onEvent func(*Account, Event)
	// onCommit is called (under the account's lock) for every committed change (commit.go);
	// commitValues says it wants each write's record.
	onCommit     func(*Account, Change) Pending
	commitValues bool
}

// Options configure a Store.
type Options struct {
	// Clock is the server-wide clock (default: real time).
	Clock *clock.Clock
	// IDs generates ids (default: random).
	IDs *IDGen
	// Sealer encrypts PHI at rest (default: a random key per process).
	Sealer *Sealer
	// WebhookURLs judges webhook endpoint URLs (the network policy: SSRF guard); nil allows
	// every absolute URL.
	WebhookURLs URLCheck
	// IdempotencyKeys bounds each account's idempotency keys (0: DefaultIdempotencyKeys).
	IdempotencyKeys int
	// IdempotencyBytes bounds the bytes of each account's stored answers (0:
	// DefaultIdempotencyBytes).
	IdempotencyBytes int
}

// New returns an empty store.
func New(o Options) *Store {
	if o.Clock == nil {
		o.Clock = clock.New()
	}
	if o.IDs == nil {
		o.IDs = NewIDGen(0)
	}
	if o.Sealer == nil {
		o.Sealer = NewSealer(nil)
	}
	return &Store{clock: o.Clock, ids: o.IDs, sealer: o.Sealer, checkURL: o.WebhookURLs, idemLimit: idemBounds{o.IdempotencyKeys, o.IdempotencyBytes}}
}

// Clock returns the server-wide clock.
func (s *Store) Clock() *clock.Clock { return s.clock }

// IDs returns the id generator.
func (s *Store) IDs() *IDGen { return s.ids }

// OnEvent registers the event hook (one; a later call replaces it). f must not block.
func (s *Store) OnEvent(f func(*Account, Event)) {
	s.mu.Lock()
	s.onEvent = f
	s.mu.Unlock()
}

// Account returns the account with the given id, creating it empty if needed.
func (s *Store) Account(id string) *Account {
	if a, ok := s.accounts.Load(id); ok {
		return a.(*Account)
	}
	s.mu.Lock() // one account made per id: newAccount is not free
	defer s.mu.Unlock()
	if a, ok := s.accounts.Load(id); ok {
		return a.(*Account)
	}
	a := newAccount(s, id)
	s.accounts.Store(id, a)
	return a
}

// LookupAccount returns the account if it exists.
func (s *Store) LookupAccount(id string) (*Account, bool) {
	a, ok := s.accounts.Load(id)
	if !ok {
		return nil, false
	}
	return a.(*Account), true
}

// Accounts returns every account.
func (s *Store) Accounts() []*Account {
	out := []*Account{}
	s.accounts.Range(func(_, a any) bool {
		out = append(out, a.(*Account))
		return true
	})
	return out
}

// Account is a handle on one tenant's data. Its methods are safe for concurrent use. The
// store's own handle (Store.Account) is the account; Session and Batch give handles that add a
// scope — one request's idempotency claim and durability, or one fixture load's transaction —
// over the same data.
type Account struct {
	*tenant
	scope *scope // nil on the account's own handle
}

// tenant is one account's state, shared by its handles.
type tenant struct {
	ID    string
	store *Store
	self  *Account // the account's own handle: the one hooks see
	// indexKey is the account's blind index key (seal.go).
	indexKey []byte

	// clock is the account's own clock, or nil for the server's. Atomic, as the clocks' settings
	// are: every request asks for it.
	clock atomic.Pointer[clock.Clock]

	mu   sync.RWMutex
	data *data

	idemMu sync.Mutex
	idem   *idemStore

	// seq numbers the account's commits (Change.Seq).
	seq atomic.Uint64
	// claimMu guards unresolved, the number of idempotency claims with committed writes and
	// no outcome yet; claimIdle signals it falling to zero (Export waits for that, so a
	// snapshot never holds a keyed write without its entry).
	claimMu    sync.Mutex
	claimIdle  sync.Cond
	unresolved int
	// claims numbers claims, so each has a name of its own in a log.
	claims atomic.Uint64
}

// scope is what a handle made by Session or Batch adds to the account. A handle is used by one
// goroutine at a time (one request's, or one fixture load's).
type scope struct {
	// batch is the transaction every mutation joins (Batch).
	batch *tx
	// claim names the idempotency claim the request holds once BeginIdempotent let it
	// proceed, until FinishIdempotent; committed says it has committed writes since.
	claim     string
	committed bool
	// pending is the durability of the request's last commit (Session.Wait).
	pending Pending
}

// data is everything Reset empties, snapshots copy and -data files persist. Every field is
// serialized with encoding/json: tables by their records (each table a kind of record, found
// by reflection: see tables.go), and any derived index must be a serializable field too, and
// be rebuilt from the tables by reindex, so a restore or a replay loses nothing.
type data struct {
	Patients     *table[PatientRecord]     `json:"patients"`
	Appointments *table[AppointmentRecord] `json:"appointments"`
	Events       []Event                   `json:"events"`
	Webhooks     *table[WebhookRecord]     `json:"webhooks"`

	Invoices    *table[InvoiceRecord]     `json:"invoices"`
	Payments    *table[billing.Payment]   `json:"payments"`
	Refunds     *table[RefundRecord]      `json:"refunds"`
	Products    *table[inventory.Product] `json:"products"`
	SKUs        map[string]string         `json:"skus"` // lowercase SKU → product id
	Stock       *table[StockRecord]       `json:"stock"`
	StockKeys   map[string]string         `json:"stockKeys"` // productId/location → stock record id
	Adjustments *table[AdjustmentRecord]  `json:"adjustments"`
}

func newData() *data {
	d := &data{
		Patients:     newTable("patient", patientKey),
		Appointments: newTable("appointment", func(r *AppointmentRecord) sortKey { return sortKey{r.StartAt, r.ID} }),
		Webhooks:     newTable("webhook", func(w *WebhookRecord) sortKey { return sortKey{w.CreatedAt, w.ID} }),
	}
	newBillingTables(d)
	newInventoryTables(d)
	return d
}

func newAccount(s *Store, id string) *Account {
	t := &tenant{ID: id, store: s, indexKey: s.sealer.accountIndexKey(id), data: newData(), idem: newIdemStore(s.idemLimit)}
	t.claimIdle.L = &t.claimMu
	t.self = &Account{tenant: t}
	return t.self
}

// Clock returns the account's clock: its own if set, else the server's.
func (a *Account) Clock() *clock.Clock {
	if c := a.clock.Load(); c != nil {
		return c
	}
	return a.store.clock
}

// SetClock gives the account a clock of its own (nil returns it to the server's).
func (a *Account) SetClock(c *clock.Clock) {
	a.clock.Store(c)
}

// Now is the account's current time, truncated to the protocol's second precision.
func (a *Account) Now() time.Time { return wire.Time(a.Clock().Now()) }

// Reset empties the account's data and idempotency keys; credentials survive.
func (a *Account) Reset() { a.replace(newData(), newIdemStore(a.store.idemLimit), nil, "") }

// replace puts d and idem in place of the account's state, as one change (Replaced, with
// state and source as Change says).
func (a *Account) replace(d *data, idem *idemStore, state []byte, source string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.idemMu.Lock() // under a.mu: the data and the keys change together
	defer a.idemMu.Unlock()
	a.data, a.idem = d, idem
	a.commitLocked(Change{Account: a.ID, Replaced: true, State: state, Source: source})
}

// newID returns a fresh id with the prefix, time-ordered on the account's clock.
func (a *Account) newID(prefix string) string { return a.store.ids.New(prefix, a.Clock().Now()) }
