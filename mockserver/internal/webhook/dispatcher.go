// Package webhook delivers the mock server's domain events to registered endpoints: signed
// (Standard Webhooks), at least once, with retries on the account's clock, from a small worker
// pool that never blocks API requests.
package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// Defaults of the dispatcher.
const (
	DefaultTimeout = 10 * time.Second
	// workers bounds deliveries in flight; perEndpoint bounds them per endpoint, so a hanging
	// receiver holds at most that many workers and other endpoints keep flowing.
	workers     = 8
	perEndpoint = 2
	// logSize bounds each account's delivery log.
	logSize = 10000
	// maxIdle caps how long the scheduler sleeps, in case a clock moved without notice.
	maxIdle = time.Minute
	// userAgent identifies deliveries.
	userAgent = "medspa-webhooks/1"
)

// schedule is the wait before each retry: after the first failed attempt 5 s, and so on; after
// the last, delivery gives up (10 attempts in all).
var schedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// maxRetryAfter caps a receiver's Retry-After.
const maxRetryAfter = 24 * time.Hour

// Options configure a Dispatcher.
type Options struct {
	// Policy guards destination URLs and addresses.
	Policy *Policy
	// Timeout bounds one attempt (default 10 s).
	Timeout time.Duration
}

// Delivery is one delivery attempt, as the admin surface shows it.
type Delivery struct {
	EventID    string             `json:"eventId"`
	EventType  webhooks.EventType `json:"eventType"`
	EndpointID string             `json:"endpointId"`
	URL        string             `json:"url"`
	// Attempt counts from 1; test deliveries are always attempt 1.
	Attempt int `json:"attempt"`
	// StatusCode is the receiver's status, 0 when no response arrived.
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
	// At is the account clock when the attempt started (the webhook-timestamp sent).
	At time.Time `json:"at"`
	// Delivered is true on a 2xx.
	Delivered bool `json:"delivered"`
	// NextAttemptAt is when the retry falls due on the account clock, if one is scheduled.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

// pendingEvent is an emitted event waiting to be fanned out to its endpoints.
type pendingEvent struct {
	acct  *store.Account
	event webhooks.Event
}

// job is one delivery of one event to one endpoint.
type job struct {
	acct     *store.Account
	endpoint string
	eventID  string
	typ      webhooks.EventType
	body     []byte
	attempt  int       // the attempt about to be made, from 1
	due      time.Time // on the account's clock
}

// lane is one endpoint's queue of ready jobs.
type lane struct {
	jobs     []*job
	inflight int
	queued   bool // in Dispatcher.runnable
}

// Dispatcher fans events out to endpoints and delivers them. Pending work is an unbounded
// in-memory queue (never dropped while the server runs); Close abandons it.
type Dispatcher struct {
	store   *store.Store
	policy  *Policy
	timeout time.Duration
	client  *http.Client

	start     sync.Once
	closeOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	wake      chan struct{} // pokes the scheduler
	fanWake   chan struct{} // pokes the fan-out loop

	mu       sync.Mutex
	cond     *sync.Cond
	closed   bool
	events   []pendingEvent
	lanes    map[string]*lane
	runnable []*lane
	waiting  []*job // retries not yet due
	watched  map[*clock.Clock]bool

	logMu sync.Mutex
	logs  map[string][]Delivery

	recMu     sync.Mutex
	recorders map[string][]*Recorder
}

// New returns a dispatcher subscribed to st's events.
func New(st *store.Store, o Options) *Dispatcher {
	if o.Policy == nil {
		o.Policy = &Policy{}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	d := &Dispatcher{
		store: st, policy: o.Policy, timeout: o.Timeout,
		wake: make(chan struct{}, 1), fanWake: make(chan struct{}, 1), lanes: map[string]*lane{}, watched: map[*clock.Clock]bool{},
		logs: map[string][]Delivery{}, recorders: map[string][]*Recorder{},
	}
	d.cond = sync.NewCond(&d.mu)
	d.ctx, d.cancel = context.WithCancel(context.Background())
	dialer := &net.Dialer{Timeout: o.Timeout, Control: o.Policy.control}
	d.client = &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // deliveries go straight to the receiver
			DialContext:         dialer.DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: perEndpoint * 2,
			IdleConnTimeout:     30 * time.Second,
			TLSHandshakeTimeout: o.Timeout,
		},
		// Redirects are not followed: a 3xx is a failed attempt.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	st.OnEvent(d.onEvent)
	d.watch(st.Clock())
	return d
}

// onEvent runs under the account's lock: it only queues. Workers start with the first event
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
	d.events = append(d.events, pendingEvent{acct: a, event: e})
	d.mu.Unlock()
	d.startWorkers()
	select {
	case d.fanWake <- struct{}{}:
	default:
	}
}

func (d *Dispatcher) startWorkers() {
	d.start.Do(func() {
		d.wg.Add(workers + 2)
		for range workers {
			go d.worker()
		}
		go d.scheduler()
		go d.fanOutLoop()
	})
}

// watch makes moves of clk wake the scheduler (the server's clock, and accounts' own clocks
// however they were made); the caller holds d.mu or is New.
func (d *Dispatcher) watch(clk *clock.Clock) {
	if !d.watched[clk] {
		d.watched[clk] = true
		clk.OnMove(d.Poke)
	}
}

// Poke makes the scheduler look at pending retries now (a clock moved).
func (d *Dispatcher) Poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Close stops the workers and abandons pending deliveries; in-flight attempts are cancelled.
// It is safe to call more than once.
func (d *Dispatcher) Close() {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		d.events, d.lanes, d.runnable, d.waiting = nil, map[string]*lane{}, nil, nil
		d.mu.Unlock()
		d.cancel()
		d.cond.Broadcast()
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
		l.jobs = nil
	}
	d.waiting = slices.DeleteFunc(d.waiting, func(j *job) bool { return j.endpoint == endpointID })
}

// next blocks until there is a job to deliver.
func (d *Dispatcher) next() (*job, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		if d.closed {
			return nil, false
		}
		for len(d.runnable) > 0 {
			l := d.runnable[0]
			d.runnable[0] = nil
			d.runnable = d.runnable[1:]
			l.queued = false
			if len(l.jobs) == 0 || l.inflight >= perEndpoint {
				continue
			}
			j := l.jobs[0]
			l.jobs[0] = nil
			l.jobs = l.jobs[1:]
			l.inflight++
			if len(l.jobs) > 0 && l.inflight < perEndpoint {
				l.queued = true
				d.runnable = append(d.runnable, l)
			}
			return j, true
		}
		d.cond.Wait()
	}
}

// enqueueLocked makes j ready; the caller holds d.mu and signals.
func (d *Dispatcher) enqueueLocked(j *job) {
	l := d.lanes[j.endpoint]
	if l == nil {
		l = &lane{}
		d.lanes[j.endpoint] = l
	}
	l.jobs = append(l.jobs, j)
	if !l.queued && l.inflight < perEndpoint {
		l.queued = true
		d.runnable = append(d.runnable, l)
	}
}

// finish releases j's endpoint slot.
func (d *Dispatcher) finish(j *job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.lanes[j.endpoint]
	if l == nil {
		return
	}
	l.inflight--
	switch {
	case len(l.jobs) > 0 && !l.queued:
		l.queued = true
		d.runnable = append(d.runnable, l)
		d.cond.Signal()
	case len(l.jobs) == 0 && l.inflight == 0 && !l.queued:
		delete(d.lanes, j.endpoint)
	}
}

func (d *Dispatcher) worker() {
	defer d.wg.Done()
	for {
		j, ok := d.next()
		if !ok {
			return
		}
		d.deliver(j)
		d.finish(j)
	}
}

// fanOutLoop turns emitted events into jobs. It runs apart from the workers, so events keep
// flowing to healthy endpoints even while every worker waits on slow receivers.
func (d *Dispatcher) fanOutLoop() {
	defer d.wg.Done()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-d.fanWake:
		}
		d.mu.Lock()
		batch := d.events
		d.events = nil
		d.mu.Unlock()
		for i := range batch {
			d.fanOut(&batch[i])
		}
	}
}

// fanOut makes one job per subscribed endpoint.
func (d *Dispatcher) fanOut(ev *pendingEvent) {
	ids := ev.acct.WebhookSubscribers(ev.event)
	if len(ids) == 0 {
		return
	}
	body, err := json.Marshal(ev.event)
	if err != nil {
		return // the event model rejects malformed events; nothing deliverable
	}
	now := ev.acct.Clock().Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, id := range ids {
		d.enqueueLocked(&job{acct: ev.acct, endpoint: id, eventID: ev.event.ID, typ: ev.event.Type, body: body, attempt: 1, due: now})
	}
	d.cond.Broadcast()
}

// deliver makes one attempt of j and schedules its retry or the endpoint's disabling.
func (d *Dispatcher) deliver(j *job) {
	t, ok := j.acct.WebhookTarget(j.endpoint)
	if !ok || !t.Enabled {
		return // deleted or disabled since: nothing to deliver
	}
	rec, resp := d.attempt(d.ctx, j.acct, t, j.eventID, j.typ, j.body, j.attempt)
	if d.ctx.Err() != nil {
		return // closing: the attempt was cancelled, not failed
	}
	var next *job
	if !rec.Delivered {
		switch {
		case resp.status == http.StatusGone:
			j.acct.DisableWebhook(j.endpoint)
			d.Drop(j.endpoint)
		case j.attempt <= len(schedule):
			wait := schedule[j.attempt-1]
			if resp.status == http.StatusTooManyRequests || resp.status == http.StatusServiceUnavailable {
				wait = max(wait, min(resp.retryAfter, maxRetryAfter))
			}
			next = &job{acct: j.acct, endpoint: j.endpoint, eventID: j.eventID, typ: j.typ, body: j.body, attempt: j.attempt + 1, due: resp.at.Add(wait)}
			due := next.due
			rec.NextAttemptAt = &due
		}
	}
	// Log before the retry is queued, so the log lists attempts in order; after disabling, so
	// whoever sees a 410 in the log sees the endpoint disabled.
	d.log(j.acct.ID, rec)
	if next != nil {
		d.retry(next)
	}
}

func (d *Dispatcher) retry(j *job) {
	d.mu.Lock()
	if !d.closed {
		d.waiting = append(d.waiting, j)
	}
	d.mu.Unlock()
	d.Poke()
}

// scheduler moves retries that fell due (on their account's clock) to the ready queues. It
// wakes when the earliest falls due in real time, and whenever a clock moves.
func (d *Dispatcher) scheduler() {
	defer d.wg.Done()
	timer := time.NewTimer(maxIdle)
	defer timer.Stop()
	for {
		d.mu.Lock()
		wait := maxIdle
		keep := d.waiting[:0]
		moved := false
		for _, j := range d.waiting {
			clk := j.acct.Clock()
			d.watch(clk)
			now := clk.Now()
			if !now.Before(j.due) {
				d.enqueueLocked(j)
				moved = true
				continue
			}
			keep = append(keep, j)
			if !clk.Frozen() {
				wait = min(wait, j.due.Sub(now))
			}
		}
		clear(d.waiting[len(keep):])
		d.waiting = keep
		d.mu.Unlock()
		if moved {
			d.cond.Broadcast()
		}
		timer.Reset(wait)
		select {
		case <-d.ctx.Done():
			return
		case <-d.wake:
		case <-timer.C:
		}
	}
}

// response is what an attempt learned from the receiver.
type response struct {
	at         time.Time // the account clock when the attempt started
	status     int
	retryAfter time.Duration
}

// attempt POSTs one signed delivery and records it.
func (d *Dispatcher) attempt(ctx context.Context, a *store.Account, t store.WebhookTarget, eventID string, typ webhooks.EventType, body []byte, n int) (Delivery, response) {
	at := a.Clock().Now()
	rec := Delivery{EventID: eventID, EventType: typ, EndpointID: t.ID, URL: t.URL, Attempt: n, At: at.Truncate(time.Second)}
	out := response{at: at}
	h, err := webhooks.SignHeaders(t.Secret, eventID, at, body)
	if err != nil {
		rec.Error = "the endpoint secret is invalid"
		return rec, out
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		rec.Error = "the endpoint URL is invalid"
		return rec, out
	}
	req.Header = h
	req.Header.Set("User-Agent", userAgent)
	started := time.Now()
	resp, err := d.client.Do(req)
	if err == nil {
		// Drain a little so the connection can be reused; the body is never kept.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}
	rec.DurationMs = time.Since(started).Milliseconds()
	if err != nil {
		rec.Error = describe(err, d.timeout)
		return rec, out
	}
	out.status = resp.StatusCode
	out.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	rec.StatusCode = resp.StatusCode
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		rec.Delivered = true
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		rec.Error = "the receiver answered " + strconv.Itoa(resp.StatusCode) + " (redirects are not followed)"
	default:
		rec.Error = "the receiver answered " + strconv.Itoa(resp.StatusCode)
	}
	return rec, out
}

// describe turns a transport error into a short text with no URL, payload or PHI.
func describe(err error, timeout time.Duration) string {
	var opErr *net.OpError
	switch {
	case errors.Is(err, errBlockedAddress):
		return "the destination address is not allowed (private or link-local)"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return "timed out after " + timeout.String()
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the receiver"
	case errors.As(err, new(*tls.CertificateVerificationError)):
		return "the receiver's TLS certificate is not trusted"
	case errors.As(err, new(tls.RecordHeaderError)) || strings.Contains(err.Error(), "gave HTTP response to HTTPS client"):
		return "the receiver does not speak TLS"
	case errors.As(err, new(*net.DNSError)):
		return "the host name could not be resolved"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "could not connect to the receiver"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the receiver closed the connection without answering"
	}
	return "the delivery failed before a response arrived"
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date (relative to real time now);
// the wait is then applied on the account clock from the attempt.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0
		}
		return min(time.Duration(min(s, int64(maxRetryAfter/time.Second)))*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

// log appends rec to the account's bounded delivery log.
func (d *Dispatcher) log(account string, rec Delivery) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	l := append(d.logs[account], rec)
	if len(l) > logSize {
		l = slices.Delete(l, 0, len(l)-logSize)
	}
	d.logs[account] = l
}

// Deliveries returns the account's delivery attempts, oldest first ("" for every account's).
func (d *Dispatcher) Deliveries(account string) []Delivery {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	if account != "" {
		return slices.Clone(d.logs[account])
	}
	var out []Delivery
	for _, l := range d.logs {
		out = append(out, l...)
	}
	slices.SortStableFunc(out, func(a, b Delivery) int { return a.At.Compare(b.At) })
	return out
}

// TestResult is the answer of POST /webhooks/{id}/test.
type TestResult struct {
	EventID    string  `json:"eventId"`
	Delivered  bool    `json:"delivered"`
	StatusCode *int    `json:"statusCode"`
	DurationMs int64   `json:"durationMs"`
	Error      *string `json:"error"`
}

// Test delivers a webhook.test event to the endpoint now, once (no retries), and reports it.
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
