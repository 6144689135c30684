package mockserver

import (
	"net"
	"sync"
	"testing"
	"time"
)

// countingListener hands out in-memory connections and records whether it was ever asked for
// one while max were open.
type countingListener struct {
	mu       sync.Mutex
	max      int
	open     int
	exceeded bool
}

func (l *countingListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		l.exceeded = true
	}
	l.open++
	c, other := net.Pipe()
	other.Close()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *countingListener) Close() error   { return nil }
func (l *countingListener) Addr() net.Addr { return &net.TCPAddr{} }

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.mu.Lock(); c.l.open--; c.l.mu.Unlock() })
	return c.Conn.Close()
}

// TestLimitListener: with MaxConns open, Accept waits (without asking the listener below for
// another connection) until one closes; closing the listener ends a waiting Accept.
func TestLimitListener(t *testing.T) {
	t.Parallel()
	s, err := New(WithConnLimits(ConnLimits{MaxConns: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	below := &countingListener{max: 2}
	ln := s.LimitListener(below)
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ln.Accept(); err != nil {
		t.Fatal(err)
	}
	third := make(chan net.Conn)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		third <- c
	}()
	// Give a wrong Accept the time to ask for a third connection while two are open (a right one
	// waits for a slot: the pause can only catch an error, never fail a correct listener).
	select {
	case c := <-third:
		t.Fatalf("accepted %v while MaxConns were open", c)
	case <-time.After(200 * time.Millisecond):
	}
	a.Close()
	a.Close() // a second Close gives back nothing more
	c := <-third
	below.mu.Lock()
	exceeded := below.exceeded
	below.mu.Unlock()
	if exceeded || c == nil {
		t.Fatal("a connection was accepted while MaxConns were open")
	}
	waiting := make(chan error)
	go func() {
		_, err := ln.Accept()
		waiting <- err
	}()
	ln.Close()
	if err := <-waiting; err == nil {
		t.Fatal("Accept on a closed listener returned a connection")
	}
}
