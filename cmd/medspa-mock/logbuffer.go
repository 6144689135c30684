package main

import (
	"io"
	"sync"
	"time"
)

// The request log's buffering (BENCHMARKS.md "Throughput from outside (wrk)"): one line per
// request, each written with its own system call, cost the binary about 5% of its CPU under
// load. A fenced optimisation kept by BenchmarkFenceLogBuffer (BENCHMARKS.md).
const (
	// logBufferSize bounds what the buffer holds: a write that would pass it flushes first.
	logBufferSize = 64 << 10
	// logFlushEvery is the longest a line waits in the buffer.
	logFlushEvery = 50 * time.Millisecond
)

// logBuffer batches log lines into few writes: a line is copied into a bounded buffer, which is
// written out logFlushEvery after the first line it holds, at once when it is full, and by
// Close. The lines keep their order; a write error is returned to the next writer.
type logBuffer struct {
	mu     sync.Mutex
	out    io.Writer
	buf    []byte
	timer  *time.Timer
	closed bool
}

func newLogBuffer(out io.Writer) *logBuffer {
	b := &logBuffer{out: out, buf: make([]byte, 0, logBufferSize)}
	b.timer = time.AfterFunc(time.Hour, func() { _ = b.Flush() })
	b.timer.Stop()
	return b
}

// Write buffers p (written through when closed, or when p alone is larger than the buffer).
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > cap(b.buf) || b.closed {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > cap(b.buf) || b.closed {
			return b.out.Write(p)
		}
	}
	if len(b.buf) == 0 {
		b.timer.Reset(logFlushEvery)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush writes out what the buffer holds.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

// Close flushes the buffer; later writes go straight through.
func (b *logBuffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.timer.Stop()
	return b.flushLocked()
}

func (b *logBuffer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.out.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}
