package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends a JSON POST with a bearer key and returns the status and body.
func post(t *testing.T, url, key, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for _, h := range header {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLoopbackWebhooksRefusedOnTheNetwork (issue 32, item 3): a binary listening on every
// interface refuses webhook endpoints on loopback (its users could otherwise make it reach, or
// scan, services of its host), with the reason; -loopback-webhooks allows them; a loopback
// listener allows them as before.
func TestLoopbackWebhooksRefusedOnTheNetwork(t *testing.T) {
	t.Parallel()
	hook := `{"url":"http://127.0.0.1:9/hook","events":["*"]}`
	named := `{"url":"http://localhost:9/hook","events":["*"]}`
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"every interface", []string{"-addr", "0.0.0.0:0"}, 422},
		{"every interface, trusted network", []string{"-addr", "0.0.0.0:0", "-loopback-webhooks"}, 201},
		{"loopback", nil, 201},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startBinary(t, tc.args...)
			base := strings.Replace(p.base, "0.0.0.0", "127.0.0.1", 1)
			for _, body := range []string{hook, named} {
				status, answer := post(t, base+"/api/v1/webhooks", p.key, body)
				if status != tc.want {
					t.Fatalf("%s: %d %s, want %d", body, status, answer, tc.want)
				}
				if status == 422 && (!strings.Contains(answer, `"pointer":"/url"`) || !strings.Contains(answer, "loopback")) {
					t.Errorf("refusal does not name the field and the reason: %s", answer)
				}
			}
		})
	}
}
