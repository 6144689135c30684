package webhook

import (
	"container/heap"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// The queues of the dispatcher, all guarded by Dispatcher.mu.
//
// Fairness: an account is a queue of lanes, a lane is one endpoint's pending deliveries. The
// dispatcher starts attempts round-robin over the accounts that have a lane ready to run, and
// within an account round-robin over its ready lanes, one attempt per turn; a lane runs at most
// MaxInFlightPerEndpoint attempts at a time and an account MaxInFlightPerAccount. So a receiver
// that hangs holds only its own lane's slots, an account with many slow endpoints holds only its
// account's, and an account with a long queue gets one turn in each round like any other.

// job is one delivery of one event to one endpoint, waiting or in flight.
type job struct {
	seq      uint64 // order of arrival: the oldest pending job is the one dropped on overflow
	endpoint string
	eventID  string
	typ      webhooks.EventType
	body     []byte
	attempt  int       // the attempt about to be made, from 1
	due      time.Time // on the account's clock
	epoch    uint64    // the lane's epoch when the attempt started
	// Positions in the lane's heaps (-1 when not in it).
	readyAt, laterAt, ageAt int
}

func newJob(seq uint64, endpoint, eventID string, typ webhooks.EventType, body []byte, attempt int, due time.Time) *job {
	return &job{seq: seq, endpoint: endpoint, eventID: eventID, typ: typ, body: body, attempt: attempt, due: due, readyAt: -1, laterAt: -1, ageAt: -1}
}

// jobHeap is a binary heap of jobs that keeps each job's position, so that a job can leave
// from the middle (a drop) in O(log n).
type jobHeap struct {
	jobs []*job
	less func(a, b *job) bool
	pos  func(*job) *int
}

func bySeq(a, b *job) bool { return a.seq < b.seq }
func byDue(a, b *job) bool { return a.due.Before(b.due) || a.due.Equal(b.due) && a.seq < b.seq }

func (h *jobHeap) Len() int           { return len(h.jobs) }
func (h *jobHeap) Less(i, k int) bool { return h.less(h.jobs[i], h.jobs[k]) }
func (h *jobHeap) Swap(i, k int) {
	h.jobs[i], h.jobs[k] = h.jobs[k], h.jobs[i]
	*h.pos(h.jobs[i]), *h.pos(h.jobs[k]) = i, k
}
func (h *jobHeap) Push(x any) {
	j := x.(*job)
	*h.pos(j) = len(h.jobs)
	h.jobs = append(h.jobs, j)
}
func (h *jobHeap) Pop() any {
	n := len(h.jobs) - 1
	j := h.jobs[n]
	h.jobs[n] = nil
	h.jobs = h.jobs[:n]
	*h.pos(j) = -1
	return j
}

func (h *jobHeap) push(j *job) { heap.Push(h, j) }
func (h *jobHeap) pop() *job   { return heap.Pop(h).(*job) }
func (h *jobHeap) remove(j *job) {
	if i := *h.pos(j); i >= 0 {
		heap.Remove(h, i)
	}
}
func (h *jobHeap) peek() *job {
	if len(h.jobs) == 0 {
		return nil
	}
	return h.jobs[0]
}
func (h *jobHeap) reset() {
	for _, j := range h.jobs {
		*h.pos(j) = -1
	}
	h.jobs = nil
}

// lane is one endpoint's pending deliveries: ready (due now, oldest first), later (retries not
// yet due, by due time, and the same by age), and the attempts running now.
type lane struct {
	endpoint string
	owner    *acctQueue
	ready    jobHeap
	later    jobHeap
	laterAge jobHeap
	running  []*job
	inRing   bool // in owner.ring
	// epoch changes when the lane's pending deliveries are dropped (endpoint deleted or
	// disabled, ImportPending): attempts started before do not schedule retries.
	epoch uint64
}

func newLane(endpoint string, owner *acctQueue) *lane {
	return &lane{
		endpoint: endpoint, owner: owner,
		ready:    jobHeap{less: bySeq, pos: func(j *job) *int { return &j.readyAt }},
		later:    jobHeap{less: byDue, pos: func(j *job) *int { return &j.laterAt }},
		laterAge: jobHeap{less: bySeq, pos: func(j *job) *int { return &j.ageAt }},
	}
}

// pending counts the jobs waiting for an attempt (not those in flight).
func (l *lane) pending() int { return l.ready.Len() + l.later.Len() }

func (l *lane) idle() bool { return l.pending() == 0 && len(l.running) == 0 }

// add queues j as ready or for later, by its due time.
func (l *lane) add(j *job, now time.Time) {
	if j.due.After(now) {
		l.later.push(j)
		l.laterAge.push(j)
		return
	}
	l.ready.push(j)
}

// dropOldest takes the pending job that arrived first out of the lane and returns it.
func (l *lane) dropOldest() *job {
	r, w := l.ready.peek(), l.laterAge.peek()
	if w == nil || r != nil && r.seq < w.seq {
		l.ready.remove(r)
		return r
	}
	l.later.remove(w)
	l.laterAge.remove(w)
	return w
}

// promote makes the retries that fell due by now ready; it reports whether any did.
func (l *lane) promote(now time.Time) bool {
	moved := false
	for j := l.later.peek(); j != nil && !j.due.After(now); j = l.later.peek() {
		l.later.pop()
		l.laterAge.remove(j)
		l.ready.push(j)
		moved = true
	}
	return moved
}

// clear drops every pending job and starts a new epoch.
func (l *lane) clear() {
	l.ready.reset()
	l.later.reset()
	l.laterAge.reset()
	l.epoch++
}

func (l *lane) finished(j *job) {
	for i, r := range l.running {
		if r == j {
			l.running = append(l.running[:i], l.running[i+1:]...)
			return
		}
	}
}

// acctQueue is one account's share of the dispatcher: its events waiting to be fanned out to
// endpoints, its lanes, and its attempts in flight.
type acctQueue struct {
	acct       *store.Account
	backlog    []webhooks.Event // emitted, not yet fanned out; oldest first
	backlogged bool             // in Dispatcher.backlogged
	lanes      map[string]*lane
	ring       []*lane // lanes that can start an attempt, round-robin
	inRing     bool    // in Dispatcher.ring
	inflight   int
}

func (q *acctQueue) idle() bool { return len(q.backlog) == 0 && len(q.lanes) == 0 && q.inflight == 0 }
