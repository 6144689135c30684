package mockserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
)

func TestSaveLoadState(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, 32)
	s, err := mockserver.New(mockserver.WithPHIKey(key), mockserver.WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	k := newKey(t, s, "")
	raw(t, s, k.Key, "POST", "/api/v1/patients", `{"firstName":"Hypatia","lastName":"Alexandria","email":"h@example.com"}`, "Idempotency-Key: one")
	_, _, before := raw(t, s, k.Key, "GET", "/api/v1/patients", "")
	_, _, cb := raw(t, s, "", "POST", "/__admin/oauth-clients", `{"plan":"starter","scopes":["patients:read"],"account":"`+k.Account+`"}`)
	var cl struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
	}
	if err := json.Unmarshal(cb, &cl); err != nil || cl.ClientSecret == "" {
		t.Fatalf("oauth client: %s", cb)
	}
	var st bytes.Buffer
	if err := s.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"Hypatia", "Alexandria", "h@example.com", k.Key, cl.ClientSecret} {
		if strings.Contains(st.String(), plain) {
			t.Fatalf("state contains %q", plain)
		}
	}

	s2, err := mockserver.New(mockserver.WithPHIKey(key), mockserver.WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.LoadState(bytes.NewReader(st.Bytes())); err != nil {
		t.Fatal(err)
	}
	if _, _, after := raw(t, s2, k.Key, "GET", "/api/v1/patients", ""); !bytes.Equal(after[bytes.Index(after, []byte(`"data"`)):], before[bytes.Index(before, []byte(`"data"`)):]) {
		t.Fatalf("after load:\n%s\nwant\n%s", after, before)
	}
	// Idempotency keys survive; the id sequence continues instead of repeating.
	st2, h, _ := raw(t, s2, k.Key, "POST", "/api/v1/patients", `{"firstName":"Hypatia","lastName":"Alexandria","email":"h@example.com"}`, "Idempotency-Key: one")
	if st2 != 201 || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("keyed POST after load: %d %v", st2, h)
	}
	// The OAuth client still gets tokens, for the same account.
	req, _ := http.NewRequest("POST", mockserver.InProcessBaseURL+"/oauth/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(cl.ClientID, cl.ClientSecret)
	resp, err := s2.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if st, _, b := raw(t, s2, tok.AccessToken, "GET", "/api/v1/patients", ""); st != 200 || !strings.Contains(string(b), `"total":1`) {
		t.Fatalf("OAuth client after load: %d %s", st, b)
	}
	k2 := newKey(t, s2, "")
	if k2.Key == k.Key || k2.ID == k.ID {
		t.Fatal("a seeded server repeated a key after loading state")
	}

	other, err := mockserver.New(mockserver.WithPHIKey(bytes.Repeat([]byte{8}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.LoadState(bytes.NewReader(st.Bytes())); err == nil || !strings.Contains(err.Error(), "PHI key") {
		t.Fatalf("loading with another PHI key: %v", err)
	}
}
