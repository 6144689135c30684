package mockserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingConn is the connection below a coalescingConn: it records each write it is given,
// and the order of writes and the other calls that reach it.
type recordingConn struct {
	net.Conn // nil: a call not listed here panics, so the test sees it
	mu       sync.Mutex
	writes   [][]byte
	events   []string
	failWith error
	written  chan struct{} // receives after each write
}

func newRecordingConn() *recordingConn { return &recordingConn{written: make(chan struct{}, 64)} }

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failWith != nil {
		return 0, c.failWith
	}
	c.writes = append(c.writes, bytes.Clone(p))
	c.events = append(c.events, "write "+strconv.Itoa(len(p)))
	c.written <- struct{}{}
	return len(p), nil
}

// fail makes every later write fail with err (nil: succeed again).
func (c *recordingConn) fail(err error) {
	c.mu.Lock()
	c.failWith = err
	c.mu.Unlock()
}

func (c *recordingConn) record(event string) {
	c.mu.Lock()
	c.events = append(c.events, event)
	c.mu.Unlock()
}

func (c *recordingConn) Read(p []byte) (int, error)       { c.record("read"); return 0, io.EOF }
func (c *recordingConn) SetDeadline(time.Time) error      { c.record("deadline"); return nil }
func (c *recordingConn) SetReadDeadline(time.Time) error  { c.record("read deadline"); return nil }
func (c *recordingConn) SetWriteDeadline(time.Time) error { c.record("write deadline"); return nil }
func (c *recordingConn) Close() error                     { c.record("close"); return nil }
func (c *recordingConn) snapshot() (writes [][]byte, events []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.writes...), append([]string(nil), c.events...)
}

// pieces returns byte slices of the given lengths, each filled with its own letter, so a
// reordering or a lost piece shows in the joined bytes.
func pieces(lengths ...int) [][]byte {
	out := make([][]byte, len(lengths))
	for i, n := range lengths {
		out[i] = bytes.Repeat([]byte{byte('a' + i%26)}, n)
	}
	return out
}

// TestCoalescingWrites: the rules of what is held and what leaves, write by write.
func TestCoalescingWrites(t *testing.T) {
	t.Parallel()
	const T, L = holdThreshold, holdLimit
	for _, tc := range []struct {
		name   string
		writes []int
		then   string // "", "read", "read deadline", "deadline", "write deadline", "close"
		want   []string
	}{
		{"a short answer goes straight through", []int{430}, "", []string{"write 430"}},
		{"two short writes stay two", []int{100, 200}, "", []string{"write 100", "write 200"}},
		{"a page just over the buffer leaves in one write", []int{T, 17}, "", []string{"write 4113"}},
		{"several full buffers and the rest, one write", []int{T, T, T, 10}, "", []string{"write 12298"}},
		{"a large body passed through, then the rest", []int{T + 3000, 5}, "", []string{"write 7101"}},
		{"a full buffer is sent by the next read", []int{T}, "read", []string{"write 4096", "read"}},
		{"... by a read deadline (net/http ending its background read)", []int{T}, "read deadline", []string{"write 4096", "read deadline"}},
		{"... by a deadline", []int{T}, "deadline", []string{"write 4096", "deadline"}},
		{"... by a write deadline, which must bound its write", []int{T}, "write deadline", []string{"write 4096", "write deadline"}},
		{"... by close", []int{T, T}, "close", []string{"write 8192", "close"}},
		{"the limit: what is held leaves first", []int{L - T, T, 9}, "", []string{"write 65536", "write 9"}},
		{"the limit: a write over it alone goes straight through", []int{L + 1}, "", []string{"write 65537"}},
		{"the limit: held bytes, then a write too big to join them", []int{T, L}, "", []string{"write 4096", "write 65536"}},
		{"the limit: held bytes, then a short write too big to join them", []int{L - T, T - 1, T - 1}, "", []string{"write 65535", "write 4095"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			below := newRecordingConn()
			c := &coalescingConn{Conn: below, fallback: time.Hour}
			var sent []byte
			for _, p := range pieces(tc.writes...) {
				n, err := c.Write(p)
				if n != len(p) || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
				}
				sent = append(sent, p...)
			}
			switch tc.then {
			case "read":
				_, _ = c.Read(make([]byte, 1))
			case "read deadline":
				_ = c.SetReadDeadline(time.Time{})
			case "deadline":
				_ = c.SetDeadline(time.Time{})
			case "write deadline":
				_ = c.SetWriteDeadline(time.Time{})
			case "close":
				_ = c.Close()
			}
			writes, events := below.snapshot()
			if fmt.Sprint(events) != fmt.Sprint(tc.want) {
				t.Errorf("below the connection: %q, want %q", events, tc.want)
			}
			if got := bytes.Join(writes, nil); !bytes.Equal(got, sent) {
				t.Errorf("the bytes sent differ from the bytes written (%d against %d)", len(got), len(sent))
			}
		})
	}
}

// TestCoalescingFallback: bytes nothing else sends leave on the fallback timer, and the
// connection holds afresh after.
func TestCoalescingFallback(t *testing.T) {
	t.Parallel()
	below := newRecordingConn()
	c := &coalescingConn{Conn: below, fallback: time.Millisecond}
	for round := 1; round <= 2; round++ {
		if _, err := c.Write(make([]byte, holdThreshold)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-below.written:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: held bytes never left", round)
		}
	}
	if writes, _ := below.snapshot(); len(writes) != 2 {
		t.Errorf("%d writes below, want 2", len(writes))
	}
}

// TestCoalescingFailedSend: a send that fails is reported to every later write and read, and
// nothing written after the lost bytes goes out.
func TestCoalescingFailedSend(t *testing.T) {
	t.Parallel()
	below := newRecordingConn()
	c := &coalescingConn{Conn: below, fallback: time.Hour}
	if _, err := c.Write(make([]byte, holdThreshold)); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("connection reset")
	below.fail(broken)
	if _, err := c.Write([]byte("end")); !errors.Is(err, broken) {
		t.Fatalf("the write that sends held bytes: %v, want %v", err, broken)
	}
	below.fail(nil) // the peer could take bytes again: none may follow the lost ones
	if _, err := c.Write(make([]byte, holdThreshold)); !errors.Is(err, broken) {
		t.Errorf("a later long write: %v, want %v", err, broken)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, broken) {
		t.Errorf("a later short write: %v, want %v", err, broken)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, broken) {
		t.Errorf("a later read: %v, want %v", err, broken)
	}
	if writes, events := below.snapshot(); len(writes) != 0 || len(events) != 0 {
		t.Errorf("after the failed send, the connection saw %q", events)
	}
}

// TestCoalescingCloseDuringSend: Close does not wait for a send in progress on another
// goroutine (a peer that reads nothing would keep it forever): it closes under it.
func TestCoalescingCloseDuringSend(t *testing.T) {
	t.Parallel()
	below := newRecordingConn()
	c := &coalescingConn{Conn: below, fallback: time.Hour}
	c.mu.Lock() // a send in progress
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the send in progress")
	}
	c.mu.Unlock()
	if _, events := below.snapshot(); fmt.Sprint(events) != "[close]" {
		t.Errorf("below the connection: %q", events)
	}
}

// coalescingListener wraps its connections as LimitListener does, with a given fallback.
type coalescingListener struct {
	net.Listener
	fallback time.Duration
}

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescingConn{Conn: c, fallback: l.fallback}, nil
}

// exactHead is the head sizedAnswers writes for /exact/K answers, but for the length's digits.
const exactHead = "HTTP/1.1 200 OK\r\nContent-Length: \r\nContent-Type: application/octet-stream\r\nDate: Wed, 25 Nov 2026 00:00:00 GMT\r\n\r\n"

// exactBody is the body length that makes head and body exactly k of net/http's 4 KiB buffers:
// the answer's last write is then a full buffer, and nothing after it in the answer sends it.
func exactBody(k int) int {
	n := k*holdThreshold - len(exactHead)
	for len(exactHead)+len(strconv.Itoa(n))+n != k*holdThreshold {
		n = k*holdThreshold - len(exactHead) - len(strconv.Itoa(n))
	}
	return n
}

// sizedAnswers answers /N with N bytes of body, written in writes of at most 1,000 bytes, and
// /exact/K with an answer of exactly K 4 KiB buffers.
func sizedAnswers(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path[1:]
	if k, ok := strings.CutPrefix(path, "exact/"); ok {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > 16 {
			http.Error(w, "size", http.StatusBadRequest)
			return
		}
		n = exactBody(n)
		w.Header().Set("Date", "Wed, 25 Nov 2026 00:00:00 GMT")
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(n))
		_, _ = w.Write(bytes.Repeat([]byte("0123456789"), n/10+1)[:n])
		return
	}
	n, err := strconv.Atoi(path)
	if err != nil || n < 0 || n > 1<<20 {
		http.Error(w, "size", http.StatusBadRequest)
		return
	}
	if r.URL.Query().Has("length") {
		w.Header().Set("Content-Length", strconv.Itoa(n))
	}
	body := bytes.Repeat([]byte("0123456789"), n/10+1)[:n]
	for len(body) > 0 {
		k := min(len(body), 1000)
		if _, err := w.Write(body[:k]); err != nil {
			return
		}
		body = body[k:]
	}
}

// fetchSizes asks srv for every size in sizes, each within the client's timeout, and checks
// each body. A negative size -K asks for an answer of exactly K 4 KiB buffers.
func fetchSizes(t *testing.T, client *http.Client, base string, sizes []int, query string) {
	t.Helper()
	for _, n := range sizes {
		path := "/" + strconv.Itoa(n)
		if n < 0 {
			path, n = "/exact/"+strconv.Itoa(-n), exactBody(-n)
		}
		res, err := client.Get(base + path + query)
		if err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || len(body) != n || (n > 0 && body[n-1] != "0123456789"[(n-1)%10]) {
			t.Fatalf("size %d: %d bytes, %v", n, len(body), err)
		}
	}
}

// answerSizes crosses every way net/http can end an answer at the 4 KiB buffer's edges (the
// head's length varies, so a run of sizes hits the answer whose last write is a full buffer),
// plus long ones past holdLimit.
func answerSizes() []int {
	var sizes []int
	for _, edge := range []int{4 << 10, 8 << 10, 64 << 10} {
		for n := edge - 260; n <= edge+20; n++ {
			sizes = append(sizes, n)
		}
	}
	return append(sizes, 0, 1, 100_000, 300_000, -1, -2, -3, -16)
}

// TestCoalescingHTTP1NeverWaits: over HTTP/1.1, net/http itself sends everything held (it reads
// again, moves a deadline or closes): with a fallback of an hour, every answer of every size
// still arrives at once, on kept-alive connections, chunked or with a length, and on
// connections the server closes after the answer.
func TestCoalescingHTTP1NeverWaits(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(sizedAnswers), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() { _ = srv.Serve(coalescingListener{Listener: ln, fallback: time.Hour}) }()
	t.Cleanup(func() { _ = srv.Close() })
	base := "http://" + ln.Addr().String()
	sizes := answerSizes()
	for _, tc := range []struct {
		name  string
		tr    *http.Transport
		query string
	}{
		{"kept alive, chunked", &http.Transport{}, ""},
		{"kept alive, with a length", &http.Transport{}, "?length"},
		{"closed after each answer", &http.Transport{DisableKeepAlives: true}, "?length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			defer tc.tr.CloseIdleConnections()
			fetchSizes(t, &http.Client{Transport: tc.tr, Timeout: time.Second}, base, sizes, tc.query)
		})
	}
}

// TestCoalescingHTTP2 serves HTTP/2 over TLS above a LimitListener: its reader never stops
// reading, so held bytes leave on the fallback, and every answer arrives whole.
func TestCoalescingHTTP2(t *testing.T) {
	t.Parallel()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(sizedAnswers))
	hs.Listener = s.LimitListener(hs.Listener)
	hs.EnableHTTP2 = true
	hs.StartTLS()
	defer hs.Close()
	client := hs.Client()
	client.Timeout = 10 * time.Second
	res, err := client.Get(hs.URL + "/1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ProtoMajor != 2 {
		t.Fatalf("the test served %s, not HTTP/2", res.Proto)
	}
	fetchSizes(t, client, hs.URL, []int{holdThreshold, 20_000, 100_000, 300_000}, "")
}

// BenchmarkFenceCoalescedWrites keeps coalesce.go: a keep-alive loopback connection asks for a
// 20-patient page's worth of answer (4,113 bytes with its head, the mock's list page) over and
// over, from a server whose connections coalesce ("fast") or are plain TCP ("plain"). The
// client reads with one buffer and parses nothing, so the difference is the server's writes.
func BenchmarkFenceCoalescedWrites(b *testing.B) {
	n := exactBody(1) + 17 // head and body: 4,113 bytes
	body := bytes.Repeat([]byte("x"), n)
	answer := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", "Wed, 25 Nov 2026 00:00:00 GMT")
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(n))
		_, _ = w.Write(body)
	})
	for _, variant := range []string{"fast", "plain"} {
		b.Run(variant, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			srv := &http.Server{Handler: answer, ReadHeaderTimeout: 10 * time.Second}
			served := net.Listener(ln)
			if variant == "fast" {
				served = coalescingListener{Listener: ln, fallback: holdFallback}
			}
			go func() { _ = srv.Serve(served) }()
			defer srv.Close()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			request := []byte("GET / HTTP/1.1\r\nHost: bench\r\n\r\n")
			want := len(exactHead) + len(strconv.Itoa(n)) + n
			buf := make([]byte, 64<<10)
			for b.Loop() {
				if _, err := c.Write(request); err != nil {
					b.Fatal(err)
				}
				for got := 0; got < want; {
					k, err := c.Read(buf)
					if err != nil {
						b.Fatal(err)
					}
					got += k
				}
			}
		})
	}
}
