package mockserver_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
)

// bodyRoutes are every route of the mock server that reads a JSON body.
var bodyRoutes = []struct{ method, path string }{
	{http.MethodPost, "/api/v1/patients"},
	{http.MethodPatch, "/api/v1/patients/@pat"},
	{http.MethodPost, "/api/v1/appointments"},
	{http.MethodPatch, "/api/v1/appointments/@apt"},
	{http.MethodPost, "/api/v1/invoices"},
	{http.MethodPost, "/api/v1/payments"},
	{http.MethodPost, "/api/v1/products"},
	{http.MethodPatch, "/api/v1/products/@prd"},
	{http.MethodPost, "/api/v1/inventory/adjust"},
	{http.MethodPost, "/api/v1/webhooks"},
	{http.MethodPost, "/api/v1/webhooks/@whk/test"},
	{http.MethodPost, "/api/v1/invoices/@inv/void"},
	{http.MethodPost, "/api/v1/refunds"},
	{http.MethodPatch, "/api/v1/webhooks/@whk"},
	{http.MethodPost, "/api/v1/webhooks/@whk/rotate-secret"},
}

// FuzzBodies sends arbitrary bodies to every JSON-body route (the route picked by a fuzzed
// byte, ids of seeded records in the path and wherever the body says @pat, @prd, …). Property:
// never a 5xx, every 4xx the protocol's problem document, and after a rejected request the
// account's state dump is unchanged.
func FuzzBodies(f *testing.F) {
	seeds := []string{
		`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`,
		`{"notes":"x","tags":["a"],"phone":null}`,
		`{"patientId":"@pat","providerId":"prv_2","service":"s","startAt":"2031-01-01T10:00:00Z","endAt":"2031-01-01T10:30:00Z"}`,
		`{"status":"confirmed"}`, `{"status":"cancelled","cancellationReason":"x"}`,
		`{"patientId":"@pat","lineItems":[{"description":"x","quantity":1,"unitAmount":100}]}`,
		`{"patientId":"@pat","lineItems":[{"description":"x","quantity":2,"productId":"@prd"}],"taxRateBps":825,"discountAmount":10}`,
		`{"invoiceId":"@inv","amount":50,"method":"cash"}`, `{"invoiceId":"@inv","amount":1,"method":"card","cardToken":"tok_visa"}`,
		`{"sku":"S-1","name":"n","category":"other","price":100}`, `{"price":-1}`, `{"reorderLevel":5}`,
		`{"productId":"@prd","delta":-1,"reason":"used"}`, `{"productId":"@prd","delta":9223372036854775807,"reason":"received"}`,
		`{"url":"https://127.0.0.1/h","events":["*"]}`, `{"url":"http://10.0.0.1/h","events":["patient.created"]}`,
		`{}`, `[]`, `null`, `1e400`, "\xff\xfe", `{"a":1,"a":1}`, `{"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
		`{"amount":"NaN"}`, `{"amount":1.5}`, `{"firstName":"\u202eevil\u0000"}`, `{"email":"\ud800@x.y"}`,
		`{"reason":"raised in error"}`, `{"paymentId":"@pay","amount":10}`, `{"paymentId":"@failpay"}`,
		`{"events":["refund.created"],"description":null}`, `{"url":"http://169.254.169.254/"}`, `{"expiresInSeconds":0}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	w := newWorld(f)
	successes := 0
	state := w.dump(f) // the state now: only a successful request changes it
	f.Fuzz(func(t *testing.T, pick uint8, body []byte) {
		rt := bodyRoutes[int(pick)%len(bodyRoutes)]
		b := []byte(w.fill(string(body)))
		if strings.HasPrefix(rt.path, "/api/v1/webhooks") && offLoopback(b) {
			return // would resolve and call a host off this machine
		}
		if successes > 300 { // keep the dump small: start again from a fresh world
			w, successes = newWorld(t), 0 // its dispatcher stops with t: the server still answers
			state = w.dump(t)
		}
		a := w.do(t, rt.method, w.fill(rt.path), "application/json", b)
		checkAnswer(t, rt.method+" "+rt.path+" "+strconv.Quote(string(b)), a)
		if a.status >= 400 {
			if after := w.dump(t); after != state {
				t.Fatalf("%s %s %q rejected (%d) but the state changed:\nbefore %s\nafter  %s", rt.method, rt.path, b, a.status, state, after)
			}
			return
		}
		successes++
		defer func() { state = w.dump(t) }()
		switch rt.path {
		case "/api/v1/webhooks":
			var e struct{ ID string }
			_ = json.Unmarshal(a.body, &e)
			checkAnswer(t, "delete created webhook", w.do(t, http.MethodDelete, "/api/v1/webhooks/"+e.ID, "", nil))
		case "/api/v1/webhooks/@whk":
			// Disabled again, as seeded: no delivery changes the state behind the test's back.
			checkAnswer(t, "disable patched webhook", w.do(t, http.MethodPatch, w.fill(rt.path), "application/json", []byte(`{"enabled":false}`)))
		}
	})
}

// listRoutes are every list and report endpoint.
var listRoutes = slices.Concat(pagedRoutes, reportRoutes)

// pagedRoutes are the paged lists, and reportRoutes the reports.
var (
	pagedRoutes = []string{
		"/api/v1/patients", "/api/v1/appointments", "/api/v1/invoices", "/api/v1/payments", "/api/v1/refunds",
		"/api/v1/products", "/api/v1/inventory", "/api/v1/webhooks",
	}
	reportRoutes = []string{
		"/api/v1/reports/revenue", "/api/v1/reports/appointments", "/api/v1/reports/patients", "/api/v1/reports/custom",
	}
)

// FuzzQueries sends arbitrary query strings to every list and report endpoint: 200 or a 4xx
// problem, never more, and reads change nothing.
func FuzzQueries(f *testing.F) {
	for i, s := range []string{"", "page=2&perPage=100", "perPage=0", "q=%00", "sort=-createdAt", "sort=bogus",
		"createdFrom=2026-01-01&createdTo=2026-01-01T00:00:00Z", "page=99999999999999999999", "status=scheduled,confirmed",
		"from=2026-01-01&to=2026-12-31&groupBy=month", "from=2026-12-31&to=2026-01-01", "groupBy=day&format=csv",
		"dimensions=method&metrics=sum", "productId=@prd&lowStock=true", "patientId=@pat", "startFrom=x", "%zz", "a=1;b=2",
		"q=" + strings.Repeat("x", 300), "perPage=-1", "perPage=1e3", "filter=a&filter=b"} {
		f.Add(uint8(i), s)
	}
	w := newWorld(f)
	before := w.dump(f)
	f.Fuzz(func(t *testing.T, pick uint8, rawQuery string) {
		if strings.ContainsAny(rawQuery, "# \t\r\n") {
			return // not something that reaches a server as one query
		}
		path := listRoutes[int(pick)%len(listRoutes)]
		a := w.do(t, http.MethodGet, path+"?"+w.fill(rawQuery), "", nil)
		checkAnswer(t, "GET "+path+"?"+rawQuery, a)
		if a.status != http.StatusOK && a.status/100 != 4 {
			t.Fatalf("GET %s?%s: status %d", path, rawQuery, a.status)
		}
		if pick%16 == 0 && w.dump(t) != before {
			t.Fatalf("GET %s?%s changed the state", path, rawQuery)
		}
	})
}

// itemRoutes are every route with an {id}, and the methods each answers.
var itemRoutes = []struct {
	prefix  string
	methods []string
}{
	{"/api/v1/patients/", []string{"GET", "PATCH"}},
	{"/api/v1/appointments/", []string{"GET", "PATCH", "DELETE"}},
	{"/api/v1/invoices/", []string{"GET"}},
	{"/api/v1/payments/", []string{"GET"}},
	{"/api/v1/refunds/", []string{"GET"}},
	{"/api/v1/products/", []string{"GET", "PATCH"}},
	{"/api/v1/webhooks/", []string{"GET", "PATCH", "DELETE"}},
}

// FuzzPathIDs sends arbitrary ids to every item route with every method (and the webhook test
// route): never a 5xx, never a 2xx for an id that was never created, state unchanged.
func FuzzPathIDs(f *testing.F) {
	for i, s := range []string{"pat_00000000000000000000000000000000", "x", "..", "%2e%2e", "../../__admin/reset", "",
		"a/b", "%00", "@pat", "@apt", "@inv", "@pay", "@prd", "@whk", "prd_" + strings.Repeat("F", 32), "whk_0193\u200b",
		"apt_" + strings.Repeat("0", 32) + "/test", "%252e", "\xff"} {
		f.Add(uint8(i), uint8(i), s)
	}
	w := newWorld(f)
	before := w.dump(f)
	seeded := map[string]bool{}
	for _, v := range w.ids {
		seeded[v] = true
	}
	f.Fuzz(func(t *testing.T, pick, m uint8, id string) {
		if strings.ContainsAny(id, "?# \t\r\n@") {
			return
		}
		rt := itemRoutes[int(pick)%len(itemRoutes)]
		methods := append(rt.methods, "POST", "PUT")
		method := methods[int(m)%len(methods)]
		body, ct := []byte(nil), ""
		if method == http.MethodPatch || method == http.MethodPost || method == http.MethodPut {
			body, ct = []byte(`{"notes":"x","name":"y"}`), "application/json" // unknown for some: still 4xx
		}
		suffix := ""
		switch {
		case rt.prefix == "/api/v1/webhooks/" && m%5 == 0:
			suffix, method = "/test", http.MethodPost
			body = nil
		case rt.prefix == "/api/v1/webhooks/" && m%5 == 1:
			suffix, method = "/rotate-secret", http.MethodPost
			body = nil
		case rt.prefix == "/api/v1/invoices/" && m%5 == 0:
			suffix, method = "/void", http.MethodPost
			body = nil
		}
		target := rt.prefix + url.PathEscape(id) + suffix
		a := w.do(t, method, target, ct, body)
		checkAnswer(t, method+" "+target, a)
		if a.status/100 == 2 && !seeded[id] {
			t.Fatalf("%s %s: %d for an id that was never created", method, target, a.status)
		}
		if !seeded[id] && w.dump(t) != before {
			t.Fatalf("%s %s changed the state", method, target)
		}
	})
}

// oauthErrors are the RFC 6749 §5.2 error codes (plus temporarily_unavailable of §4.1.2.1,
// which the stuffing guard answers).
var oauthErrors = map[string]bool{"invalid_request": true, "invalid_client": true, "invalid_grant": true,
	"unauthorized_client": true, "unsupported_grant_type": true, "invalid_scope": true,
	"temporarily_unavailable": true, "unsupported_token_type": true, "access_denied": true,
	"unsupported_response_type": true, "server_error": true}

// FuzzOAuth sends arbitrary forms, query strings and headers to /oauth/token, /oauth/authorize
// and /oauth/revoke: never a 5xx; a 4xx is RFC 6749's JSON error (or the protocol's problem
// for a wrong method); authorize's redirects carry code or error.
func FuzzOAuth(f *testing.F) {
	w := newWorld(f, mockserver.WithTrustedProxy())
	oc, err := w.srv.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "starter", Scopes: []string{"patients:read"},
		RedirectURIs: []string{"https://app.example/cb"}})
	if err != nil {
		f.Fatal(err)
	}
	ch := strings.Repeat("A", 43)
	for i, s := range []string{
		"grant_type=client_credentials&client_id=@cid&client_secret=@sec",
		"grant_type=client_credentials&client_id=@cid&client_secret=@sec&scope=patients:read",
		"grant_type=client_credentials&client_id=@cid&client_secret=@sec&scope=admin",
		"grant_type=authorization_code&code=x&code_verifier=y&redirect_uri=https://app.example/cb&client_id=@cid&client_secret=@sec",
		"grant_type=refresh_token&refresh_token=x&client_id=@cid&client_secret=@sec",
		"grant_type=password&username=a&password=b", "grant_type=client_credentials&grant_type=client_credentials",
		"token=x&client_id=@cid&client_secret=@sec", "token=x&token_type_hint=refresh_token&client_id=@cid&client_secret=@sec",
		"response_type=code&client_id=@cid&redirect_uri=https://app.example/cb&code_challenge=" + ch + "&code_challenge_method=S256&state=s",
		"response_type=token&client_id=@cid", "client_id=nope", "%zz", "a=%00", "",
	} {
		f.Add(uint8(i), s, "application/x-www-form-urlencoded", "")
	}
	f.Add(uint8(0), "grant_type=client_credentials", "application/x-www-form-urlencoded", "Basic @basic")
	f.Add(uint8(0), "grant_type=client_credentials", "application/json", "Basic !!!")
	f.Add(uint8(1), "token=x", "text/plain; charset=\"", "Bearer x")
	var n atomic.Uint32
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "@cid", oc.ClientID)
		s = strings.ReplaceAll(s, "@sec", oc.ClientSecret)
		return s
	}
	f.Fuzz(func(t *testing.T, pick uint8, form, contentType, authz string) {
		if strings.ContainsAny(contentType+authz, "\r\n\x00") {
			return // not sendable as a header
		}
		endpoints := []struct{ method, path string }{{"POST", "/oauth/token"}, {"GET", "/oauth/authorize"}, {"POST", "/oauth/revoke"}, {"PUT", "/oauth/token"}}
		ep := endpoints[int(pick)%len(endpoints)]
		form = fill(form)
		target, body := ep.path, []byte(form)
		if ep.method == http.MethodGet {
			if strings.ContainsAny(form, "# \t\r\n") {
				return
			}
			target, body = ep.path+"?"+form, nil
		}
		authz = strings.ReplaceAll(fill(authz), "@basic", basic(oc.ClientID, oc.ClientSecret))
		// Each input comes from its own address, so the credential-stuffing guard (tested on
		// its own) does not answer every later input.
		ip := n.Add(1)
		a := w.do(t, ep.method, target, contentType, body, "Authorization:", "Authorization: "+authz,
			"X-Forwarded-For: 10."+strconv.Itoa(int(ip>>16&255))+"."+strconv.Itoa(int(ip>>8&255))+"."+strconv.Itoa(int(ip&255)))
		what := ep.method + " " + target + " " + strconv.Quote(string(body))
		switch {
		case a.status >= 500:
			t.Fatalf("%s: %d %s", what, a.status, a.body)
		case a.status == http.StatusFound:
			u, err := url.Parse(a.header.Get("Location"))
			if err != nil || (u.Query().Get("code") == "") == (u.Query().Get("error") == "") {
				t.Fatalf("%s: redirect without exactly one of code and error: %q", what, a.header.Get("Location"))
			}
			if e := u.Query().Get("error"); e != "" && !oauthErrors[e] {
				t.Fatalf("%s: redirect with unknown error %q", what, e)
			}
		case a.status == http.StatusMethodNotAllowed || a.status == http.StatusNotFound:
			checkAnswer(t, what, a)
		case a.status >= 400:
			var e struct {
				Error string `json:"error"`
				Desc  string `json:"error_description"`
			}
			if err := json.Unmarshal(a.body, &e); err != nil || !oauthErrors[e.Error] ||
				!strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s: %d without an RFC 6749 error body: %s", what, a.status, a.body)
			}
			if a.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%s: error without Cache-Control: no-store", what)
			}
		case a.status == http.StatusOK && ep.path == "/oauth/token":
			var tok struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
			}
			if json.Unmarshal(a.body, &tok) != nil || tok.AccessToken == "" || tok.TokenType == "" {
				t.Fatalf("%s: 200 without a token: %s", what, a.body)
			}
		case a.status == http.StatusOK && ep.path == "/oauth/revoke":
		default:
			t.Fatalf("%s: unexpected status %d: %s", what, a.status, a.body)
		}
	})
}

// basic is an HTTP Basic credential of RFC 6749 §2.3.1 (form-urlencoded id and secret).
func basic(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
}
