// Package restarttest checks that a mock server with a data directory loses nothing it
// acknowledged across a restart (docs/protocol.md §13), over HTTP as a foreign client would:
// the same scenario serves the in-process server (mockserver.WithDataDir) and the medspa-mock
// binary, restarted gracefully or killed.
package restarttest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Target is a running server: its base URL and an API key (plan enterprise, scope *) of the
// account the scenario uses.
type Target struct {
	BaseURL string
	Key     string
	Account string
}

// Item is one thing a restart must keep: Setup makes it (every request answered, so
// acknowledged) and returns the check to run after the restart.
type Item struct {
	Name  string
	Setup func(t *testing.T, c *Client) (check func(t *testing.T, c *Client))
}

// Run sets every item up on the server, restarts it (restart returns the new target), and
// checks each item in a subtest of its own.
func Run(t *testing.T, before Target, restart func(t *testing.T) Target, items []Item) {
	t.Helper()
	c := NewClient(t, before)
	checks := make([]func(*testing.T, *Client), len(items))
	for i, it := range items {
		checks[i] = it.Setup(t, c)
	}
	after := NewClient(t, restart(t))
	after.hooks = c.hooks
	for i, it := range items {
		t.Run(it.Name, func(t *testing.T) { checks[i](t, after) })
	}
}

// Client speaks raw HTTP to a target.
type Client struct {
	Target
	http  *http.Client
	hooks *Receiver
}

// NewClient returns a client of the target.
func NewClient(t *testing.T, tg Target) *Client {
	return &Client{Target: tg, http: &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// Do sends a request with the bearer token (none when token is ""), a JSON body when body is
// not "", and headers as "Name: value"; it returns the status, headers and body.
func (c *Client) Do(t *testing.T, token, method, path, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.BaseURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// Must sends a request and fails the test unless the answer has status want; it returns the
// body.
func (c *Client) Must(t *testing.T, want int, token, method, path, body string, headers ...string) []byte {
	t.Helper()
	st, _, b := c.Do(t, token, method, path, body, headers...)
	if st != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, st, want, b)
	}
	return b
}

// Form posts a form to an OAuth endpoint with basic client authentication.
func (c *Client) Form(t *testing.T, path, clientID, secret string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.BaseURL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(clientID, secret)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// decode decodes JSON into a map.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return m
}

// Receiver is a webhook receiver on 127.0.0.1 that answers 500 to the first delivery of each
// event and 200 afterwards, counting deliveries by event id.
type Receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string]int
}

// NewReceiver starts a receiver, closed with t.
func NewReceiver(t *testing.T) *Receiver {
	r := &Receiver{got: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		r.got[id]++
		n := r.got[id]
		r.mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// Deliveries returns how many deliveries of the event arrived.
func (r *Receiver) Deliveries(eventID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[eventID]
}

// WaitFor polls cond until it holds, for up to 30 s.
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// patientBody is a patient create body with PHI in every field.
func patientBody(first string) string {
	return fmt.Sprintf(`{"firstName":%q,"lastName":"Restartova","email":"%s@example.org","phone":"+15550001111",`+
		`"dateOfBirth":"1980-02-03","notes":"restart notes %s","address":{"line1":"1 Crash Way","city":"Replay","country":"US"}}`,
		first, strings.ToLower(first), first)
}

// Items are the things of docs/protocol.md §13 a restart must keep, but the binary's printed key
// (the binary's own test).
func Items() []Item {
	return []Item{
		{"records", records},
		{"api key", apiKey},
		{"revoked and rotated api keys", revokedAndRotatedKeys},
		{"oauth client", oauthClient},
		{"live access token", accessToken},
		{"refresh family", refreshFamily},
		{"idempotency replay", idempotencyReplay},
		{"account clock", accountClock},
		{"webhook endpoint and pending retry", webhookRetry},
		{"named snapshot", namedSnapshot},
		{"audit chain", auditChain},
	}
}

func records(t *testing.T, c *Client) func(*testing.T, *Client) {
	p := c.Must(t, 201, c.Key, "POST", "/api/v1/patients", patientBody("Recordia"))
	id := decode(t, p)["id"].(string)
	ap := c.Must(t, 201, c.Key, "POST", "/api/v1/appointments", `{"patientId":"`+id+`","providerId":"prv_1","service":"consult",`+
		`"startAt":"2031-05-05T10:00:00Z","endAt":"2031-05-05T10:30:00Z","notes":"appointment notes"}`)
	apID := decode(t, ap)["id"].(string)
	inv := c.Must(t, 201, c.Key, "POST", "/api/v1/invoices", `{"patientId":"`+id+`","currency":"usd","notes":"invoice notes",`+
		`"lineItems":[{"description":"consult","quantity":1,"unitAmount":5000}]}`)
	invID := decode(t, inv)["id"].(string)
	pay := c.Must(t, 201, c.Key, "POST", "/api/v1/payments", `{"invoiceId":"`+invID+`","amount":2000,"method":"cash"}`)
	payID := decode(t, pay)["id"].(string)
	ref := c.Must(t, 201, c.Key, "POST", "/api/v1/refunds", `{"paymentId":"`+payID+`","amount":500,"notes":"refund notes"}`)
	refID := decode(t, ref)["id"].(string)
	upd := c.Must(t, 200, c.Key, "PATCH", "/api/v1/patients/"+id, `{"notes":"updated notes"}`)
	prod := c.Must(t, 201, c.Key, "POST", "/api/v1/products", `{"sku":"RST-1","name":"Restart serum","category":"skincare","price":1500,"currency":"usd"}`)
	prodID := decode(t, prod)["id"].(string)
	c.Must(t, 201, c.Key, "POST", "/api/v1/inventory/adjust", `{"productId":"`+prodID+`","delta":7,"reason":"received","note":"adjust note"}`)
	want := map[string][]byte{
		"/api/v1/patients/" + id:                upd,
		"/api/v1/appointments/" + apID:          ap,
		"/api/v1/invoices/" + invID:             c.Must(t, 200, c.Key, "GET", "/api/v1/invoices/"+invID, ""),
		"/api/v1/payments/" + payID:             c.Must(t, 200, c.Key, "GET", "/api/v1/payments/"+payID, ""),
		"/api/v1/refunds/" + refID:              ref,
		"/api/v1/products/" + prodID:            c.Must(t, 200, c.Key, "GET", "/api/v1/products/"+prodID, ""),
		"/api/v1/inventory?productId=" + prodID: c.Must(t, 200, c.Key, "GET", "/api/v1/inventory?productId="+prodID, ""),
		"/api/v1/patients?email=" + strings.ToLower("Recordia") + "@example.org": c.Must(t, 200, c.Key, "GET",
			"/api/v1/patients?email=recordia@example.org", ""),
	}
	return func(t *testing.T, c *Client) {
		for path, body := range want {
			if got := c.Must(t, 200, c.Key, "GET", path, ""); !bytes.Equal(got, body) {
				t.Errorf("GET %s after the restart:\n%s\nwant\n%s", path, got, body)
			}
		}
	}
}

func apiKey(t *testing.T, c *Client) func(*testing.T, *Client) {
	k := decode(t, c.Must(t, 201, "", "POST", "/__admin/api-keys",
		`{"plan":"custom","ratePerMinute":600,"burst":50,"daily":0,"scopes":["patients:read"],"account":"`+c.Account+`"}`))
	key := k["key"].(string)
	c.Must(t, 200, key, "GET", "/api/v1/patients", "")
	return func(t *testing.T, c *Client) {
		_, h, _ := c.Do(t, key, "GET", "/api/v1/patients", "")
		c.Must(t, 200, key, "GET", "/api/v1/patients", "")
		c.Must(t, 403, key, "POST", "/api/v1/patients", patientBody("Denied"))
		if lim := h.Get("RateLimit-Policy"); lim != "" && !strings.Contains(lim, "50") {
			t.Errorf("the key's custom plan did not survive: RateLimit-Policy %q", lim)
		}
	}
}

func revokedAndRotatedKeys(t *testing.T, c *Client) func(*testing.T, *Client) {
	mk := func() map[string]any {
		return decode(t, c.Must(t, 201, "", "POST", "/__admin/api-keys", `{"plan":"enterprise","scopes":["*"],"account":"`+c.Account+`"}`))
	}
	revoked, rotated := mk(), mk()
	c.Must(t, 204, "", "DELETE", "/__admin/api-keys/"+revoked["id"].(string), "")
	next := decode(t, c.Must(t, 200, "", "POST", "/__admin/api-keys/"+rotated["id"].(string)+"/rotate", `{"graceSeconds":86400}`))
	return func(t *testing.T, c *Client) {
		c.Must(t, 401, revoked["key"].(string), "GET", "/api/v1/patients", "")
		c.Must(t, 200, rotated["key"].(string), "GET", "/api/v1/patients", "") // in its grace period
		c.Must(t, 200, next["key"].(string), "GET", "/api/v1/patients", "")
		c.Must(t, 404, "", "DELETE", "/__admin/api-keys/"+revoked["id"].(string), "") // revoked, still
	}
}

// client makes an OAuth client of the account with a redirect URI.
func client(t *testing.T, c *Client) (id, secret string) {
	cl := decode(t, c.Must(t, 201, "", "POST", "/__admin/oauth-clients",
		`{"plan":"enterprise","scopes":["patients:read","patients:write"],"account":"`+c.Account+`","redirectUris":["https://app.example/cb"]}`))
	return cl["clientId"].(string), cl["clientSecret"].(string)
}

func clientCredentials(t *testing.T, c *Client, id, secret string) string {
	t.Helper()
	st, tok := c.Form(t, "/oauth/token", id, secret, url.Values{"grant_type": {"client_credentials"}})
	if st != 200 {
		t.Fatalf("client credentials: %d %v", st, tok)
	}
	return tok["access_token"].(string)
}

func oauthClient(t *testing.T, c *Client) func(*testing.T, *Client) {
	id, secret := client(t, c)
	return func(t *testing.T, c *Client) {
		c.Must(t, 200, clientCredentials(t, c, id, secret), "GET", "/api/v1/patients", "")
	}
}

func accessToken(t *testing.T, c *Client) func(*testing.T, *Client) {
	id, secret := client(t, c)
	tok := clientCredentials(t, c, id, secret)
	c.Must(t, 200, tok, "GET", "/api/v1/patients", "")
	return func(t *testing.T, c *Client) { c.Must(t, 200, tok, "GET", "/api/v1/patients", "") }
}

// authorizationCode runs the authorization-code flow with PKCE and returns the token answer.
func authorizationCode(t *testing.T, c *Client, id, secret string) map[string]any {
	t.Helper()
	verifier := rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"https://app.example/cb"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	st, h, b := c.Do(t, "", "GET", "/oauth/authorize?"+q.Encode(), "")
	loc, err := url.Parse(h.Get("Location"))
	if st != 302 || err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %d %v %s", st, h, b)
	}
	st, tok := c.Form(t, "/oauth/token", id, secret, url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"code_verifier": {verifier}, "redirect_uri": {"https://app.example/cb"}})
	if st != 200 || tok["refresh_token"] == nil {
		t.Fatalf("code exchange: %d %v", st, tok)
	}
	return tok
}

func refresh(t *testing.T, c *Client, id, secret, rt string) (int, map[string]any) {
	t.Helper()
	return c.Form(t, "/oauth/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
}

func refreshFamily(t *testing.T, c *Client) func(*testing.T, *Client) {
	id, secret := client(t, c)
	first := authorizationCode(t, c, id, secret)
	st, second := refresh(t, c, id, secret, first["refresh_token"].(string))
	if st != 200 {
		t.Fatalf("refresh: %d %v", st, second)
	}
	return func(t *testing.T, c *Client) {
		// The family still rotates: the live refresh token works once.
		st, third := refresh(t, c, id, secret, second["refresh_token"].(string))
		if st != 200 {
			t.Fatalf("the live refresh token after the restart: %d %v", st, third)
		}
		access := third["access_token"].(string)
		c.Must(t, 200, access, "GET", "/api/v1/patients", "")
		// Reuse of a rotated refresh token is still detected, and revokes the whole family.
		if st, out := refresh(t, c, id, secret, first["refresh_token"].(string)); st != 400 {
			t.Fatalf("reuse of a refresh token rotated before the restart: %d %v", st, out)
		}
		c.Must(t, 401, access, "GET", "/api/v1/patients", "")
		if st, _ := refresh(t, c, id, secret, third["refresh_token"].(string)); st != 400 {
			t.Fatalf("a refresh token of the revoked family: %d", st)
		}
	}
}

func idempotencyReplay(t *testing.T, c *Client) func(*testing.T, *Client) {
	body := patientBody("Idempotia")
	_, _, first := c.Do(t, c.Key, "POST", "/api/v1/patients", body, "Idempotency-Key: restart-key-1")
	return func(t *testing.T, c *Client) {
		st, h, again := c.Do(t, c.Key, "POST", "/api/v1/patients", body, "Idempotency-Key: restart-key-1")
		if st != 201 || h.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again, first) {
			t.Fatalf("keyed POST after the restart: %d %q\n%s\nwant the first answer\n%s", st, h.Get("Idempotent-Replayed"), again, first)
		}
		if st, _, _ := c.Do(t, c.Key, "POST", "/api/v1/patients", patientBody("Other"), "Idempotency-Key: restart-key-1"); st != 422 {
			t.Fatalf("the key with another body after the restart: %d, want 422", st)
		}
	}
}

// otherAccount makes a key of a fresh account.
func otherAccount(t *testing.T, c *Client) (key, account string) {
	k := decode(t, c.Must(t, 201, "", "POST", "/__admin/api-keys", `{"plan":"enterprise","scopes":["*"]}`))
	return k["key"].(string), k["account"].(string)
}

func accountClock(t *testing.T, c *Client) func(*testing.T, *Client) {
	key, account := otherAccount(t, c)
	c.Must(t, 200, "", "POST", "/__admin/clock", `{"account":"`+account+`","now":"2030-06-01T12:00:00Z"}`)
	c.Must(t, 200, "", "POST", "/__admin/clock", `{"account":"`+account+`","advance":"90m"}`)
	return func(t *testing.T, c *Client) {
		got := decode(t, c.Must(t, 200, "", "GET", "/__admin/clock?account="+account, ""))
		if got["now"] != "2030-06-01T13:30:00Z" || got["frozen"] != true {
			t.Fatalf("the account's clock after the restart: %v", got)
		}
		p := decode(t, c.Must(t, 201, key, "POST", "/api/v1/patients", patientBody("Clocked")))
		if p["createdAt"] != "2030-06-01T13:30:00Z" {
			t.Fatalf("a record created after the restart: createdAt %v", p["createdAt"])
		}
	}
}

func webhookRetry(t *testing.T, c *Client) func(*testing.T, *Client) {
	if c.hooks == nil {
		c.hooks = NewReceiver(t)
	}
	key, account := otherAccount(t, c)
	c.Must(t, 200, "", "POST", "/__admin/clock", `{"account":"`+account+`","now":"2030-01-01T00:00:00Z"}`)
	c.Must(t, 201, key, "POST", "/api/v1/webhooks", `{"url":"`+c.hooks.srv.URL+`/hook","events":["patient.created"]}`)
	c.Must(t, 201, key, "POST", "/api/v1/patients", patientBody("Hooked"))
	var eventID string
	WaitFor(t, "the first, failed delivery", func() bool {
		var d struct {
			Deliveries []struct {
				EventID string `json:"eventId"`
				Attempt int    `json:"attempt"`
			} `json:"deliveries"`
		}
		_ = json.Unmarshal(c.Must(t, 200, "", "GET", "/__admin/deliveries?account="+account, ""), &d)
		for _, x := range d.Deliveries {
			eventID = x.EventID
		}
		return eventID != "" && c.hooks.Deliveries(eventID) == 1
	})
	return func(t *testing.T, c *Client) {
		// The retry falls due 5 s later on the account's frozen clock: moving it runs the retry
		// the server kept across the restart.
		c.Must(t, 200, "", "POST", "/__admin/clock", `{"account":"`+account+`","advance":"10s"}`)
		WaitFor(t, "the retry after the restart", func() bool { return c.hooks.Deliveries(eventID) >= 2 })
		c.Must(t, 200, key, "GET", "/api/v1/webhooks", "")
		var list struct {
			Data []struct {
				URL string `json:"url"`
			} `json:"data"`
		}
		_ = json.Unmarshal(c.Must(t, 200, key, "GET", "/api/v1/webhooks", ""), &list)
		if len(list.Data) != 1 || !strings.HasPrefix(list.Data[0].URL, c.hooks.srv.URL) {
			t.Fatalf("webhook endpoints after the restart: %+v", list.Data)
		}
	}
}

func namedSnapshot(t *testing.T, c *Client) func(*testing.T, *Client) {
	key, account := otherAccount(t, c)
	kept := c.Must(t, 201, key, "POST", "/api/v1/patients", patientBody("Snapshotta"))
	c.Must(t, 204, "", "POST", "/__admin/snapshots", `{"account":"`+account+`","name":"before"}`)
	c.Must(t, 201, key, "POST", "/api/v1/patients", patientBody("Afterward"))
	return func(t *testing.T, c *Client) {
		c.Must(t, 204, "", "POST", "/__admin/snapshots/before/restore", `{"account":"`+account+`"}`)
		var list struct {
			Data []json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(c.Must(t, 200, key, "GET", "/api/v1/patients", ""), &list)
		if len(list.Data) != 1 || !bytes.Equal(list.Data[0], bytes.TrimSpace(kept)) {
			t.Fatalf("after restoring the snapshot saved before the restart: %s", list.Data)
		}
	}
}

func auditChain(t *testing.T, c *Client) func(*testing.T, *Client) {
	key, account := otherAccount(t, c)
	c.Must(t, 201, key, "POST", "/api/v1/patients", patientBody("Audita"))
	c.Must(t, 200, key, "GET", "/api/v1/patients", "")
	var before struct {
		Events   []map[string]any `json:"events"`
		Verified bool             `json:"verified"`
	}
	_ = json.Unmarshal(c.Must(t, 200, "", "GET", "/__admin/audit-events?account="+account, ""), &before)
	if len(before.Events) < 2 || !before.Verified {
		t.Fatalf("audit before the restart: %+v", before)
	}
	return func(t *testing.T, c *Client) {
		var after struct {
			Events   []map[string]any `json:"events"`
			Verified bool             `json:"verified"`
		}
		_ = json.Unmarshal(c.Must(t, 200, "", "GET", "/__admin/audit-events?account="+account, ""), &after)
		if !after.Verified {
			t.Fatalf("the audit chain does not verify after the restart: %+v", after)
		}
		if len(after.Events) < len(before.Events) {
			t.Fatalf("the audit log kept %d of %d events across the restart", len(after.Events), len(before.Events))
		}
		for i, e := range before.Events {
			if after.Events[i]["hash"] != e["hash"] {
				t.Fatalf("audit event %d changed across the restart", i)
			}
		}
	}
}
