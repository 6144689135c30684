package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/medspa/medspa-go/client"
)

// cannedTransport answers every request with the same JSON body, in memory: what is left of a
// call's cost is the SDK's own call path (build, auth, limit, send, retry decision, decode).
type cannedTransport struct {
	status int
	body   []byte
}

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_bench"}}
	return &http.Response{StatusCode: c.status, Header: h, Body: io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: req}, nil
}

const benchPatient = `{"id":"pat_0193a1b2c3d4e5f60718293a4b5c6d7e","firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","createdAt":"2026-11-22T14:03:00Z","updatedAt":"2026-11-22T14:03:00Z"}`

type benchObj struct {
	ID        string `json:"id"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	Email     string `json:"email"`
}

func benchClient(b *testing.B, status int, body string) *client.Engine {
	b.Helper()
	c, err := client.NewEngine(client.WithBaseURL("https://api.example.test"), client.WithAPIKey("msk_test_bench"),
		client.WithHTTPClient(&http.Client{Transport: cannedTransport{status, []byte(body)}}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkCallGet is one GET by id through the whole call path.
func BenchmarkCallGet(b *testing.B) {
	c := benchClient(b, http.StatusOK, benchPatient)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := client.Call[benchObj](ctx, c, http.MethodGet, client.Path("patients", "pat_0193a1b2c3d4e5f60718293a4b5c6d7e"), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallCreate is one POST with a JSON body and an Idempotency-Key.
func BenchmarkCallCreate(b *testing.B) {
	c := benchClient(b, http.StatusCreated, benchPatient)
	ctx := context.Background()
	params := &benchObj{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := client.Call[benchObj](ctx, c, http.MethodPost, client.Path("patients"), params); err != nil {
			b.Fatal(err)
		}
	}
}
