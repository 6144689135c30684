package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/medspa/medspa-go/mockserver"
)

// checkWritable says whether the server could keep what it acknowledges in -data: the directory
// (or, for a single -data file still to migrate, the directory it is in) must be writable.
func checkWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		path = filepath.Dir(path)
	}
	return mockserver.DataDirWritable(path)
}

// serveNotReady serves a binary that cannot keep what it would acknowledge — -data on a
// read-only volume, or one its user may not write — so that an orchestrator sees why: the log
// says it once, /healthz answers 200, /readyz 503 with the reason, and every other request 503
// (mockserver.NotReadyHandler): nothing is accepted that would be lost. It stops like run.
func serveNotReady(ctx context.Context, c *config, reason error, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "medspa-mock: not ready: data directory %s: %v; answering 503 to everything but /healthz until restarted with a writable -data\n", c.data, reason)
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "MedSpa mock server listening on http://%s (not ready)\n", ln.Addr())
	hs := &http.Server{Handler: mockserver.NotReadyHandler(reason), ReadHeaderTimeout: 10 * time.Second}
	if err := serveUntilSignal(ctx, hs, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "medspa-mock: stopped")
	return nil
}

// serveUntilSignal serves ln until hs fails, ctx is done or SIGINT/SIGTERM arrives; then it
// shuts hs down gracefully, finishing in-flight requests (at most 10 s).
func serveUntilSignal(ctx context.Context, hs *http.Server, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(shutdownCtx)
}
