// Command memsoak measures the mock server's resident memory under millions of mixed requests,
// from outside its process (issue 18, docs/protocol.md §13 "Bounded memory").
//
//	go run ./bench/memsoak -requests 5000000 -c 32
//
// It builds cmd/medspa-mock into a temporary directory, starts it on a free loopback port (with
// -data when given), sets it up through /__admin, then drives the mix (see mix.go, printed at
// start) over keep-alive connections from this process as fast as the machine allows. Every
// second it samples the server's VmRSS from /proc; it prints the curve as a compact table and a
// verdict: after the warm-up (the first -warmup share of the requests) RSS must stay within
// -growth of its level at the end of the warm-up, and below -max-rss at every sample. Any 5xx,
// transport error or unexpected status also fails the run. Exit status 0 on pass, 1 on fail.
// Linux only (/proc); loopback only; bounded by -timeout.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	cfg := Config{}
	flag.IntVar(&cfg.Requests, "requests", 5_000_000, "requests to drive (the mix's units are whole, so a few more)")
	flag.IntVar(&cfg.Conc, "c", 32, "concurrent keep-alive connections")
	flag.StringVar(&cfg.Data, "data", "", "start the mock with -data this path")
	flag.StringVar(&cfg.Mock, "mock", "", "a medspa-mock binary to run instead of building cmd/medspa-mock")
	flag.Func("mock-arg", "an extra argument for the mock (repeatable)", func(s string) error {
		cfg.MockArgs = append(cfg.MockArgs, s)
		return nil
	})
	flag.Float64Var(&cfg.Warmup, "warmup", 0.10, "share of the requests that is warm-up, 0–1")
	flag.Float64Var(&cfg.Growth, "growth", 0.10, "RSS growth allowed after the warm-up, as a share of its level then")
	flag.Float64Var(&cfg.MaxRSS, "max-rss", 150, "RSS bound in MB (10^6 bytes) at every sample")
	flag.IntVar(&cfg.ResetEvery, "reset-every", 20_000, "writes between resets of the write account, which keep the stored records bounded (0: never)")
	flag.DurationVar(&cfg.Timeout, "timeout", 30*time.Minute, "safety stop: end the run after this long (the run then fails)")
	flag.StringVar(&cfg.CSV, "csv", "", "write every sample to this CSV file")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the mix's random choices")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := Run(ctx, cfg, os.Stdout)
	if r != nil {
		r.Print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memsoak:", err)
		os.Exit(1)
	}
	if !r.Pass() {
		os.Exit(1)
	}
}
