package wire_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
)

func TestErrorCodesTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range wire.ErrorCodes {
		if seen[c.Code] {
			t.Errorf("%s listed twice", c.Code)
		}
		seen[c.Code] = true
		if c.Title == "" {
			t.Errorf("%s has no title", c.Code)
		}
		if !c.MockOnly && http.StatusText(c.Status) == "" {
			t.Errorf("%s has status %d, not an HTTP status", c.Code, c.Status)
		}
		got, ok := wire.LookupCode(c.Code)
		if !ok || got != c {
			t.Errorf("LookupCode(%q) = %+v, %v", c.Code, got, ok)
		}
		if wire.Title(c.Code) != c.Title {
			t.Errorf("Title(%q) = %q", c.Code, wire.Title(c.Code))
		}
	}
	if _, ok := wire.LookupCode("no_such_code"); ok {
		t.Error("LookupCode found an unknown code")
	}
	if got := wire.Title("no_such_code"); got != "Internal error" {
		t.Errorf("Title of an unknown code = %q", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	for _, tc := range []struct {
		in    string
		limit time.Duration
		want  time.Duration
	}{
		{"", 0, 0},
		{"  ", 0, 0},
		{"0", 0, 0},
		{"-5", 0, 0},
		{"5", 0, 5 * time.Second},
		{" 7 ", 0, 7 * time.Second},
		{"120", time.Minute, time.Minute},
		{"99999999999999999999", 0, 0}, // does not parse as int64, nor as a date
		{"9223372036854775807", time.Hour, time.Hour},
		{"1.5", 0, 0},
		{"soon", 0, 0},
		{"Sun, 22 Nov 2026 14:03:30 GMT", 0, 30 * time.Second},
		{"Sun, 22 Nov 2026 14:03:30 GMT", 10 * time.Second, 10 * time.Second},
		{"Sun, 22 Nov 2026 14:02:00 GMT", 0, 0}, // in the past
	} {
		if got := wire.ParseRetryAfter(tc.in, now, tc.limit); got != tc.want {
			t.Errorf("ParseRetryAfter(%q, limit %v) = %v, want %v", tc.in, tc.limit, got, tc.want)
		}
	}
	if got := wire.ParseRetryAfter("9223372036854775807", now, 0); got <= 0 {
		t.Errorf("a huge delay overflowed to %v", got)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "api.localhost": true,
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "::ffff:127.0.0.1": true,
		"": false, "example.com": false, "localhost.example.com": false, "10.0.0.1": false,
		"::": false, "0.0.0.0": false, "[::1]": false, "127.0.0.1:80": false, "mylocalhost": false,
	} {
		if got := wire.IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestWellFormedID(t *testing.T) {
	t.Parallel()
	const hex = "0193a1b2c3d4e5f60718293a4b5c6d7e"
	for s, want := range map[string]bool{
		"pat_" + hex: true, "whk_" + hex: true, "abcd_" + hex: true,
		"": false, "pat_": false, "pa_" + hex: false, "abcde_" + hex: false, "PAT_" + hex: false,
		"pat-" + hex: false, "pat_" + hex[:31]: false, "pat_" + hex + "0": false,
		"pat_" + hex[:31] + "G": false, "pat_" + hex[:31] + "A": false, "..": false,
		"pat_" + hex[:30] + "/x": false,
	} {
		if got := wire.WellFormedID(s); got != want {
			t.Errorf("WellFormedID(%q) = %v, want %v", s, got, want)
		}
	}
	if !wire.IsID("pat_"+hex, "pat") || wire.IsID("pat_"+hex, "apt") || wire.IsID("pa_"+hex, "pa") {
		t.Error("IsID does not check the prefix")
	}
	seen := map[string]bool{}
	for kind, p := range wire.IDPrefixes {
		if seen[p] {
			t.Errorf("prefix %q used twice (%s)", p, kind)
		}
		seen[p] = true
		if !wire.WellFormedID(p + "_" + hex) {
			t.Errorf("prefix %q of %s does not make a well-formed id", p, kind)
		}
	}
}

func TestTime(t *testing.T) {
	t.Parallel()
	local := time.FixedZone("EST", -5*3600)
	in := time.Date(2026, 11, 22, 9, 3, 0, 999_999_999, local)
	got := wire.Time(in)
	if got.Location() != time.UTC || got.Nanosecond() != 0 || !got.Equal(time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)) {
		t.Errorf("Time = %v", got)
	}
	if s := wire.FormatTime(in); s != "2026-11-22T14:03:00Z" {
		t.Errorf("FormatTime = %q", s)
	}
}
