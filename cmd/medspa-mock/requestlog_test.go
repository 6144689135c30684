package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRequestLogHasEveryLineInOrder: the binary logs one line per request to stderr (here a
// file, as a service manager would give it), in the order the requests were answered, each with
// its method, path, status and request id, and all of them are there once the binary has
// returned.
func TestRequestLogHasEveryLineInOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, pw, stderr)
		pw.Close()
	}()
	base, key := started(t, pr)
	const requests = 200
	ids := make([]string, requests)
	for i := range ids {
		req, _ := http.NewRequest("GET", base+"/api/v1/patients?perPage="+strconv.Itoa(i%50+1), nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
		ids[i] = res.Header.Get("X-Request-Id")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	logged, err := os.ReadFile(stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(logged), "\n") {
		if strings.Contains(l, " msg=request ") && strings.Contains(l, " path=/api/v1/patients ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != requests {
		t.Fatalf("%d request lines for %d requests:\n%s", len(lines), requests, logged)
	}
	for i, l := range lines {
		for _, want := range []string{"level=INFO", "method=GET", "status=200", "duration=", "request_id=" + ids[i] + " ", "account=acct_"} {
			if !strings.Contains(l+" ", want) {
				t.Fatalf("line %d lacks %q: %s", i, want, l)
			}
		}
	}
}
