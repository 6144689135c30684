package main

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStopWithAnOpenStream: the inspector page keeps GET /__admin/stream open; SIGTERM still
// stops the binary at once and cleanly (the stream is ended, not waited for until the
// shutdown's 10 s deadline), and the data directory is closed.
func TestStopWithAnOpenStream(t *testing.T) {
	t.Parallel()
	p := startBinary(t, "-data", t.TempDir())
	resp, err := http.Get(p.base + "/__admin/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ended := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
		close(ended)
	}()
	start := time.Now()
	p.stop(t, false) // SIGTERM, and a clean exit required
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %v with a stream open, want well under the 10 s shutdown deadline", took)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Error("the stream did not end when the server stopped")
	}
	if !strings.Contains(p.output(), "medspa-mock: stopped") {
		t.Errorf("no clean stop line:\n%s", p.output())
	}
}
