// Package webhook delivers the mock server's domain events to registered endpoints: signed
// (Standard Webhooks), at least once, with retries on the account's clock, fairly across
// accounts and endpoints, from bounded queues that never block API requests
// (docs/protocol.md §9, §13).
package webhook

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// Defaults of the dispatcher; each bound is an Options field of the same name without Default.
const (
	// DefaultTimeout bounds one attempt, connect, TLS and answer included (docs/protocol.md §13).
	DefaultTimeout = 10 * time.Second
	// DefaultQueueLimit bounds each endpoint's pending deliveries (ready and scheduled
	// retries); overflow drops the oldest (docs/protocol.md §13).
	DefaultQueueLimit = 10_000
	// DefaultBacklogLimit bounds each account's events waiting to be fanned out to its
	// endpoints; overflow drops the oldest event.
	DefaultBacklogLimit = 10_000
	// DefaultLogLimit bounds each account's delivery log (the newest are kept).
	DefaultLogLimit = 10_000
	// DefaultLogTotalLimit bounds the delivery logs of all accounts together; the entries of
	// the accounts that logged least recently go first.
	DefaultLogTotalLimit = 100_000
	// DefaultRecorderLimit bounds the events an EventRecorder keeps (the newest are kept).
	DefaultRecorderLimit = 10_000
	// DefaultMaxInFlight bounds the attempts in flight at once, over every account.
	DefaultMaxInFlight = 64
	// DefaultMaxInFlightPerAccount bounds one account's attempts in flight.
	DefaultMaxInFlightPerAccount = 8
	// DefaultMaxInFlightPerEndpoint bounds one endpoint's attempts in flight.
	DefaultMaxInFlightPerEndpoint = 2
)

// Fixed bounds of the HTTP client and the loop.
const (
	// maxIdleConns bounds the idle connections kept to receivers, over all of them.
	maxIdleConns = 64
	// idleConnTimeout closes a receiver's idle connection.
	idleConnTimeout = 30 * time.Second
	// maxResponseHeader bounds a receiver's answer headers (more fails as too_large).
	maxResponseHeader = 64 << 10
	// maxDrain is how much of a receiver's answer body is read (and discarded) so that the
	// connection can be reused; the body is never kept.
	maxDrain = 64 << 10
	// fanOutTurn is how many events of one account are fanned out per turn of the loop.
	fanOutTurn = 64
	// maxIdle caps how long the loop sleeps, in case a clock moved without notice.
	maxIdle = time.Minute
	// userAgent identifies deliveries.
	userAgent = "medspa-webhooks/1"
	// maxRetryAfter caps a receiver's Retry-After.
	maxRetryAfter = 24 * time.Hour
)

// schedule is the wait before each retry: after the first failed attempt 5 s, and so on; after
// the last, delivery gives up (10 attempts in all).
var schedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// Options configure a Dispatcher. Zero fields take their Default.
type Options struct {
	// Policy guards destination URLs and addresses.
	Policy *Policy
	// Timeout bounds one attempt, connect included (default 10 s).
	Timeout time.Duration
	// QueueLimit bounds each endpoint's pending deliveries (default 10,000).
	QueueLimit int
	// BacklogLimit bounds each account's events not yet fanned out (default 10,000).
	BacklogLimit int
	// LogLimit bounds each account's delivery log (default 10,000).
	LogLimit int
	// LogTotalLimit bounds all accounts' delivery logs together (default 100,000).
	LogTotalLimit int
	// RecorderLimit bounds each EventRecorder (default 10,000).
	RecorderLimit int
	// MaxInFlight bounds the attempts in flight over all accounts (default 64).
	MaxInFlight int
	// MaxInFlightPerAccount bounds one account's attempts in flight (default 8).
	MaxInFlightPerAccount int
	// MaxInFlightPerEndpoint bounds one endpoint's attempts in flight (default 2).
	MaxInFlightPerEndpoint int
}

func (o *Options) defaults() {
	if o.Policy == nil {
		o.Policy = &Policy{}
	}
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&o.QueueLimit, DefaultQueueLimit}, {&o.BacklogLimit, DefaultBacklogLimit},
		{&o.LogLimit, DefaultLogLimit}, {&o.LogTotalLimit, DefaultLogTotalLimit}, {&o.RecorderLimit, DefaultRecorderLimit},
		{&o.MaxInFlight, DefaultMaxInFlight}, {&o.MaxInFlightPerAccount, DefaultMaxInFlightPerAccount},
		{&o.MaxInFlightPerEndpoint, DefaultMaxInFlightPerEndpoint},
	} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
}

// Dispatcher fans events out to endpoints and delivers them. Every queue is bounded (see
// Options); Close abandons what is pending.
type Dispatcher struct {
	store  *store.Store
	policy *Policy
	o      Options
	client *http.Client

	start     sync.Once
	closeOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	wake      chan struct{} // pokes the loop

	// fanMu is held while events move from backlogs into lanes, so that ExportPending sees
	// each event either in a backlog or in a lane, never between.
	fanMu sync.Mutex

	mu         sync.Mutex
	closed     bool
	seq        uint64
	accounts   map[string]*acctQueue
	lanes      map[string]*lane // by endpoint id (ids are unique over accounts)
	ring       []*acctQueue     // accounts that can start an attempt, round-robin
	backlogged []*acctQueue     // accounts with events to fan out, round-robin
	retrying   map[*lane]struct{}
	inflight   int
	// nextCheck is when (in real time) the earliest scheduled retry falls due; recheck asks
	// for a look at every scheduled retry before then (a clock moved).
	nextCheck time.Time
	recheck   atomic.Bool
	// watched are the clocks whose moves poke the loop, held weakly: a clock nobody uses any
	// more leaves the set when it is collected.
	watched map[weak.Pointer[clock.Clock]]struct{}

	logMu    sync.Mutex
	logs     map[string]*deliveryLog
	logOrder list.List // of *deliveryLog, least recently written first
	logTotal int
	logSeq   uint64
	onLog    atomic.Pointer[logHook]

	recMu     sync.Mutex
	recorders map[string][]*Recorder
}

// New returns a dispatcher subscribed to st's events.
func New(st *store.Store, o Options) *Dispatcher {
	o.defaults()
	d := &Dispatcher{
		store: st, policy: o.Policy, o: o,
		wake:     make(chan struct{}, 1),
		accounts: map[string]*acctQueue{}, lanes: map[string]*lane{}, retrying: map[*lane]struct{}{},
		watched: map[weak.Pointer[clock.Clock]]struct{}{},
		logs:    map[string]*deliveryLog{}, recorders: map[string][]*Recorder{},
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.client = &http.Client{
		Transport: &http.Transport{
			Proxy: nil, // deliveries go straight to the receiver, whatever the environment says
			// The dial has its own deadline: net/http lets a dial outlive the request that
			// started it, and a dial to a filtered address must still end.
			DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
				ctx, cancel := context.WithTimeout(ctx, o.Timeout)
				defer cancel()
				return o.Policy.dialContext(ctx, network, address)
			},
			ForceAttemptHTTP2:      true,
			MaxIdleConns:           maxIdleConns,
			MaxIdleConnsPerHost:    o.MaxInFlightPerEndpoint * 2,
			IdleConnTimeout:        idleConnTimeout,
			TLSHandshakeTimeout:    o.Timeout,
			MaxResponseHeaderBytes: maxResponseHeader,
		},
		// Redirects are not followed: a 3xx is a failed attempt.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	st.OnEvent(d.onEvent)
	d.mu.Lock()
	d.watchLocked(st.Clock())
	d.mu.Unlock()
	return d
}

// onEvent runs under the account's lock: it only queues. The loop starts with the first event
// of an account that has endpoints, so a server that never uses webhooks runs no goroutines.
func (d *Dispatcher) onEvent(a *store.Account, e store.Event) {
	d.record(a.ID, e)
	if !a.HasWebhooksLocked() {
		return
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	q := d.accountLocked(a)
	var dropped *webhooks.Event
	if len(q.backlog) >= d.o.BacklogLimit {
		old := q.backlog[0]
		dropped = &old
		q.backlog[0] = webhooks.Event{}
		q.backlog = q.backlog[1:]
	}
	q.backlog = append(q.backlog, e)
	if !q.backlogged {
		q.backlogged = true
		d.backlogged = append(d.backlogged, q)
	}
	d.mu.Unlock()
	if dropped != nil {
		d.log(a.ID, Delivery{EventID: dropped.ID, EventType: dropped.Type, Attempt: 1, At: a.Clock().Now().Truncate(time.Second), Error: ClassDropped, Dropped: true})
	}
	d.startLoop()
	d.kick()
}

func (d *Dispatcher) startLoop() {
	d.start.Do(func() {
		d.wg.Add(1)
		go d.loop()
	})
}

// accountLocked returns a's queue, making it if needed.
func (d *Dispatcher) accountLocked(a *store.Account) *acctQueue {
	q := d.accounts[a.ID]
	if q == nil {
		q = &acctQueue{acct: a, lanes: map[string]*lane{}}
		d.accounts[a.ID] = q
	}
	return q
}

// laneLocked returns the endpoint's lane in q, making it if needed.
func (d *Dispatcher) laneLocked(q *acctQueue, endpoint string) *lane {
	l := q.lanes[endpoint]
	if l == nil {
		l = newLane(endpoint, q)
		q.lanes[endpoint] = l
		d.lanes[endpoint] = l
	}
	return l
}

// releaseLocked forgets l, and its account, once nothing is pending or running there.
func (d *Dispatcher) releaseLocked(l *lane) {
	q := l.owner
	if l.idle() && q.lanes[l.endpoint] == l {
		delete(q.lanes, l.endpoint)
		delete(d.lanes, l.endpoint)
		delete(d.retrying, l)
	}
	d.releaseAccountLocked(q)
}

// releaseAccountLocked forgets q once it holds nothing.
func (d *Dispatcher) releaseAccountLocked(q *acctQueue) {
	if q.idle() && d.accounts[q.acct.ID] == q {
		delete(d.accounts, q.acct.ID)
	}
}

// addLocked queues j in l and returns the jobs the queue bound dropped (j itself if it is the
// oldest), for the caller to log once it has released d.mu.
func (d *Dispatcher) addLocked(l *lane, j *job, now time.Time) []*job {
	l.add(j, now)
	if j.laterAt >= 0 {
		d.retrying[l] = struct{}{}
		clk := l.owner.acct.Clock()
		d.watchLocked(clk)
		if at := time.Now().Add(j.due.Sub(now)); !clk.Frozen() && at.Before(d.nextCheck) {
			d.nextCheck = at
			d.kick()
		}
	}
	var dropped []*job
	for l.pending() > d.o.QueueLimit {
		dropped = append(dropped, l.dropOldest())
	}
	d.markLocked(l)
	return dropped
}

// markLocked puts l in its account's ring, and the account in the dispatcher's, when they can
// start an attempt and are not there yet. Appending at the back is the round-robin.
func (d *Dispatcher) markLocked(l *lane) {
	q := l.owner
	if !l.inRing && l.ready.Len() > 0 && len(l.running) < d.o.MaxInFlightPerEndpoint {
		l.inRing = true
		q.ring = append(q.ring, l)
	}
	if !q.inRing && len(q.ring) > 0 && q.inflight < d.o.MaxInFlightPerAccount {
		q.inRing = true
		d.ring = append(d.ring, q)
	}
}

// nextLocked takes the next job to attempt: the oldest ready job of the next lane of the next
// account, skipping lanes and accounts at their bound (they come back when an attempt ends).
func (d *Dispatcher) nextLocked() (*lane, *job) {
	for d.inflight < d.o.MaxInFlight && len(d.ring) > 0 {
		q := popFront(&d.ring)
		q.inRing = false
		if q.inflight >= d.o.MaxInFlightPerAccount {
			continue
		}
		for len(q.ring) > 0 {
			l := popFront(&q.ring)
			l.inRing = false
			if l.ready.Len() == 0 || len(l.running) >= d.o.MaxInFlightPerEndpoint || q.lanes[l.endpoint] != l {
				continue
			}
			j := l.ready.pop()
			j.epoch = l.epoch
			l.running = append(l.running, j)
			q.inflight++
			d.inflight++
			d.markLocked(l)
			return l, j
		}
	}
	return nil, nil
}

func popFront[T any](s *[]*T) *T {
	v := (*s)[0]
	(*s)[0] = nil
	*s = (*s)[1:]
	return v
}

// watchLocked makes moves of clk wake the loop (the server's clock, and accounts' own clocks
// however they were made).
func (d *Dispatcher) watchLocked(clk *clock.Clock) {
	k := weak.Make(clk)
	if _, ok := d.watched[k]; ok {
		return
	}
	d.watched[k] = struct{}{}
	clk.OnMove(d.Poke)
	runtime.AddCleanup(clk, func(k weak.Pointer[clock.Clock]) {
		d.mu.Lock()
		delete(d.watched, k)
		d.mu.Unlock()
	}, k)
}

// Poke makes the loop look at every scheduled retry now: call it when a clock moved. Clocks
// the dispatcher has seen poke it themselves.
func (d *Dispatcher) Poke() {
	d.recheck.Store(true)
	d.kick()
}

// kick wakes the loop (work to fan out or start, or an earlier retry).
func (d *Dispatcher) kick() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Close stops the loop and abandons pending deliveries; in-flight attempts are cancelled.
// It is safe to call more than once.
func (d *Dispatcher) Close() {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		d.accounts, d.lanes, d.retrying = map[string]*acctQueue{}, map[string]*lane{}, map[*lane]struct{}{}
		d.ring, d.backlogged = nil, nil
		d.mu.Unlock()
		d.cancel()
		d.wg.Wait()
		d.client.CloseIdleConnections()
	})
}

// Drop abandons the endpoint's queued deliveries and pending retries (it was deleted or
// disabled). An attempt in flight finishes but is not retried.
func (d *Dispatcher) Drop(endpointID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.lanes[endpointID]; l != nil {
		l.clear()
		delete(d.retrying, l)
		d.releaseLocked(l)
	}
}

// loop is the dispatcher's one background goroutine besides the attempts: it fans events out
// to lanes, makes retries that fell due ready, and starts attempts, then sleeps until woken or
// until the earliest retry falls due in real time. Scheduled retries are looked at only then
// or when a clock moved, not at every wake-up.
func (d *Dispatcher) loop() {
	defer d.wg.Done()
	timer := time.NewTimer(maxIdle)
	defer timer.Stop()
	for {
		more := d.fanOut()
		d.mu.Lock()
		due := !time.Now().Before(d.nextCheck)
		d.mu.Unlock()
		if d.recheck.Swap(false) || due {
			d.promote()
		}
		d.dispatch()
		d.mu.Lock()
		wait := time.Until(d.nextCheck)
		d.mu.Unlock()
		if more {
			wait = 0
		}
		timer.Reset(max(wait, 0))
		select {
		case <-d.ctx.Done():
			return
		case <-d.wake:
		case <-timer.C:
		}
	}
}

// fanned is one event on its way from a backlog to lanes.
type fanned struct {
	q     *acctQueue
	event webhooks.Event
}

// fanOut moves up to fanOutTurn events of each backlogged account into lanes, accounts
// round-robin; it reports whether events are left.
func (d *Dispatcher) fanOut() bool {
	d.fanMu.Lock()
	defer d.fanMu.Unlock()
	d.mu.Lock()
	var batch []fanned
	for range len(d.backlogged) {
		q := popFront(&d.backlogged)
		n := min(len(q.backlog), fanOutTurn)
		for i := range n {
			batch = append(batch, fanned{q, q.backlog[i]})
			q.backlog[i] = webhooks.Event{}
		}
		q.backlog = q.backlog[n:]
		if len(q.backlog) > 0 {
			d.backlogged = append(d.backlogged, q)
		} else {
			q.backlog, q.backlogged = nil, false
		}
	}
	more := len(d.backlogged) > 0
	d.mu.Unlock()
	d.spread(batch)
	return more
}

// spread makes one job per subscribed endpoint of each event; the caller holds fanMu. The
// store is asked outside d.mu: its hooks run under account locks and take d.mu.
func (d *Dispatcher) spread(batch []fanned) {
	type fan struct {
		ids  []string
		body []byte
		now  time.Time
	}
	fans := make([]fan, len(batch))
	for i := range batch {
		b := &batch[i]
		ids := b.q.acct.WebhookSubscribers(b.event)
		if len(ids) == 0 {
			continue
		}
		body, err := json.Marshal(b.event)
		if err != nil {
			continue // the event model rejects malformed events; nothing deliverable
		}
		fans[i] = fan{ids, body, b.q.acct.Clock().Now()}
	}
	dropped := map[*store.Account][]*job{}
	d.mu.Lock()
	for i := range batch {
		q, e, f := batch[i].q, &batch[i].event, &fans[i]
		if d.closed {
			break
		}
		if len(f.ids) > 0 && d.accounts[q.acct.ID] != q { // released meanwhile
			q = d.accountLocked(q.acct)
		}
		for _, id := range f.ids {
			d.seq++
			l := d.laneLocked(q, id)
			dropped[q.acct] = append(dropped[q.acct], d.addLocked(l, newJob(d.seq, id, e.ID, e.Type, f.body, 1, f.now), f.now)...)
		}
		d.releaseAccountLocked(q) // when none of its events had a subscriber
	}
	d.mu.Unlock()
	for a, js := range dropped {
		d.logDropped(a, js)
	}
}

// promote makes the retries that fell due ready and sets nextCheck to when the next one falls
// due in real time (in maxIdle when none will on a running clock).
func (d *Dispatcher) promote() {
	d.mu.Lock()
	defer d.mu.Unlock()
	wait := maxIdle
	for l := range d.retrying {
		clk := l.owner.acct.Clock()
		d.watchLocked(clk)
		now := clk.Now()
		if l.promote(now) {
			d.markLocked(l)
		}
		next := l.later.peek()
		switch {
		case next == nil:
			delete(d.retrying, l)
		case !clk.Frozen():
			wait = min(wait, max(next.due.Sub(now), time.Millisecond))
		}
	}
	d.nextCheck = time.Now().Add(wait)
}

// dispatch starts as many attempts as the bounds allow.
func (d *Dispatcher) dispatch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for !d.closed {
		l, j := d.nextLocked()
		if j == nil {
			return
		}
		d.wg.Add(1)
		go d.run(l, j)
	}
}

// run makes one attempt and hands its retry, if any, back to the lane.
func (d *Dispatcher) run(l *lane, j *job) {
	defer d.wg.Done()
	a := l.owner.acct
	retry := d.deliver(a, j)
	now := a.Clock().Now()
	d.mu.Lock()
	l.finished(j)
	l.owner.inflight--
	d.inflight--
	var dropped []*job
	if retry != nil && !d.closed && j.epoch == l.epoch {
		dropped = d.addLocked(l, retry, now)
	}
	d.markLocked(l) // also gives the account its turn back if it was at its bound
	d.releaseLocked(l)
	d.mu.Unlock()
	d.logDropped(a, dropped)
	d.kick()
}

// deliver makes one attempt of j and returns its retry (nil when delivered, given up, or the
// endpoint is gone, disabled or answered 410).
func (d *Dispatcher) deliver(a *store.Account, j *job) *job {
	t, ok := a.WebhookTarget(j.endpoint)
	if !ok || !t.Enabled {
		return nil // deleted or disabled since: nothing to deliver
	}
	rec, resp := d.attempt(d.ctx, a, t, j.eventID, j.typ, j.body, j.attempt)
	if d.ctx.Err() != nil {
		return nil // closing: the attempt was cancelled, not failed
	}
	var next *job
	if !rec.Delivered {
		switch {
		case resp.status == http.StatusGone:
			a.DisableWebhook(j.endpoint)
			d.Drop(j.endpoint)
		case j.attempt <= len(schedule):
			wait := schedule[j.attempt-1]
			if resp.status == http.StatusTooManyRequests || resp.status == http.StatusServiceUnavailable {
				wait = max(wait, resp.retryAfter)
			}
			next = newJob(j.seq, j.endpoint, j.eventID, j.typ, j.body, j.attempt+1, resp.at.Add(wait))
			due := next.due
			rec.NextAttemptAt = &due
		}
	}
	// Log before the retry is queued, so the log lists attempts in order; after disabling, so
	// whoever sees a 410 in the log sees the endpoint disabled.
	d.log(a.ID, rec)
	return next
}

// response is what an attempt learned from the receiver.
type response struct {
	at         time.Time // the account clock when the attempt started
	status     int
	retryAfter time.Duration
}

// attempt POSTs one signed delivery and describes it.
func (d *Dispatcher) attempt(ctx context.Context, a *store.Account, t store.WebhookTarget, eventID string, typ webhooks.EventType, body []byte, n int) (Delivery, response) {
	at := a.Clock().Now()
	rec := Delivery{EventID: eventID, EventType: typ, EndpointID: t.ID, URL: displayURL(t.URL), Attempt: n, At: at.Truncate(time.Second)}
	out := response{at: at}
	rec.body = body
	h, err := signHeaders(t.Secrets(at), eventID, at, body)
	if err != nil {
		rec.Error = ClassInvalidEndpoint
		return rec, out
	}
	rec.signature = h.Get(webhooks.HeaderSignature)
	// The attempt's duration and its timeout run from the same instant, so an attempt cut by
	// the timeout reports at least the timeout.
	started := time.Now()
	ctx, cancel := context.WithDeadline(ctx, started.Add(d.o.Timeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		rec.Error = ClassInvalidEndpoint
		return rec, out
	}
	req.Header = h
	req.Header.Set("User-Agent", userAgent)
	resp, err := d.client.Do(req)
	if err == nil {
		// Drain a little so the connection can be reused; the body is never kept.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
		resp.Body.Close()
	}
	rec.DurationMs = time.Since(started).Milliseconds()
	if err != nil {
		rec.Error = classify(err)
		return rec, out
	}
	out.status = resp.StatusCode
	out.retryAfter = wire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), maxRetryAfter)
	rec.StatusCode = resp.StatusCode
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		rec.Delivered = true
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		rec.Error = ClassRedirect
	default:
		rec.Error = ClassStatus
	}
	return rec, out
}

// signHeaders returns the Standard Webhooks headers of a delivery signed with each secret, in
// order: during a rotation's overlap, webhook-signature holds the new secret's signature, then
// the old one's, space-separated (docs/protocol.md §9), so receivers that know either accept it.
func signHeaders(secrets []string, eventID string, at time.Time, body []byte) (http.Header, error) {
	h, err := webhooks.SignHeaders(secrets[0], eventID, at, body)
	if err != nil {
		return nil, err
	}
	sigs := []string{h.Get(webhooks.HeaderSignature)}
	for _, s := range secrets[1:] {
		sig, err := webhooks.Sign(s, eventID, at, body)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, sig)
	}
	h.Set(webhooks.HeaderSignature, strings.Join(sigs, " "))
	return h, nil
}

// TestResult is the answer of POST /webhooks/{id}/test.
type TestResult struct {
	EventID    string `json:"eventId"`
	Delivered  bool   `json:"delivered"`
	StatusCode *int   `json:"statusCode"`
	DurationMs int64  `json:"durationMs"`
	// Error is the error class of a failed delivery (see ErrorClasses), null when delivered.
	Error *string `json:"error"`
}

// Test delivers a webhook.test event to the endpoint now, once (no retries), and reports it.
// It runs on the caller's goroutine, outside the queues and their bounds.
func (d *Dispatcher) Test(ctx context.Context, a *store.Account, t store.WebhookTarget) TestResult {
	e := webhooks.Event{ID: a.NewEventID(), Type: webhooks.EventWebhookTest, CreatedAt: a.Now(), Data: &webhooks.TestData{ID: t.ID}}
	body, _ := json.Marshal(e) // a well-formed test event: cannot fail
	rec, _ := d.attempt(ctx, a, t, e.ID, e.Type, body, 1)
	d.log(a.ID, rec)
	out := TestResult{EventID: e.ID, Delivered: rec.Delivered, DurationMs: rec.DurationMs}
	if rec.StatusCode != 0 {
		out.StatusCode = &rec.StatusCode
	}
	if rec.Error != "" {
		out.Error = &rec.Error
	}
	return out
}

// CheckURL validates an endpoint URL against the dispatcher's policy (see Policy.CheckURL).
func (d *Dispatcher) CheckURL(ctx context.Context, raw string) (code, detail string) {
	return d.policy.CheckURL(ctx, raw)
}
