package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Sample is one RSS reading.
type Sample struct {
	Elapsed  time.Duration
	Requests int64   // requests done by then
	RSS      float64 // MB (10^6 bytes)
}

// rowsPerRun is about how many rows the printed curve has (the CSV has every sample).
const rowsPerRun = 20

// sampler reads the server's RSS every second, prints the curve's rows and writes the CSV.
type sampler struct {
	pid      int
	done     *atomic.Int64
	out      io.Writer
	csvFile  *os.File
	csv      *bufio.Writer
	warmup   int64 // requests
	rowStep  int64
	stopc    chan struct{}
	kick     chan struct{} // a sample now: the warm-up just ended
	finished chan []Sample

	samples []Sample
	lastRow Sample
	nextRow int64
	marked  bool // the end of the warm-up has its row
	peak    float64
	readErr error
}

func newSampler(pid int, cfg Config, done *atomic.Int64, out io.Writer) (*sampler, error) {
	s := &sampler{pid: pid, done: done, out: out, warmup: int64(cfg.Warmup * float64(cfg.Requests)),
		rowStep: max(1, int64(cfg.Requests)/rowsPerRun), stopc: make(chan struct{}), kick: make(chan struct{}, 1),
		finished: make(chan []Sample)}
	if cfg.CSV != "" {
		f, err := os.Create(cfg.CSV)
		if err != nil {
			return nil, err
		}
		s.csvFile, s.csv = f, bufio.NewWriter(f)
		fmt.Fprintln(s.csv, "elapsed_s,requests,rps,rss_mb")
	}
	fmt.Fprintf(out, "\n%9s %11s %9s %9s %9s\n", "elapsed", "requests", "req/s", "RSS MB", "peak MB")
	return s, nil
}

// run samples every second until stop; the caller takes the first sample, at rest.
func (s *sampler) run(start time.Time) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.sample(start, false)
		case <-s.kick:
			s.sample(start, false)
		case <-s.stopc:
			s.sample(start, true)
			s.finished <- s.samples
			return
		}
	}
}

// count counts a request done; the one that ends the warm-up has the level sampled at once.
func (s *sampler) count() {
	if s.done.Add(1) == s.warmup {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// stop takes the last sample and returns them all.
func (s *sampler) stop() []Sample {
	close(s.stopc)
	return <-s.finished
}

func (s *sampler) sample(start time.Time, last bool) {
	rss, err := rssMB(s.pid)
	if err != nil {
		if s.readErr == nil {
			s.readErr = err
			fmt.Fprintln(s.out, "memsoak: reading the server's RSS:", err)
		}
		return
	}
	cur := Sample{Elapsed: time.Since(start), Requests: s.done.Load(), RSS: rss}
	prev := cur
	if n := len(s.samples); n > 0 {
		prev = s.samples[n-1]
	}
	s.samples = append(s.samples, cur)
	s.peak = max(s.peak, rss)
	if s.csv != nil {
		fmt.Fprintf(s.csv, "%.3f,%d,%.0f,%.1f\n", cur.Elapsed.Seconds(), cur.Requests, rate(prev, cur), cur.RSS)
	}
	endOfWarmup := !s.marked && cur.Requests >= s.warmup && cur.Requests > 0
	if len(s.samples) == 1 || cur.Requests >= s.nextRow || endOfWarmup || last {
		note := ""
		if len(s.samples) == 1 {
			note = "  at rest, after setup"
		}
		if endOfWarmup {
			note, s.marked = "  ← end of warm-up", true
		}
		fmt.Fprintf(s.out, "%8.0fs %11d %9.0f %9.1f %9.1f%s\n", cur.Elapsed.Seconds(), cur.Requests, rate(s.lastRow, cur), cur.RSS, s.peak, note)
		s.lastRow = cur
		s.nextRow = (cur.Requests/s.rowStep + 1) * s.rowStep
	}
}

func (s *sampler) closeCSV() error {
	if s.csv == nil {
		return nil
	}
	if err := s.csv.Flush(); err != nil {
		s.csvFile.Close()
		return err
	}
	return s.csvFile.Close()
}

// rate is requests per second from a to b.
func rate(a, b Sample) float64 {
	if d := (b.Elapsed - a.Elapsed).Seconds(); d > 0 {
		return float64(b.Requests-a.Requests) / d
	}
	return 0
}

// Verdict judges an RSS curve.
type Verdict struct {
	Start, Level, End, Peak Sample // Level: the first sample at or after the end of the warm-up
	Failures                []string
}

// judge checks that RSS never exceeds maxRSS, and that after the warm-up (the first sample with
// at least warmup requests done) it never rises more than growth over its level then. A fall is
// not a failure: memory given back is not a leak.
func judge(samples []Sample, warmup int64, growth, maxRSS float64) Verdict {
	var v Verdict
	if len(samples) == 0 {
		v.Failures = append(v.Failures, "no RSS sample")
		return v
	}
	v.Start, v.End = samples[0], samples[len(samples)-1]
	level := -1
	for i, s := range samples {
		if s.RSS > v.Peak.RSS {
			v.Peak = s
		}
		if level < 0 && s.Requests >= warmup && s.Requests > 0 {
			level = i
		}
	}
	if over := slices.IndexFunc(samples, func(s Sample) bool { return s.RSS > maxRSS }); over >= 0 {
		s := samples[over]
		v.Failures = append(v.Failures, fmt.Sprintf("RSS over %.0f MB from %s (%d requests): %.1f MB, peak %.1f MB",
			maxRSS, s.Elapsed.Round(time.Second), s.Requests, s.RSS, v.Peak.RSS))
	}
	if level < 0 {
		v.Failures = append(v.Failures, fmt.Sprintf("no sample after the warm-up (%d requests)", warmup))
		return v
	}
	v.Level = samples[level]
	top := slices.MaxFunc(samples[level:], func(a, b Sample) int { return cmpFloat(a.RSS, b.RSS) })
	if limit := v.Level.RSS * (1 + growth); top.RSS > limit {
		v.Failures = append(v.Failures, fmt.Sprintf("RSS grew %.0f%% after the warm-up (allowed %.0f%%): %.1f MB at %d requests, %.1f MB at %d requests",
			100*(top.RSS/v.Level.RSS-1), 100*growth, v.Level.RSS, v.Level.Requests, top.RSS, top.Requests))
	}
	return v
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Report is what a run did and measured.
type Report struct {
	Config
	Binary string
	PID    int
	Base   string

	Elapsed                       time.Duration
	Requests                      int64
	PerKind                       [kinds]int64
	Flows                         int64 // OAuth flows that got their tokens
	Writes, Resets, Deliveries    int64
	ServerErrors, TransportErrors int64
	FirstTransport                string
	Unexpected                    map[string]int64 // "kind: METHOD route: status" → count
	Incomplete                    string           // why the run stopped before -requests; "" if it did not
	Samples                       []Sample
	Verdict                       Verdict
}

func (r *Report) collect(d *driver) {
	r.Requests = d.done.Load()
	for k := range kinds {
		r.PerKind[k] = d.perKind[k].Load()
	}
	r.Flows, r.Writes, r.Resets, r.Deliveries = d.flows.Load(), d.writes.Load(), d.resets.Load(), d.deliveries.Load()
	r.ServerErrors, r.TransportErrors = d.serverErrors.Load(), d.transportErrors.Load()
	d.mu.Lock()
	r.FirstTransport, r.Unexpected = d.firstTransport, maps.Clone(d.unexpectedBy)
	d.mu.Unlock()
}

// Failures lists every reason the run fails; none means it passes.
func (r *Report) Failures() []string {
	f := slices.Clone(r.Verdict.Failures)
	if r.Incomplete != "" {
		f = append(f, fmt.Sprintf("%s after %d of %d requests", r.Incomplete, r.Requests, r.Config.Requests))
	}
	if r.ServerErrors > 0 {
		f = append(f, fmt.Sprintf("%d responses 5xx", r.ServerErrors))
	}
	if r.TransportErrors > 0 {
		f = append(f, fmt.Sprintf("%d transport errors (first: %s)", r.TransportErrors, r.FirstTransport))
	}
	if n := sum(r.Unexpected); n > 0 {
		f = append(f, fmt.Sprintf("%d unexpected answers: the load was not the mix it claims", n))
	}
	return f
}

// Pass reports whether the run passed.
func (r *Report) Pass() bool { return len(r.Failures()) == 0 }

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func (r *Report) printHeader(w io.Writer) {
	data := "no -data"
	if r.Data != "" {
		data = "-data " + r.Data
	}
	fmt.Fprintf(w, "memsoak: %s (pid %d) at %s, %s\n", r.Binary, r.PID, r.Base, strings.Join(append([]string{data}, r.MockArgs...), " "))
	fmt.Fprintf(w, "load: %d requests, %d connections, seed %d; warm-up %.0f%%; bounds: +%.0f%% after warm-up, %.0f MB; write account reset every %d writes\n",
		r.Config.Requests, r.Conc, r.Seed, 100*r.Warmup, 100*r.Growth, r.MaxRSS, r.ResetEvery)
	printMix(w)
}

// Print writes the summary and the verdict.
func (r *Report) Print(w io.Writer) {
	v := r.Verdict
	fmt.Fprintln(w)
	fmt.Fprintf(w, "requests    %d in %s: %.0f req/s over %d connections\n", r.Requests, r.Elapsed.Round(time.Second), float64(r.Requests)/r.Elapsed.Seconds(), r.Conc)
	var kinds []string
	for k, n := range r.PerKind {
		kinds = append(kinds, fmt.Sprintf("%s %d", mix[k].name, n))
	}
	fmt.Fprintf(w, "by kind     %s (requests; %d OAuth flows got tokens)\n", strings.Join(kinds, ", "), r.Flows)
	fmt.Fprintf(w, "webhooks    %d writes, %d deliveries received, %d resets of the write account\n", r.Writes, r.Deliveries, r.Resets)
	fmt.Fprintf(w, "RSS MB      at rest %.1f; end of warm-up %.1f (%d requests); end %.1f; peak %.1f (at %d requests)\n",
		v.Start.RSS, v.Level.RSS, v.Level.Requests, v.End.RSS, v.Peak.RSS, v.Peak.Requests)
	fmt.Fprintf(w, "errors      %d 5xx, %d transport, %d unexpected answers\n", r.ServerErrors, r.TransportErrors, sum(r.Unexpected))
	for _, k := range slices.Sorted(maps.Keys(r.Unexpected)) {
		fmt.Fprintf(w, "              %6d  %s\n", r.Unexpected[k], k)
	}
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "verdict     FAIL\n")
		for _, s := range f {
			fmt.Fprintf(w, "              - %s\n", s)
		}
		return
	}
	fmt.Fprintf(w, "verdict     PASS: RSS within %.0f%% of %.1f MB after the warm-up and under %.0f MB throughout\n", 100*r.Growth, v.Level.RSS, r.MaxRSS)
}
