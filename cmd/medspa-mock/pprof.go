package main

import (
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
)

// servePprof serves Go's runtime profiles (net/http/pprof) on addr, for finding what holds
// memory under load (bench/memsoak -mock-arg -pprof=127.0.0.1:6060). Only a loopback address
// is accepted: a heap profile shows what memory holds. It returns the function that stops it.
func servePprof(addr string) (stop func(), err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !wire.IsLoopbackHost(host) {
		return nil, errors.New("-pprof: must be a loopback address and port, such as 127.0.0.1:6060")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return func() { _ = hs.Close() }, nil
}
