package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the flush timer's goroutine.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) snapshot() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.writes
}

func TestLogBufferKeepsEveryLineInOrderInFewWrites(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newLogBuffer(&out)
	var want strings.Builder
	for i := range 5000 { // about 190 KiB: the buffer fills and flushes several times
		line := fmt.Sprintf("time=x level=INFO msg=request n=%06d path=/api/v1/patients\n", i)
		want.WriteString(line)
		if n, err := b.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	got, writes := out.snapshot()
	if got != want.String() {
		t.Fatalf("the lines came out changed (%d bytes, want %d)", len(got), want.Len())
	}
	if max := want.Len()/logBufferSize + 2; writes > max { // the timer may flush a partial buffer once
		t.Errorf("%d writes for %d bytes, want at most %d", writes, want.Len(), max)
	}
}

func TestLogBufferFlushesByItselfAndWritesThroughOnceClosed(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newLogBuffer(&out)
	if _, err := b.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second) // a bound on waiting, not an assertion on time
	for got, _ := out.snapshot(); got != "one\n"; got, _ = out.snapshot() {
		if time.Now().After(deadline) {
			t.Fatalf("a buffered line was never written out (got %q)", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	big := bytes.Repeat([]byte("x"), logBufferSize+1) // larger than the buffer: written through
	if _, err := b.Write(big); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.snapshot(); len(got) != 4+len(big) {
		t.Fatalf("an oversized write was held back: %d bytes out", len(got))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.snapshot(); !strings.HasSuffix(got, "after\n") {
		t.Fatal("a write after Close was held back")
	}
}

// BenchmarkFenceLogBuffer keeps logBuffer (logbuffer.go): request log lines written to a file
// through the buffer versus one write per line.
func BenchmarkFenceLogBuffer(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := func(l *slog.Logger) {
		l.Info("request", "method", "GET", "path", "/api/v1/patients/pat_0193a1b2c3d4e5f60718293a4b5c6d7e", "status", 200,
			"duration", 130*time.Microsecond, "request_id", "req_0193a1b2c3d4e5f60718293a4b5c6d7e")
	}
	b.Run("fast", func(b *testing.B) {
		buf := newLogBuffer(f)
		defer buf.Close()
		l := slog.New(slog.NewTextHandler(buf, nil))
		b.ReportAllocs()
		for b.Loop() {
			line(l)
		}
	})
	b.Run("plain", func(b *testing.B) {
		l := slog.New(slog.NewTextHandler(f, nil))
		b.ReportAllocs()
		for b.Loop() {
			line(l)
		}
	})
}
