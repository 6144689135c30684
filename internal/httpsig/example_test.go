package httpsig_test

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"
)

// Example shows both ends of a signed exchange: the SDK signs the request,
// the server verifies it (clock window and replay cache are its own), signs
// its response, and the SDK verifies that response.
func Example() {
	secret := httpsig.NewSecret()
	key, _ := httpsig.ParseSecret(secret)
	now := time.Now()

	// Client side.
	body := []byte(`{"firstName":"Ada"}`)
	req, _ := http.NewRequest("POST", "https://api.medspa.dev/api/v1/patients", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer msk_test_0123456789abcdefghijklmnopqrstuv")
	req.Header.Set("Content-Type", "application/json")
	if err := httpsig.SignRequest(req, body, "key_1", key, now); err != nil {
		panic(err)
	}

	// Server side (a real server rebuilds the URI from scheme + Host + RequestURI).
	replay := httpsig.NewReplayCache(600 * time.Second)
	uri := req.URL.String()
	p, err := httpsig.VerifyRequest(req, body, uri, func(id string) ([]byte, bool) { return key, id == "key_1" })
	fresh := err == nil && now.Sub(p.Created).Abs() <= 300*time.Second && !replay.Seen(p.Nonce, now)
	fmt.Println("request ok:", fresh)

	h := http.Header{}
	h.Set("X-Request-Id", "req_1")
	respBody := []byte(`{"id":"pat_1"}`)
	httpsig.SignResponse(h, 201, respBody, req.Method, uri, p.KeyID, key, now)

	// Client side again.
	fmt.Println("response:", httpsig.VerifyResponse(201, h, respBody, req.Method, uri, key))
	// A replayed request is caught by the cache.
	fmt.Println("replay seen:", replay.Seen(p.Nonce, now.Add(time.Minute)))
	// Output:
	// request ok: true
	// response: <nil>
	// replay seen: true
}
