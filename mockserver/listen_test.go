package mockserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
)

// serve runs s on a loopback listener until the test ends; it returns the base URL.
func serve(t *testing.T, s *mockserver.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// TestSlowlorisIsCut (docs/protocol.md §13): clients that send their request head a little at a
// time take every connection the server allows, and are cut after the read-header timeout, so
// the next client is served.
func TestSlowlorisIsCut(t *testing.T) {
	t.Parallel()
	s := newServer(t, mockserver.WithConnLimits(mockserver.ConnLimits{ReadHeaderTimeout: 200 * time.Millisecond, MaxConns: 2}))
	base := serve(t, s)
	var slow []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
			t.Fatal(err)
		}
		slow = append(slow, c)
	}
	// A normal client gets through once the slow ones are cut (the deadline is a safety stop).
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatalf("a normal client behind two slow ones: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for i, c := range slow {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadAll(c); err != nil {
			t.Errorf("slow client %d was not cut by the server: %v", i, err)
		}
	}
}

// TestHeadLimitOverHTTP: a request head too long for the server to read is refused without
// reading it (net/http's 431), and one within it gets the limits step's 414 and 431.
func TestHeadLimitOverHTTP(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	base := serve(t, s)
	for _, tc := range []struct {
		name   string
		path   string
		header string
		want   int
	}{
		{"path over 8 KiB", "/api/v1/patients/" + strings.Repeat("a", 9000), "", 414},
		{"headers over 64 KiB", "/api/v1/patients", strings.Repeat("h", 65<<10), 431},
		{"1 MB path", "/api/v1/patients/" + strings.Repeat("a", 1<<20), "", 431},
	} {
		req, _ := http.NewRequest("GET", base+tc.path, nil)
		if tc.header != "" {
			req.Header.Set("X-Big", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	if n := len(s.Requests("")); n != 0 {
		t.Errorf("%d refused requests journalled", n)
	}
}
