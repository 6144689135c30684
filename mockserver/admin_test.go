package mockserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
)

func adminPost(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestAdminAPIKeys(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(newServer(t))
	defer ts.Close()
	status, body := adminPost(t, ts.URL+"/__admin/api-keys", `{"plan":"professional","scopes":["patients:read","billing:write"]}`)
	if status != 201 {
		t.Fatalf("%d %s", status, body)
	}
	var k mockserver.APIKey
	if err := json.Unmarshal(body, &k); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Key, "msk_test_") || len(k.Key) != len("msk_test_")+32 || !strings.HasPrefix(k.ID, "key_") ||
		!strings.HasPrefix(k.SigningSecret, "mss_") || k.Plan != "professional" || k.Burst != 500 || k.Account == "" {
		t.Errorf("key %+v", k)
	}
	status, body = adminPost(t, ts.URL+"/__admin/api-keys", `{"plan":"custom","ratePerMinute":0,"burst":0,"scopes":["nope"],"allowedIps":["300.1.1.1/8"]}`)
	if status != 422 {
		t.Fatalf("%d %s", status, body)
	}
	for _, p := range []string{"/ratePerMinute", "/burst", "/scopes/0", "/allowedIps/0"} {
		if !strings.Contains(string(body), `"pointer":"`+p+`"`) {
			t.Errorf("%s not named: %s", p, body)
		}
	}
	status, _ = adminPost(t, ts.URL+"/__admin/api-keys", `{"plan":"starter","scopes":["*"],"colour":"red"}`)
	if status != 422 {
		t.Errorf("unknown admin field: %d", status)
	}
	if status, body := adminPost(t, ts.URL+"/__admin/reset", `{"account":"`+k.Account+`"}`); status != 204 || len(body) != 0 {
		t.Errorf("reset: %d %q, want 204 and no body", status, body)
	}
	status, _ = adminPost(t, ts.URL+"/__admin/reset", `{"account":"acct_nope"}`)
	if status != 404 {
		t.Errorf("reset of unknown account: %d", status)
	}
}

func TestAdminCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(newServer(t, mockserver.WithoutAdmin()))
	defer ts.Close()
	status, _ := adminPost(t, ts.URL+"/__admin/api-keys", `{"plan":"starter","scopes":["*"]}`)
	if status != 404 {
		t.Errorf("admin off: %d", status)
	}
}

// newServer returns a server closed with t.
func newServer(t *testing.T, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	s, err := mockserver.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
