package mockserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
)

// ConnLimits are the limits of docs/protocol.md §13 for serving the mock over a listener (the
// standalone binary, or HTTPServer, LimitListener and ListenAndServe in process): how long a
// client may take, and how many connections may be open at once. A zero (or negative) field is
// its default.
type ConnLimits struct {
	// ReadHeaderTimeout ends a connection whose request head has not arrived in time (default
	// 10 s): a client sending its headers a byte at a time (slowloris) is cut.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (default 60 s).
	ReadTimeout time.Duration
	// WriteTimeout bounds writing an answer (default 60 s).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle that long (default 120 s).
	IdleTimeout time.Duration
	// MaxConns is how many connections may be open at once (default 10,000): beyond it, new
	// connections wait (in the listen backlog) until one closes; open ones keep working.
	MaxConns int
}

// Defaults of ConnLimits (docs/protocol.md §13).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxConns          = 10_000
)

// WithConnLimits sets the limits of serving over a listener (zero fields keep their defaults).
func WithConnLimits(l ConnLimits) Option { return func(o *options) { o.conn = l } }

// connLimits are the server's limits with defaults in place of zero (or negative) fields.
func (s *Server) connLimits() ConnLimits {
	l := s.opts.conn
	orDefault := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	orDefault(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	orDefault(&l.ReadTimeout, DefaultReadTimeout)
	orDefault(&l.WriteTimeout, DefaultWriteTimeout)
	orDefault(&l.IdleTimeout, DefaultIdleTimeout)
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	return l
}

// maxHead is what the HTTP server reads of a request head: the request-size limits' 8 KiB
// target and 64 KiB of headers, with room for the request line's other words. A head within it
// reaches the server's limits step, which answers 414 or 431 itself; net/http answers a longer
// one 431 without reading it all (a 1 MB path costs the server no 1 MB).
const maxHead = httpcore.MaxPathBytes + httpcore.MaxHeaderBytes + 1<<10

// HTTPServer returns an *http.Server that serves s with its ConnLimits' timeouts and the
// request-head limit. Serve it on a LimitListener (ListenAndServe does both). Its Shutdown ends
// the live admin streams (GET /__admin/stream), which would otherwise hold it until its
// deadline.
func (s *Server) HTTPServer() *http.Server {
	l := s.connLimits()
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    maxHead,
	}
	hs.RegisterOnShutdown(s.admin.EndStreams)
	return hs
}

// LimitListener returns ln holding at most ConnLimits.MaxConns connections open at once: beyond
// it, Accept waits until one of them closes (the new connection waits in the listen backlog),
// and every open connection keeps working. Wrap the TCP listener, below any TLS. Its
// connections also send an answer that net/http writes in 4 KiB pieces in one write, up to
// 64 KiB (a held piece waits at most a millisecond, for any protocol above).
func (s *Server) LimitListener(ln net.Listener) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, s.connLimits().MaxConns), closed: make(chan struct{})}
}

// ListenAndServe serves s on addr with its ConnLimits until ctx ends, then shuts down
// gracefully (in-flight requests finish, for at most 10 s) and returns nil.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve serves s on ln with its ConnLimits until ctx ends (see ListenAndServe). It refuses a
// listener that is not loopback-only while the admin surface is on without a token
// (docs/protocol.md §12): give WithAdminToken, or WithoutAdmin.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !s.opts.noAdmin && s.opts.adminToken == "" {
		return errors.New("mockserver: " + ln.Addr().String() + " is not loopback-only: the admin surface needs WithAdminToken (or WithoutAdmin)")
	}
	hs := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(s.LimitListener(ln)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shutdown)
	<-errc
	return err
}

// limitListener caps the connections open at once.
type limitListener struct {
	net.Listener
	slots     chan struct{} // one per open connection
	closeOnce sync.Once
	closed    chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{coalescingConn: newCoalescingConn(c), release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitedConn gives its slot back when closed (once). Its writes are coalesced (coalesce.go).
type limitedConn struct {
	coalescingConn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.coalescingConn.Close()
	c.once.Do(c.release)
	return err
}
