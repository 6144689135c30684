package webhook

import (
	"context"
	"sync"

	"github.com/medspa/medspa-go/webhooks"
)

// Recorder collects an account's events as they are emitted, in process, with no HTTP: for
// tests that only need to know which events happened. It keeps the newest RecorderLimit
// events (Options; default 10,000).
type Recorder struct {
	d       *Dispatcher
	account string
	limit   int

	mu     sync.Mutex
	events []webhooks.Event
	seen   int           // events recorded, including those no longer kept
	signal chan struct{} // closed and replaced on every new event
}

// Events returns the events recorded so far (the newest RecorderLimit), oldest first.
func (r *Recorder) Events() []webhooks.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]webhooks.Event(nil), r.events...)
}

// Wait blocks until at least n events were recorded (returning those kept) or ctx ends.
func (r *Recorder) Wait(ctx context.Context, n int) ([]webhooks.Event, error) {
	for {
		r.mu.Lock()
		if r.seen >= n {
			out := append([]webhooks.Event(nil), r.events...)
			r.mu.Unlock()
			return out, nil
		}
		ch := r.signal
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return r.Events(), ctx.Err()
		case <-ch:
		}
	}
}

// Stop ends the recording; events recorded so far stay readable.
func (r *Recorder) Stop() {
	d := r.d
	d.recMu.Lock()
	defer d.recMu.Unlock()
	list := d.recorders[r.account]
	for i, x := range list {
		if x == r {
			d.recorders[r.account] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
}

func (r *Recorder) add(e webhooks.Event) {
	r.mu.Lock()
	if len(r.events) >= r.limit {
		r.events[0] = webhooks.Event{}
		r.events = r.events[1:]
	}
	r.events = append(r.events, e)
	r.seen++
	close(r.signal)
	r.signal = make(chan struct{})
	r.mu.Unlock()
}

// Record starts recording the account's events.
func (d *Dispatcher) Record(account string) *Recorder {
	r := &Recorder{d: d, account: account, limit: d.o.RecorderLimit, signal: make(chan struct{})}
	d.recMu.Lock()
	d.recorders[account] = append(d.recorders[account], r)
	d.recMu.Unlock()
	return r
}

func (d *Dispatcher) record(account string, e webhooks.Event) {
	d.recMu.Lock()
	rs := d.recorders[account]
	d.recMu.Unlock()
	for _, r := range rs {
		r.add(e)
	}
}
