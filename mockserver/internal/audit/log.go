package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// Default bounds of docs/protocol.md §10.
const (
	// DefaultRetention is how many of an account's newest events memory keeps.
	DefaultRetention = 100_000
	// DefaultAnonymousLimit is the size of the Anonymous ring.
	DefaultAnonymousLimit = 10_000
	// PageLimit is how many events a page (After) holds at most.
	PageLimit = 1_000
)

// Options configure a Log.
type Options struct {
	// Retention is how many events of each account memory keeps (0: DefaultRetention).
	Retention int
	// AnonymousLimit is the size of the Anonymous ring (0: DefaultAnonymousLimit).
	AnonymousLimit int
	// DB, when set, holds an audit file per account, its log "audit/<account>" (file.go),
	// sharing its transactions with the server's other changes: every event is written there
	// before Record returns, and Open loads the newest events of each back into memory. The
	// caller closes DB after the Log.
	DB *durable.DB
}

// ErrNotFound is returned by After for an id the log does not hold.
var ErrNotFound = errors.New("audit: no such event")

// Log holds one chain per account. It is safe for concurrent use.
//
// Its layout is a fenced optimisation (BENCHMARKS.md "Fenced optimisations") kept by
// BenchmarkFenceAuditLog. The events kept are stored in a compact form that holds no pointers,
// so the garbage collector never scans them however many there are: the hash as 32 bytes rather
// than 64 hex digits, no prevHash (it is the previous event's hash, or the checkpoint's), the
// time as Unix seconds, ids of the server's form as their 16 bytes, and every other string
// (actors, addresses, actions, resource types, outcomes, ids of another form) as an index into
// the log's table of distinct strings, which is rebuilt from the events kept whenever it has
// doubled (so strings of events that left memory leave it too). Events live in fixed-size chunks
// used as a ring: appending never copies the events already stored, and the oldest chunk is
// reused once its events have all left. Events rebuilds the full records.
type Log struct {
	opts  Options
	files *files // nil without DB

	mu        sync.Mutex
	chains    map[string]*chain
	symbols   []string          // distinct strings, by index
	symbol    map[string]uint32 // string → index in symbols
	liveSyms  int               // symbols in use at the last rebuild
	spareRing *[chunkEvents]entry

	// onRecord sees events as they are linked (OnRecord).
	onRecord atomic.Pointer[recordHook]
}

// recordHook is OnRecord's f, and whether it wants events at all right now.
type recordHook struct {
	f     func(account string, e Event)
	wants func() bool
}

// OnRecord makes f see every event once it is linked into its chain, while wants reports true
// (at most one f; nil: none). f runs on the recording goroutine and must not block; wants is
// asked per event.
func (l *Log) OnRecord(f func(account string, e Event), wants func() bool) {
	if f == nil {
		l.onRecord.Store(nil)
		return
	}
	l.onRecord.Store(&recordHook{f: f, wants: wants})
}

// hook returns OnRecord's f if it wants events now.
func (l *Log) hook() func(account string, e Event) {
	h := l.onRecord.Load()
	if h == nil || h.wants != nil && !h.wants() {
		return nil
	}
	return h.f
}

// chunkEvents is the number of events per chunk: 1,024 × 136 B = 136 KiB.
const chunkEvents = 1024

// chain is one account's events kept in memory, the checkpoint standing for those that left,
// and the hex hash of the newest (the next event's prevHash).
type chain struct {
	limit   int
	chunks  []*[chunkEvents]entry
	head    int // index in chunks[0] of the oldest event kept
	n       int // events kept
	dropped int64
	// checkpoint is the hash of the last event that left memory (zero: none, the genesis hash).
	checkpoint [sha256.Size]byte
	// last is the newest event's hash in hex (the genesis hash when there is none): kept as an
	// array, an event costs no string for its hash unless one is asked for.
	last [2 * sha256.Size]byte
	// damaged says the account's audit file does not end where its head says (events removed
	// from its end): no page of it verifies.
	damaged bool
	// paths are the Anonymous ring's paths, by event number modulo limit (nil elsewhere).
	paths []string
}

// entry is an event as the log stores it (no pointers).
type entry struct {
	id, requestID, resourceID                compactID
	actor, action, resourceType, ip, outcome uint32 // indexes into Log.symbols
	at                                       int64  // Unix seconds, UTC
	hash                                     [sha256.Size]byte
}

// compactID holds an id of the server's form (wire.WellFormedID: a prefix, "_", 32 lowercase hex
// digits) as the prefix's symbol and the 16 bytes the digits spell; any other id as the symbol
// of the whole.
type compactID struct {
	raw   [16]byte
	sym   uint32 // the prefix's symbol when isRaw, else the whole id's
	isRaw bool
}

// NewLog returns an empty in-memory log with the default bounds.
func NewLog() *Log {
	l, _ := Open(Options{}) // without DB, Open cannot fail
	return l
}

// Open returns a log with opts. With a DB, it loads every account's audit file: memory gets the
// newest events of each and the checkpoint of the rest.
func Open(opts Options) (*Log, error) {
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.AnonymousLimit <= 0 {
		opts.AnonymousLimit = DefaultAnonymousLimit
	}
	l := &Log{opts: opts, chains: map[string]*chain{}, symbol: map[string]uint32{}}
	if opts.DB != nil {
		l.files = &files{db: opts.DB, byAccount: map[string]*file{}}
		if err := l.load(); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Close opens no more audit files (a log without DB has none): the caller's DB.Close then
// writes the events queued.
func (l *Log) Close() error {
	if l.files != nil {
		l.files.close()
	}
	return nil
}

// compact returns id's compact form; the caller holds l.mu.
func (l *Log) compact(id string) compactID {
	if prefix, raw, ok := wire.DecodeID(id); ok {
		return compactID{raw: raw, sym: l.intern(prefix), isRaw: true}
	}
	return compactID{sym: l.intern(id)}
}

// string rebuilds the id; the caller holds l.mu.
func (l *Log) string(c compactID) string {
	if !c.isRaw {
		return l.symbols[c.sym]
	}
	var b [64]byte
	out := append(b[:0], l.symbols[c.sym]...)
	out = append(out, '_')
	out = hex.AppendEncode(out, c.raw[:])
	return string(out)
}

// intern returns the index of s in the log's string table, adding it when new; the caller holds
// l.mu. The table stays small for API traffic (credential ids, client addresses, a few
// constants) and is rebuilt when it has doubled (rebuildSymbols).
func (l *Log) intern(s string) uint32 {
	if i, ok := l.symbol[s]; ok {
		return i
	}
	s = strings.Clone(s)
	i := uint32(len(l.symbols))
	l.symbols = append(l.symbols, s)
	l.symbol[s] = i
	return i
}

// chainOf returns account's chain, creating it; the caller holds l.mu.
func (l *Log) chainOf(account string) *chain {
	c := l.chains[account]
	if c == nil {
		c = &chain{limit: l.opts.Retention}
		copy(c.last[:], GenesisHash)
		if account == Anonymous {
			c.limit = l.opts.AnonymousLimit
			c.paths = make([]string, c.limit)
		}
		l.chains[account] = c
	}
	return c
}

// Append links e into account's chain (setting PrevHash and Hash) and returns it. Under a data
// directory it waits for the event to reach the account's audit file; Record says whether it
// did.
func (l *Log) Append(account string, e Event) Event {
	e, _ = l.record(context.Background(), account, e)
	return e
}

// Record links e into account's chain (setting PrevHash and Hash) and, under a data directory,
// writes it to the account's audit file, returning once it is there: the caller answers its
// request after that (docs/protocol.md §10). An error means the event may not be in the file:
// the request must not be answered as if it were audited. Events of the Anonymous chain keep
// only their path (cut to MaxPathBytes) besides the outcome, time, address and ids; they are
// never written to a file.
func (l *Log) Record(ctx context.Context, account string, e Event) (Event, error) {
	return l.record(ctx, account, e)
}

// Enqueue is Record in two steps: it links e into account's chain and queues it for the
// account's audit file, returning at once; the returned wait returns once the event is in the
// file (at once without a data directory). The caller answers its request only after wait
// returned nil. An event queued right after a change of the data directory's state shares its
// transaction (one commit for both).
func (l *Log) Enqueue(account string, e Event) (wait func(context.Context) error, err error) {
	_, wait, err = l.enqueue(account, e)
	if wait == nil {
		wait = noWait
	}
	return wait, err
}

func noWait(context.Context) error { return nil }

func (l *Log) record(ctx context.Context, account string, e Event) (Event, error) {
	e, wait, err := l.enqueue(account, e)
	if err != nil || wait == nil {
		return e, err
	}
	return e, wait(ctx)
}

// enqueue links e into account's chain and queues its record for the account's file, if any:
// wait (nil without a file) says when it is there.
func (l *Log) enqueue(account string, e Event) (Event, func(context.Context) error, error) {
	e.At = wire.Time(e.At)
	if account == Anonymous {
		e.Actor, e.ResourceID = "", ""
		if e.Path == "" {
			e.Path = "/"
		}
		e.Path = cut(e.Path, MaxPathBytes)
	} else {
		e.Path = ""
	}
	var f *file
	if l.files != nil && account != Anonymous {
		var err error
		if f, err = l.files.get(account); err != nil {
			return e, nil, err
		}
	}
	l.mu.Lock()
	c := l.chainOf(account)
	sum := computeSumHex(&e, &c.last)
	hook := l.hook()
	e.PrevHash = string(c.last[:])
	e.Hash = hex.EncodeToString(sum[:])
	l.push(c, &e, sum)
	var wait func(context.Context) error
	if f != nil {
		wait = f.enqueue(record(e)) // in chain order: under l.mu
	}
	l.mu.Unlock()
	if hook != nil {
		hook(account, e)
	}
	return e, wait, nil
}

// cut returns s cut to at most n bytes, on a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// push stores e (hashed, sum its hash) as c's newest event, dropping the oldest past the limit;
// the caller holds l.mu.
func (l *Log) push(c *chain, e *Event, sum [sha256.Size]byte) {
	hex.Encode(c.last[:], sum[:])
	pos := c.head + c.n
	if pos == len(c.chunks)*chunkEvents {
		chunk := l.spareRing
		if chunk == nil {
			chunk = new([chunkEvents]entry)
		}
		l.spareRing = nil
		c.chunks = append(c.chunks, chunk)
	}
	if c.paths != nil {
		c.paths[(c.dropped+int64(c.n))%int64(c.limit)] = e.Path
	}
	c.chunks[pos/chunkEvents][pos%chunkEvents] = entry{
		id: l.compact(e.ID), requestID: l.compact(e.RequestID), resourceID: l.compact(e.ResourceID),
		actor: l.intern(e.Actor), action: l.intern(e.Action), resourceType: l.intern(e.ResourceType),
		ip: l.intern(e.IP), outcome: l.intern(e.Outcome), at: e.At.Unix(), hash: sum,
	}
	c.n++
	for c.n > c.limit {
		c.checkpoint = c.chunks[0][c.head].hash
		c.dropped++
		c.n--
		c.head++
		if c.head == chunkEvents {
			l.spareRing = c.chunks[0]
			copy(c.chunks, c.chunks[1:])
			c.chunks[len(c.chunks)-1] = nil
			c.chunks = c.chunks[:len(c.chunks)-1]
			c.head = 0
		}
	}
	if len(l.symbols) > max(4096, 2*l.liveSyms) {
		l.rebuildSymbols()
	}
}

// at returns c's i-th kept event (0: the oldest); the caller holds l.mu.
func (c *chain) at(i int) *entry {
	p := c.head + i
	return &c.chunks[p/chunkEvents][p%chunkEvents]
}

// rebuildSymbols makes a fresh string table holding only the strings of the events kept, so the
// strings of events that left memory (addresses, odd ids) leave it too. The caller holds l.mu.
func (l *Log) rebuildSymbols() {
	old := l.symbols
	l.symbols, l.symbol = nil, map[string]uint32{}
	re := func(i *uint32) { *i = l.intern(old[*i]) }
	for _, c := range l.chains {
		for i := range c.n {
			en := c.at(i)
			re(&en.id.sym)
			re(&en.requestID.sym)
			re(&en.resourceID.sym)
			re(&en.actor)
			re(&en.action)
			re(&en.resourceType)
			re(&en.ip)
			re(&en.outcome)
		}
	}
	l.liveSyms = len(l.symbols)
}

// event rebuilds c's i-th kept event with prev as its prevHash; the caller holds l.mu.
func (l *Log) event(c *chain, i int, prev string) Event {
	en := c.at(i)
	e := Event{
		ID: l.string(en.id), At: time.Unix(en.at, 0).UTC(), Actor: l.symbols[en.actor], Action: l.symbols[en.action],
		ResourceType: l.symbols[en.resourceType], ResourceID: l.string(en.resourceID), RequestID: l.string(en.requestID),
		IP: l.symbols[en.ip], Outcome: l.symbols[en.outcome], PrevHash: prev, Hash: hex.EncodeToString(en.hash[:]),
	}
	if c.paths != nil {
		e.Path = c.paths[(c.dropped+int64(i))%int64(c.limit)]
	}
	return e
}

// checkpointOf is c's checkpoint (nothing dropped: 0 and the genesis hash).
func (c *chain) checkpointOf() Checkpoint {
	if c == nil || c.dropped == 0 && c.checkpoint == [sha256.Size]byte{} {
		return Checkpoint{Hash: GenesisHash}
	}
	return Checkpoint{Dropped: c.dropped, Hash: hex.EncodeToString(c.checkpoint[:])}
}

// events rebuilds c's kept events from from to to (exclusive); the caller holds l.mu.
func (l *Log) events(c *chain, from, to int) []Event {
	out := make([]Event, 0, to-from)
	prev := c.checkpointOf().Hash
	if from > 0 {
		prev = hex.EncodeToString(c.at(from - 1).hash[:])
	}
	for i := from; i < to; i++ {
		e := l.event(c, i, prev)
		prev = e.Hash
		out = append(out, e)
	}
	return out
}

// Events returns a copy of account's events kept in memory, oldest first.
func (l *Log) Events(account string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[account]
	if c == nil {
		return []Event{}
	}
	return l.events(c, 0, c.n)
}

// Kept returns account's events kept in memory, oldest first, with the checkpoint that stands
// for those that left and whether they verify from it.
func (l *Log) Kept(account string) Page {
	l.mu.Lock()
	c := l.chains[account]
	p := Page{Events: []Event{}, Checkpoint: c.checkpointOf()}
	if c != nil {
		p.Events = l.events(c, 0, c.n)
	}
	damaged := c != nil && c.damaged
	l.mu.Unlock()
	p.FirstBroken = FirstBroken(p.Checkpoint.Hash, p.Events)
	p.Verified = !damaged && p.FirstBroken == ""
	return p
}

// Checkpoint returns account's checkpoint.
func (l *Log) Checkpoint(account string) Checkpoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.chains[account].checkpointOf()
}

// find returns the index of the kept event with id in c, or -1; the caller holds l.mu.
func (l *Log) find(c *chain, id string) int {
	if c == nil {
		return -1
	}
	want, ok := l.lookupCompact(id)
	if !ok {
		return -1
	}
	for i := c.n - 1; i >= 0; i-- {
		if c.at(i).id == want {
			return i
		}
	}
	return -1
}

// lookupCompact is compact without interning: false when id cannot be in the log.
func (l *Log) lookupCompact(id string) (compactID, bool) {
	if wire.WellFormedID(id) {
		prefix, hexPart, _ := strings.Cut(id, "_")
		var c compactID
		sym, ok := l.symbol[prefix]
		if _, err := hex.Decode(c.raw[:], []byte(hexPart)); err == nil && ok {
			c.sym, c.isRaw = sym, true
			return c, true
		}
		return compactID{}, false
	}
	sym, ok := l.symbol[id]
	return compactID{sym: sym}, ok
}

// After returns up to PageLimit events of account's chain that follow the event with id, oldest
// first (docs/protocol.md §10, `?after=`): from memory when the event is kept there, else from
// the account's audit file. ZeroID pages from the start: the start of the file, or without one
// the oldest event kept. An id the log does not hold is ErrNotFound.
func (l *Log) After(account, id string) (Page, error) {
	l.mu.Lock()
	c := l.chains[account]
	cp := c.checkpointOf()
	from := -1
	switch {
	case id == ZeroID && (c == nil || c.dropped == 0 || l.files == nil || account == Anonymous):
		from = 0
	case id != ZeroID:
		if i := l.find(c, id); i >= 0 {
			from = i + 1
		}
	}
	if from >= 0 {
		n := 0
		if c != nil {
			n = c.n
		}
		to := min(from+PageLimit, n)
		p := Page{Events: []Event{}, Checkpoint: cp, HasMore: to < n}
		if c != nil {
			p.Events = l.events(c, from, to)
		}
		prev := cp.Hash
		if from > 0 {
			prev = hex.EncodeToString(c.at(from - 1).hash[:])
		}
		damaged := c != nil && c.damaged
		l.mu.Unlock()
		p.FirstBroken = FirstBroken(prev, p.Events)
		p.Verified = !damaged && p.FirstBroken == ""
		return p, nil
	}
	newest := ""
	if c != nil {
		newest = string(c.last[:])
	}
	l.mu.Unlock()
	if l.files == nil || account == Anonymous || c == nil {
		return Page{}, ErrNotFound
	}
	p, err := l.files.page(account, id, newest)
	p.Checkpoint = cp
	return p, err
}

// Has reports whether the log holds a chain for account (events, or a checkpoint), in memory or
// loaded from its audit file.
func (l *Log) Has(account string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.chains[account]
	return ok
}
