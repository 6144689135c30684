package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/httpsig"
)

// recorder is a scripted server that records every request it gets (headers and body).
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
	body []string
}

func newRecorder(t *testing.T, tls bool, h http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.seen = append(r.seen, req.Clone(context.Background()))
		r.body = append(r.body, string(b))
		r.mu.Unlock()
		h(w, req)
	})
	if tls {
		r.Server = httptest.NewTLSServer(handler)
	} else {
		r.Server = httptest.NewServer(handler)
	}
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() ([]*http.Request, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.seen...), append([]string(nil), r.body...)
}

func redirectTo(status int, location string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", location)
		w.WriteHeader(status)
	}
}

func answerJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"pat_1"}`)
}

const signingSecret = "mss_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// engine returns an engine for base with a key, signing and retries, without waits.
func engine(t *testing.T, base string, opts ...client.Option) *client.Engine {
	t.Helper()
	e, err := client.NewEngine(append([]client.Option{client.WithBaseURL(base), client.WithAPIKey("msk_test_secretvalue"),
		client.WithRetryWait(0, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var credentialHeaders = []string{"Authorization", "Signature", "Signature-Input", "Content-Digest", "Idempotency-Key"}

// TestRedirectToAnotherOriginCarriesNoCredentials: a redirect to another origin (here another
// port) is followed without Authorization, Signature, Signature-Input, Content-Digest and
// Idempotency-Key, and without the body (a 303 turns the POST into a GET).
func TestRedirectToAnotherOriginCarriesNoCredentials(t *testing.T) {
	t.Parallel()
	other := newRecorder(t, false, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	origin := newRecorder(t, false, redirectTo(http.StatusSeeOther, other.URL+"/elsewhere?x=1"))
	_, key := signingKey(t)
	e := engine(t, origin.URL, client.WithSigning("key_1", key))
	_, _, err := client.Call[obj](context.Background(), e, http.MethodPost, client.Path("patients"), map[string]string{"notes": "PHI"})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized {
		t.Fatalf("err %v, want the other origin's 401", err)
	}
	first, _ := origin.requests()
	if len(first) != 1 || first[0].Header.Get("Signature") == "" || first[0].Header.Get("Idempotency-Key") == "" {
		t.Fatalf("the call itself: %v", first)
	}
	seen, bodies := other.requests()
	if len(seen) != 1 {
		t.Fatalf("%d requests at the other origin", len(seen))
	}
	for _, h := range credentialHeaders {
		if v := seen[0].Header.Get(h); v != "" {
			t.Errorf("%s sent to another origin: %q", h, v)
		}
	}
	if bodies[0] != "" || seen[0].Method != http.MethodGet {
		t.Errorf("%s with body %q at the other origin", seen[0].Method, bodies[0])
	}
}

// TestRedirectRefusals: the rules that stop a redirect, each with a typed error naming it,
// before anything is sent to the redirect's target, and without retries.
func TestRedirectRefusals(t *testing.T) {
	t.Parallel()
	target := newRecorder(t, false, answerJSON)
	tlsOrigin := newRecorder(t, true, redirectTo(http.StatusFound, target.URL+"/api/v1/patients/pat_1"))
	bodyOrigin := newRecorder(t, false, redirectTo(http.StatusTemporaryRedirect, target.URL+"/api/v1/patients"))
	insecureOrigin := newRecorder(t, false, redirectTo(http.StatusMovedPermanently, "http://api.example.invalid/api/v1/patients/pat_1"))
	for _, tc := range []struct {
		name   string
		e      *client.Engine
		method string
		params any
		rule   client.RedirectRule
	}{
		{"https to http", engine(t, tlsOrigin.URL, client.WithHTTPClient(tlsOrigin.Client())), http.MethodGet, nil, client.RedirectInsecure},
		{"plain http off loopback", engine(t, insecureOrigin.URL), http.MethodGet, nil, client.RedirectInsecure},
		{"body to another origin", engine(t, bodyOrigin.URL), http.MethodPost, map[string]string{"notes": "PHI"}, client.RedirectCrossOriginBody},
		{"body to another origin, PATCH", engine(t, bodyOrigin.URL), http.MethodPatch, map[string]string{"notes": "PHI"}, client.RedirectCrossOriginBody},
	} {
		route := client.Path("patients", "pat_1")
		if tc.method == http.MethodPost {
			route = client.Path("patients")
		}
		_, _, err := client.Call[obj](context.Background(), tc.e, tc.method, route, tc.params)
		var re *client.RedirectError
		if !errors.As(err, &re) || re.Rule != tc.rule {
			t.Errorf("%s: err %v, want rule %q", tc.name, err, tc.rule)
			continue
		}
		if !errors.As(err, new(*url.Error)) {
			t.Errorf("%s: not a *url.Error underneath: %v", tc.name, err)
		}
		if strings.Contains(err.Error(), "/api/v1/patients/pat_1?") || strings.Contains(err.Error(), "invalid/api") {
			t.Errorf("%s: the error names a path of the target: %v", tc.name, err)
		}
	}
	if seen, _ := target.requests(); len(seen) != 0 {
		t.Errorf("%d requests reached the redirect targets", len(seen))
	}
	// One request per call: a refused redirect is not retried.
	for o, want := range map[*recorder]int{tlsOrigin: 1, insecureOrigin: 1, bodyOrigin: 2} {
		if seen, _ := o.requests(); len(seen) != want {
			t.Errorf("origin %s got %d requests, want %d", o.URL, len(seen), want)
		}
	}
}

// TestRedirectHops: at most MaxRedirects redirects are followed; within the origin a 307 keeps
// the call's credentials and body (net/http resends them).
func TestRedirectHops(t *testing.T) {
	t.Parallel()
	hops := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/moved" {
			w.Header().Set("Location", "/api/v1/patients?hop=0&last=0")
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("hop"))
		last, _ := strconv.Atoi(r.URL.Query().Get("last"))
		if n < last {
			w.Header().Set("Location", "/api/v1/patients?hop="+strconv.Itoa(n+1)+"&last="+strconv.Itoa(last))
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		answerJSON(w, r)
	})
	e := engine(t, hops.URL, client.WithMaxRetries(3))
	get := func(last int) error {
		_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients"), url.Values{"hop": {"0"}, "last": {strconv.Itoa(last)}})
		return err
	}
	if err := get(client.MaxRedirects); err != nil {
		t.Fatalf("%d redirects: %v", client.MaxRedirects, err)
	}
	var re *client.RedirectError
	if err := get(client.MaxRedirects + 1); !errors.As(err, &re) || re.Rule != client.RedirectTooMany {
		t.Fatalf("%d redirects: %v", client.MaxRedirects+1, err)
	}
	if seen, _ := hops.requests(); len(seen) != 2*(client.MaxRedirects+1) {
		t.Fatalf("%d requests; want %d for each call, and no retry", len(seen), client.MaxRedirects+1)
	}

	if _, _, err := client.Call[obj](context.Background(), e, http.MethodPost, client.Path("moved"), map[string]string{"a": "b"}); err != nil {
		t.Fatal(err)
	}
	seen, bodies := hops.requests()
	first, second := seen[len(seen)-2], seen[len(seen)-1]
	if second.URL.Path != "/api/v1/patients" || bodies[len(bodies)-1] != `{"a":"b"}` {
		t.Fatalf("redirected %s %s with %q", second.Method, second.URL, bodies[len(bodies)-1])
	}
	for _, h := range []string{"Authorization", "Idempotency-Key", "Content-Type"} {
		if second.Header.Get(h) == "" || second.Header.Get(h) != first.Header.Get(h) {
			t.Errorf("%s: %q then %q", h, first.Header.Get(h), second.Header.Get(h))
		}
	}
}

func signingKey(t *testing.T) ([]byte, string) {
	t.Helper()
	key, err := httpsig.ParseSecret(signingSecret)
	if err != nil {
		t.Fatal(err)
	}
	return key, signingSecret
}
