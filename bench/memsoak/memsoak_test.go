package main

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	curve := func(rss ...float64) []Sample {
		var out []Sample
		for i, r := range rss {
			out = append(out, Sample{Elapsed: time.Duration(i) * time.Second, Requests: int64(i) * 100, RSS: r})
		}
		return out
	}
	tests := []struct {
		name    string
		samples []Sample
		warmup  int64
		fails   []string // substrings of the failures, in order; none: pass
		level   float64
	}{
		{name: "flat after warm-up", samples: curve(20, 60, 80, 84, 87, 82), warmup: 200, level: 80},
		{name: "growth past 10 %", samples: curve(20, 60, 80, 84, 89), warmup: 200, level: 80,
			fails: []string{"RSS grew 11% after the warm-up"}},
		{name: "falling is not a leak", samples: curve(20, 100, 120, 60, 61), warmup: 200, level: 120},
		{name: "over the bound during warm-up", samples: curve(20, 160, 100, 101), warmup: 200, level: 100,
			fails: []string{"RSS over 150 MB from 1s (100 requests): 160.0 MB"}},
		{name: "level is the first sample at or after the warm-up", samples: curve(20, 50, 70, 75), warmup: 150, level: 70},
		{name: "both", samples: curve(20, 140, 200), warmup: 100, level: 140,
			fails: []string{"RSS over 150 MB", "RSS grew 43%"}},
		{name: "no sample after warm-up", samples: curve(20, 30), warmup: 500,
			fails: []string{"no sample after the warm-up (500 requests)"}},
		{name: "no samples", fails: []string{"no RSS sample"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := judge(tt.samples, tt.warmup, 0.10, 150)
			if len(v.Failures) != len(tt.fails) {
				t.Fatalf("failures %q, want %d matching %q", v.Failures, len(tt.fails), tt.fails)
			}
			for i, f := range tt.fails {
				if !strings.Contains(v.Failures[i], f) {
					t.Errorf("failure %d = %q, want it to contain %q", i, v.Failures[i], f)
				}
			}
			if v.Level.RSS != tt.level {
				t.Errorf("level = %.1f MB, want %.1f", v.Level.RSS, tt.level)
			}
		})
	}
}

func TestMixWeightsAddUpTo100(t *testing.T) {
	t.Parallel()
	total := 0
	for k := range kinds {
		if mix[k].weight <= 0 {
			t.Errorf("%s has weight %d", mix[k].name, mix[k].weight)
		}
		total += mix[k].weight
	}
	if total != 100 {
		t.Fatalf("weights add up to %d", total)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var seen [kinds]int
	for range 10_000 {
		seen[pick(rng)]++
	}
	for k := range kinds {
		if got, want := seen[k], mix[k].weight*100; got < want*8/10 || got > want*12/10 {
			t.Errorf("%s drawn %d times in 10,000, want about %d", mix[k].name, got, want)
		}
	}
}

// TestShortRun runs the real binary with a few thousand requests: every kind of the mix gets its
// expected answers (any 5xx, transport error or unexpected status fails the run), RSS is sampled
// and judged, writes reach the webhook receiver, and the write account is reset. The bounds are
// loose: a run this short has not warmed up.
func TestShortRun(t *testing.T) {
	t.Parallel()
	cfg := Config{Requests: 3000, Conc: 4, Warmup: 0.1, Growth: 100, MaxRSS: 10_000, ResetEvery: 200,
		Timeout: 2 * time.Minute, Seed: 3, CSV: t.TempDir() + "/samples.csv"}
	r, err := Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	if !r.Pass() {
		t.Fatalf("run failed:\n%s", out.String())
	}
	if r.Requests < int64(cfg.Requests) || len(r.Samples) < 2 || r.Resets == 0 || r.Flows == 0 || r.Deliveries == 0 {
		t.Errorf("requests %d, samples %d, resets %d, flows %d, deliveries %d: want all of them\n%s",
			r.Requests, len(r.Samples), r.Resets, r.Flows, r.Deliveries, out.String())
	}
	for k, n := range r.PerKind {
		if n == 0 {
			t.Errorf("no %s request", mix[k].name)
		}
	}
	if r.Verdict.Level.Requests < int64(cfg.Warmup*float64(cfg.Requests)) || r.Verdict.Start.RSS <= 0 {
		t.Errorf("verdict %+v: want a level after the warm-up and a reading at rest", r.Verdict)
	}
}
