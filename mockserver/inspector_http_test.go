package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// TestInspectorAddressWithoutSlash: /__admin/ui, typed without its slash, leads to the page
// whether or not the server has an admin token (the page's files need none: it asks for the
// token itself), while the admin data still needs the token.
func TestInspectorAddressWithoutSlash(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, []mockserver.Option{mockserver.WithAdminToken("madm_slash_test_token")})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(env.URL + "/__admin/ui")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 3 || resp.Header.Get("Location") != "/__admin/ui/" {
		t.Fatalf("GET /__admin/ui: %d, Location %q; want a redirect to /__admin/ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err = http.Get(env.URL + "/__admin/requests")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /__admin/requests without the token: %d, want 401", resp.StatusCode)
	}
}
