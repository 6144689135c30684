package reqlog

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

// TestHandlerMatchesTextHandler holds the hand-made request lines to the TextHandler's bytes,
// for the lines the journal logs and for values that need quoting (which take the TextHandler's
// road).
func TestHandlerMatchesTextHandler(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 16, 5, 51, 941_000_000, time.UTC)
	line := func(msg string, level slog.Level, at time.Time, attrs ...slog.Attr) slog.Record {
		r := slog.NewRecord(at, level, msg, 0)
		r.AddAttrs(attrs...)
		return r
	}
	request := func(path, account string, status int, extra ...slog.Attr) []slog.Attr {
		return append([]slog.Attr{slog.String("method", "GET"), slog.String("path", path), slog.Int("status", status),
			slog.Duration("duration", 133538*time.Nanosecond), slog.String("request_id", "req_01a21374cec57000a74b6a421c0a7eb7"),
			slog.String("account", account)}, extra...)
	}
	records := []slog.Record{
		line("request", slog.LevelInfo, at, request("/api/v1/patients/pat_01a21374cd9470018f7beeb60b2afbeb", "acct_01a2", 200)...),
		line("request", slog.LevelWarn, at.Add(999*time.Microsecond), request("/api/v1/patients", "acct_01a2", 0, slog.String("fault", "drop-after-commit"))...),
		line("request", slog.LevelInfo, at.In(time.FixedZone("x", -5*3600)), request("/api/v1/{redacted}", "", 404)...),
		line("request", slog.LevelInfo, at, request("/api/v1/a b", "acct", 200)...),
		line("request", slog.LevelInfo, at, request(`/api/v1/"q"=\`, "acct", 200)...),
		line("request", slog.LevelInfo, at, request("/api/v1/é\u00a0", "acct", 200)...),
		line("request", slog.LevelInfo, at, slog.Any("error", io.EOF)),
		line("request", slog.LevelInfo, at, slog.Group("g", slog.String("a", "b"))),
		line("request", slog.LevelInfo, time.Time{}, slog.String("a", "b")),
		line("handler failed", slog.LevelError, at, slog.String("request_id", "req_1")),
		line("request", slog.LevelInfo, at, slog.Duration("duration", -3*time.Second), slog.Int("n", -7)),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := make([]byte, rng.IntN(12))
		for i := range s {
			s[i] = byte(rng.IntN(0x90))
		}
		records = append(records, line("request", slog.LevelInfo, at.Add(time.Duration(rng.Int64N(1e12))), request(string(s), string(s[:len(s)/2]), rng.IntN(600))...))
	}
	for _, r := range records {
		var got, want bytes.Buffer
		if err := New(&got).Handle(context.Background(), r.Clone()); err != nil {
			t.Fatal(err)
		}
		if err := slog.NewTextHandler(&want, nil).Handle(context.Background(), r.Clone()); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("line differs:\n got %q\nwant %q", got.String(), want.String())
		}
	}
}

// TestRequestIsHandle holds Request (a line from its fields) to Handle of the line's record, for
// the server's lines and for random fields, quoting or not.
func TestRequestIsHandle(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 16, 5, 51, 941_000_000, time.UTC)
	lines := []Line{
		{Time: at, Level: slog.LevelInfo, Method: "GET", Path: "/api/v1/patients/pat_01a21374cd9470018f7beeb60b2afbeb", Status: 200,
			Duration: 133538 * time.Nanosecond, RequestID: "req_01a21374cec57000a74b6a421c0a7eb7", Account: "acct_01a2"},
		{Time: at.Add(999 * time.Microsecond), Level: slog.LevelWarn, Method: "POST", Path: "/api/v1/patients", RequestID: "req_1",
			Account: "acct_01a2", Fault: "drop-after-commit"},
		{Time: at.In(time.FixedZone("x", -5*3600)), Level: slog.LevelInfo, Method: "GET", Path: "/api/v1/{redacted}", Status: 404, RequestID: "req_2"},
		{Time: at, Method: "GET", Path: "/a b", Status: 200, RequestID: "req_3", Account: `"q"`},
		{Time: at, Method: "", Path: "", RequestID: ""},
		{Time: time.Time{}, Method: "GET", Path: "/", RequestID: "req_4"},
		{Time: at, Method: "GET", Path: "/", RequestID: "req_5", Duration: -3 * time.Second, Status: -7, Fault: "é"},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		s := make([]byte, rng.IntN(10))
		for i := range s {
			s[i] = byte(rng.IntN(0x90))
		}
		return string(s)
	}
	for range 2000 {
		lines = append(lines, Line{Time: at.Add(time.Duration(rng.Int64N(1e12))), Level: slog.Level(4 * rng.IntN(3)), Method: word(),
			Path: word(), Status: rng.IntN(600), Duration: time.Duration(rng.Int64N(1e10)), RequestID: word(), Account: word(), Fault: word()})
	}
	for _, l := range lines {
		var got, want bytes.Buffer
		if err := New(&got).Request(&l); err != nil {
			t.Fatal(err)
		}
		if err := New(&want).Handle(context.Background(), l.Record(0)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("line differs:\n got %q\nwant %q", got.String(), want.String())
		}
	}
}
