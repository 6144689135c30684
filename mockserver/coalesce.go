package mockserver

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// net/http writes an answer through a 4 KiB connection buffer: an answer longer than that
// (its head counted) leaves in one write system call per 4 KiB and then one for the rest, and on
// loopback each write costs the whole trip through the TCP stack and a wake-up of the reader. A
// 20-patient page is 4,113 bytes: two writes where one would do. coalescingConn holds the
// full-buffer writes of an answer and sends them with the answer's last, shorter write, so an
// answer of up to holdLimit bytes leaves in one system call. A fenced optimisation kept by
// BenchmarkFenceCoalescedWrites (BENCHMARKS.md).
const (
	// holdThreshold is net/http's connection buffer: a write this long or longer is a full
	// buffer (or a large body passed straight through) with more of the answer to come; a
	// shorter one ends the answer or is an explicit flush, and is sent at once with what is held.
	holdThreshold = 4 << 10
	// holdLimit bounds what one connection holds: beyond it, held bytes go out before more come.
	holdLimit = 64 << 10
	// holdFallback sends held bytes that nothing else sent: the server reading the connection
	// again, a deadline change or Close send them within microseconds under HTTP/1.1; the timer
	// keeps any other protocol on the connection (HTTP/2 over TLS, whose reader never stops
	// reading) from waiting for an answer's end that never comes as a short write.
	holdFallback = time.Millisecond
)

// heldBuffers recycles the buffers of held writes: a connection has one only while it holds
// bytes, so they are bounded by the answers in flight, not by the connections open. A buffer is
// zeroed before it goes back: no answer's bytes stay in the pool.
var heldBuffers = sync.Pool{New: func() any { b := make([]byte, 0, holdLimit); return &b }}

// coalescingConn is a net.Conn whose writes of holdThreshold bytes or more are held until the
// next shorter write, the next Read, a deadline change, Close, or holdFallback, whichever is
// first; writes shorter than holdThreshold with nothing held go straight through.
type coalescingConn struct {
	net.Conn
	// mustLock is set while bytes are held or after a failed send: the fast path of a short
	// write reads only this.
	mustLock atomic.Bool
	mu       sync.Mutex // guards held, timer and err, and orders held bytes before later ones
	held     *[]byte
	timer    *time.Timer
	err      error // the error of a failed send of held bytes: later writes report it
	// fallback is how long held bytes wait at most (holdFallback; tests set it longer to show
	// that HTTP/1.1 never needs it).
	fallback time.Duration
}

// newCoalescingConn wraps c with the default fallback.
func newCoalescingConn(c net.Conn) coalescingConn {
	return coalescingConn{Conn: c, fallback: holdFallback}
}

func (c *coalescingConn) Write(p []byte) (int, error) {
	if len(p) < holdThreshold && !c.mustLock.Load() {
		return c.Conn.Write(p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	heldLen := 0
	if c.held != nil {
		heldLen = len(*c.held)
	}
	switch {
	case len(p) >= holdThreshold && heldLen+len(p) <= holdLimit:
		c.hold(p)
		return len(p), nil
	case c.held == nil:
		return c.Conn.Write(p)
	case heldLen+len(p) <= holdLimit: // the answer's end: it leaves with what is held, in one write
		*c.held = append(*c.held, p...)
		if err := c.sendLocked(); err != nil {
			return 0, err
		}
		return len(p), nil
	default: // more than holdLimit: what is held first, then p
		if err := c.sendLocked(); err != nil {
			return 0, err
		}
		return c.Conn.Write(p)
	}
}

// hold keeps a copy of p (the caller reuses its buffer once Write returns).
func (c *coalescingConn) hold(p []byte) {
	if c.held == nil {
		c.held = heldBuffers.Get().(*[]byte)
		if c.timer == nil {
			c.timer = time.AfterFunc(c.fallback, func() { _ = c.send() })
		} else {
			c.timer.Reset(c.fallback)
		}
	}
	*c.held = append(*c.held, p...)
	c.mustLock.Store(true)
}

// sendLocked writes what is held in one write and gives the buffer back. A failed write is
// kept: the bytes after the lost ones must not be sent as if the stream were whole.
func (c *coalescingConn) sendLocked() error {
	if c.held == nil {
		return c.err
	}
	_, err := c.Conn.Write(*c.held)
	clear(*c.held) // an answer's bytes (PHI in a patient's) never sit in the pool
	*c.held = (*c.held)[:0]
	heldBuffers.Put(c.held)
	c.held = nil
	c.timer.Stop()
	if err != nil {
		c.err = err
	}
	c.mustLock.Store(c.err != nil)
	return err
}

// send writes what is held, if anything, or reports a failed send.
func (c *coalescingConn) send() error {
	if !c.mustLock.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sendLocked()
}

// Read sends what is held first: a server that reads again is done writing for now.
func (c *coalescingConn) Read(p []byte) (int, error) {
	if err := c.send(); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

// SetDeadline, SetReadDeadline and SetWriteDeadline send what is held first: net/http moves a
// deadline when an answer is done (it ends the read it left waiting while the handler ran, or
// starts the idle wait), and a write deadline must bound the held bytes' write too.
func (c *coalescingConn) SetDeadline(t time.Time) error {
	if err := c.send(); err != nil {
		return err
	}
	return c.Conn.SetDeadline(t)
}

func (c *coalescingConn) SetReadDeadline(t time.Time) error {
	if err := c.send(); err != nil {
		return err
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *coalescingConn) SetWriteDeadline(t time.Time) error {
	if err := c.send(); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

// Close sends what is held, unless another goroutine is sending right now: closing is then
// what ends that send (net/http's Server.Close closes connections under their writers).
func (c *coalescingConn) Close() error {
	if c.mu.TryLock() {
		_ = c.sendLocked()
		if c.timer != nil {
			c.timer.Stop()
		}
		c.mu.Unlock()
	}
	return c.Conn.Close()
}
