package mockserver_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// fuzzTarget is an in-process server with one key, and a way to count what the account holds.
type fuzzTarget struct {
	srv *mockserver.Server
	hc  *http.Client
	key string
}

func newFuzzTarget(t testing.TB) *fuzzTarget {
	srv, err := mockserver.New()
	if err != nil {
		t.Fatal(err)
	}
	_, key := testenv.Unlimited(t, srv) // an exhausted plan would answer the fuzzer 429
	return &fuzzTarget{srv: srv, hc: srv.HTTPClient(), key: key.Key}
}

// send issues one request and checks the properties every answer must have (testenv.Send).
func (f *fuzzTarget) send(t *testing.T, method, target, contentType string, body []byte) int {
	t.Helper()
	if _, err := http.NewRequest(method, mockserver.InProcessBaseURL+target, nil); err != nil {
		return 0 // not a request a client could send
	}
	status, _ := testenv.Send(t, f.hc, method, mockserver.InProcessBaseURL+target, f.key, contentType, body)
	return status
}

func (f *fuzzTarget) total(t *testing.T, path string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, mockserver.InProcessBaseURL+path+"?perPage=1", nil)
	req.Header.Set("Authorization", "Bearer "+f.key)
	resp, err := f.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l struct{ Meta struct{ Total int } }
	_ = json.NewDecoder(resp.Body).Decode(&l)
	return l.Meta.Total
}

// FuzzCreatePatient sends arbitrary bodies: a rejected request must change nothing.
func FuzzCreatePatient(f *testing.F) {
	for _, seed := range []string{
		`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`,
		`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","dateOfBirth":"1990-02-28","address":{"country":"GB"},"tags":["a"]}`,
		`{"firstName":1e400}`, `{"email":"\u0000@x.y"}`, `[]`, `null`, `{"a":{"b":{"c":[[[[]]]]}}}`, `{"firstName":"a","firstName":"b"}`,
		`{"dateOfBirth":"0000-00-00"}`, `{"phone":"+` + strings.Repeat("9", 40) + `"}`, "\xff\xfe", `{"address":null,"tags":null}`,
	} {
		f.Add([]byte(seed), "application/json")
	}
	f.Add([]byte(`{}`), "text/plain")
	f.Add([]byte(`{}`), "application/json; charset=utf-8")
	target := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		before := target.total(t, "/api/v1/patients")
		status := target.send(t, http.MethodPost, "/api/v1/patients", contentType, body)
		after := target.total(t, "/api/v1/patients")
		switch {
		case status == http.StatusCreated && after != before+1:
			t.Fatalf("201 but total %d → %d", before, after)
		case status != http.StatusCreated && after != before:
			t.Fatalf("rejected (%d) but total %d → %d", status, before, after)
		}
	})
}

// FuzzListQuery sends arbitrary query strings to a list: 200 or a 4xx problem, never more.
func FuzzListQuery(f *testing.F) {
	for _, seed := range []string{"", "page=2&perPage=100", "perPage=0", "q=%00", "sort=-createdAt", "createdFrom=2026-01-01&createdTo=2026-01-01T00:00:00Z",
		"page=99999999999999999999", "email=a%40b.co&email=c", "q=" + strings.Repeat("x", 300), "%zz", "a=1;b=2"} {
		f.Add(seed)
	}
	target := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		if strings.ContainsAny(rawQuery, "# \t\r\n") {
			return // not something that reaches a server as one query
		}
		target.send(t, http.MethodGet, "/api/v1/patients?"+rawQuery, "", nil)
	})
}

// FuzzPathID sends arbitrary ids to every item route: 404 (or 405/422), never 5xx.
func FuzzPathID(f *testing.F) {
	for _, seed := range []string{"pat_00000000000000000000000000000000", "pat_x", "..", "%2e%2e", "pat_0193" + strings.Repeat("f", 28), "", "a/b", "%00"} {
		f.Add(seed, uint8(0))
	}
	target := newFuzzTarget(f)
	methods := []string{http.MethodGet, http.MethodPatch, http.MethodDelete, http.MethodPost}
	f.Fuzz(func(t *testing.T, id string, m uint8) {
		if strings.ContainsAny(id, "?# \t\r\n") {
			return
		}
		method := methods[int(m)%len(methods)]
		body := []byte(nil)
		ct := ""
		if method == http.MethodPatch {
			body, ct = []byte(`{"notes":"x"}`), "application/json"
		}
		status := target.send(t, method, "/api/v1/patients/"+url.PathEscape(id), ct, body)
		if status == http.StatusOK {
			t.Fatalf("%s of an id that was never created answered 200", method)
		}
	})
}
