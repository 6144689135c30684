package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestTrustProxyFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"", nil},
		{"false", nil},
		{"true", []string{}}, // the old boolean form: loopback
		{"10.0.0.0/8,127.0.0.1", []string{"10.0.0.0/8", "127.0.0.1"}},
	} {
		got := trustedProxies(tc.value)
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%q: %q, want %q", tc.value, got, tc.want)
		}
	}
	c, err := parse([]string{"-trust-proxy", "10.0.0.0/8, ::1", "-max-conns", "5", "-audit-retention", "7"}, io.Discard)
	if err != nil || c.trustProxy != "10.0.0.0/8, ::1" || c.maxConns != 5 || c.auditRetention != 7 {
		t.Fatalf("parsed %+v, %v", c, err)
	}
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-quiet", "-trust-proxy", "10.0.0.0/33"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "10.0.0.0/33") {
		t.Fatalf("an invalid -trust-proxy: %v", err)
	}
}

// TestServesWithLimits: the binary serves through the limits of docs/protocol.md §13 (a head
// within the listener's reach gets the limits step's 414).
func TestServesWithLimits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-quiet", "-max-conns", "4"}, pw, io.Discard)
		pw.Close()
	}()
	base, _ := started(t, pr)
	resp, err := http.Get(base + "/api/v1/patients/" + strings.Repeat("a", 9000))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestURITooLong {
		t.Errorf("long path: %d, want 414", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPprofOnlyOnLoopback(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-quiet", "-pprof", "0.0.0.0:0"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("-pprof on every interface: %v", err)
	}
}
