package httpsig

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rfcRequest is the test request of RFC 9421 Appendix B.2.
const rfcRequest = "POST /foo?param=Value&Pet=dog HTTP/1.1\r\n" +
	"Host: example.com\r\n" +
	"Date: Tue, 20 Apr 2021 02:07:55 GMT\r\n" +
	"Content-Type: application/json\r\n" +
	"Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:\r\n" +
	"Content-Length: 18\r\n" +
	"\r\n" +
	`{"hello": "world"}`

// TestRFC9421AppendixB25 reproduces the HMAC-SHA256 example of RFC 9421
// Appendix B.2.5 with the shared secret of Appendix B.1.5.
func TestRFC9421AppendixB25(t *testing.T) {
	t.Parallel()
	const (
		sharedSecret = "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ=="
		sigInput     = `sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`
		sigHeader    = `sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:`
		wantBase     = `"date": Tue, 20 Apr 2021 02:07:55 GMT` + "\n" +
			`"@authority": example.com` + "\n" +
			`"content-type": application/json` + "\n" +
			`"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`
	)
	key, err := base64.StdEncoding.DecodeString(sharedSecret)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(rfcRequest)))
	if err != nil {
		t.Fatal(err)
	}
	// http.ReadRequest moves Host out of the header map; the target URI is
	// rebuilt the way a server does it.
	msg := &message{method: req.Method, targetURI: "https://" + req.Host + req.RequestURI, header: req.Header}

	in, err := parseDictionary(sigInput)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := lookupMember(in, "sig-b25")
	if !ok || !m.isList {
		t.Fatalf("sig-b25 not parsed as inner list: %+v", in)
	}
	comps, err := parseComponents(m.list)
	if err != nil {
		t.Fatal(err)
	}
	params, err := appendInnerList(nil, m.list, m.params)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(comps))
	byID := map[string]component{}
	for i, c := range comps {
		ids[i], byID[c.id] = c.id, c
	}
	base, err := SignatureBase(ids, string(params), func(id string) (string, error) { return msg.value(byID[id]) })
	if err != nil {
		t.Fatal(err)
	}
	if base != wantBase {
		t.Fatalf("signature base:\n%s\nwant:\n%s", base, wantBase)
	}
	got := base64.StdEncoding.EncodeToString(mac(key, base))
	if got != "pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=" {
		t.Fatalf("signature %s", got)
	}
	sigs, err := parseDictionary(sigHeader)
	if err != nil {
		t.Fatal(err)
	}
	sm, _ := lookupMember(sigs, "sig-b25")
	if !hmac.Equal(sm.item.bare.bytes, mac(key, base)) {
		t.Fatal("Signature header does not verify")
	}
}

func TestContentDigest(t *testing.T) {
	t.Parallel()
	// RFC 9530 §2 example.
	const want = "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:"
	body := []byte(`{"hello": "world"}`)
	if got := ContentDigest(body); got != want {
		t.Fatalf("ContentDigest = %s, want %s", got, want)
	}
	const sha512 = "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"
	tests := []struct {
		name   string
		header string
		body   []byte
		want   error
	}{
		{"exact", want, body, nil},
		{"several algorithms", sha512 + ", " + want, body, nil},
		{"several algorithms no space", sha512 + "," + want, body, nil},
		{"surrounding whitespace", "  " + want + "\t", body, nil},
		{"with parameters", strings.TrimSuffix(want, "") + ";x=1", body, nil},
		{"empty body", ContentDigest(nil), nil, nil},
		{"mismatch", want, []byte(`{"hello": "World"}`), ErrDigestMismatch},
		{"empty body mismatch", want, nil, ErrDigestMismatch},
		{"only sha-512", sha512, body, ErrMalformed},
		{"empty", "", body, ErrMalformed},
		{"no colons", "sha-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", body, ErrMalformed},
		{"unterminated", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", body, ErrMalformed},
		{"bad base64", "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBP!=:", body, ErrMalformed},
		{"short digest", "sha-256=:AAAA:", body, ErrMalformed},
		{"string not bytes", `sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="`, body, ErrMalformed},
		{"inner list", "sha-256=(:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:)", body, ErrMalformed},
		{"duplicate member", want + ", " + want, body, ErrMalformed},
		{"trailing comma", want + ",", body, ErrMalformed},
		{"uppercase key", "SHA-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", body, ErrMalformed},
		{"huge", strings.Repeat("a", maxFieldLen+1), body, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyContentDigest(tt.header, tt.body)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("VerifyContentDigest(%q) = %v, want %v", tt.header, err, tt.want)
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	s := NewSecret()
	if !strings.HasPrefix(s, "mss_") || len(s) != 4+43 {
		t.Fatalf("NewSecret = %q", s)
	}
	if NewSecret() == s {
		t.Fatal("NewSecret repeats")
	}
	key, err := ParseSecret(s)
	if err != nil || len(key) != 32 {
		t.Fatalf("ParseSecret(%q) = %x, %v", s, key, err)
	}
	if _, err := ParseSecret(s + "="); err != nil {
		t.Fatalf("padded secret rejected: %v", err)
	}
	valid := "mss_" + base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32))
	if _, err := ParseSecret(valid); err != nil {
		t.Fatalf("url-alphabet secret rejected: %v", err)
	}
	for _, bad := range []string{
		"", "mss_", s[4:], "MSS_" + s[4:], "msk_" + s[4:],
		"mss_" + base64.RawURLEncoding.EncodeToString(make([]byte, 31)),
		"mss_" + base64.RawURLEncoding.EncodeToString(make([]byte, 33)),
		"mss_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32)), // std alphabet
		s + "!", " " + s, s + "==",
	} {
		if _, err := ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) accepted", bad)
		}
	}
}

var (
	testKey   = bytes.Repeat([]byte{0x42}, 32)
	testKeyID = "key_test123"
	testNow   = time.Unix(1763820180, 0)
)

func keyFor(id string) ([]byte, bool) {
	if id == testKeyID {
		return testKey, true
	}
	return nil, false
}

func newSignedRequest(t testing.TB, method, uri string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, uri, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer msk_test_abcdefghijklmnopqrstuvwxyz012345")
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := SignRequest(req, body, testKeyID, testKey, testNow); err != nil {
		t.Fatal(err)
	}
	return req
}

var sigInputRE = regexp.MustCompile(`^sig1=\("@method" "@target-uri"( "content-type" "content-digest")? "authorization"\);created=1763820180;nonce="[A-Za-z0-9_-]{22}";keyid="key_test123";alg="hmac-sha256"$`)

func TestRequestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, uri string
		body        []byte
	}{
		{"POST", "https://api.medspa.dev/api/v1/patients", []byte(`{"firstName":"Ada"}`)},
		{"PATCH", "http://127.0.0.1:8080/api/v1/patients/pat_1?x=1&y=%20", []byte(`{}`)},
		{"GET", "https://api.medspa.dev/api/v1/patients?limit=10&cursor=abc", nil},
		{"DELETE", "https://api.medspa.dev:8443/api/v1/appointments/apt_1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			req := newSignedRequest(t, tt.method, tt.uri, tt.body)
			if !sigInputRE.MatchString(req.Header.Get("Signature-Input")) {
				t.Fatalf("Signature-Input = %s", req.Header.Get("Signature-Input"))
			}
			if got := req.Header.Get("Content-Digest"); (got != "") != (len(tt.body) > 0) {
				t.Fatalf("Content-Digest = %q for body %q", got, tt.body)
			}
			if !regexp.MustCompile(`^sig1=:[A-Za-z0-9+/]{43}=:$`).MatchString(req.Header.Get("Signature")) {
				t.Fatalf("Signature = %s", req.Header.Get("Signature"))
			}
			p, err := VerifyRequest(req, tt.body, tt.uri, keyFor)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Created.Equal(testNow) || p.KeyID != testKeyID || p.Alg != Algorithm || len(p.Nonce) != 22 {
				t.Fatalf("params %+v", p)
			}
			want := requestComponentsNoBody
			if len(tt.body) > 0 {
				want = requestComponentsBody
			}
			if fmt.Sprint(p.Components) != fmt.Sprint(want) {
				t.Fatalf("components %v", p.Components)
			}
		})
	}
}

// TestSignRequestResign checks that signing twice (a retry) replaces the
// signature and drops a digest that no longer applies.
func TestSignRequestResign(t *testing.T) {
	t.Parallel()
	const uri = "https://api.medspa.dev/api/v1/patients"
	req := newSignedRequest(t, "POST", uri, []byte(`{"a":1}`))
	first := req.Header.Get("Signature")
	req.Header.Del("Content-Type")
	if err := SignRequest(req, nil, testKeyID, testKey, testNow); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Signature") == first || req.Header.Get("Content-Digest") != "" || len(req.Header.Values("Signature")) != 1 {
		t.Fatalf("re-signing left stale headers: %v", req.Header)
	}
	if _, err := VerifyRequest(req, nil, uri, keyFor); err != nil {
		t.Fatal(err)
	}
}

func TestSignRequestErrors(t *testing.T) {
	t.Parallel()
	mk := func(uri string, auth bool) *http.Request {
		req, _ := http.NewRequest("POST", uri, nil)
		if auth {
			req.Header.Set("Authorization", "Bearer x")
		}
		return req
	}
	body := []byte(`{}`)
	tests := []struct {
		name  string
		req   *http.Request
		body  []byte
		keyID string
		key   []byte
		want  error
	}{
		{"no authorization", mk("https://h/x", false), nil, testKeyID, testKey, ErrMissingComponent},
		{"no content-type with body", mk("https://h/x", true), body, testKeyID, testKey, ErrMissingComponent},
		{"relative URL", mk("/x", true), nil, testKeyID, testKey, ErrMalformed},
		{"non-ASCII keyid", mk("https://h/x", true), nil, "key_ü", testKey, ErrMalformed},
		{"empty key", mk("https://h/x", true), nil, testKeyID, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SignRequest(tt.req, tt.body, tt.keyID, tt.key, testNow)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("SignRequest = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestSignRequestStripsFragment: user info and fragment never reach the
// server, so they must not be part of the signed target URI.
func TestSignRequestStripsFragment(t *testing.T) {
	t.Parallel()
	req := newSignedRequest(t, "GET", "https://user:pw@api.medspa.dev/api/v1/x?q=1#frag", nil)
	if _, err := VerifyRequest(req, nil, "https://api.medspa.dev/api/v1/x?q=1", keyFor); err != nil {
		t.Fatal(err)
	}
}

// resign replaces sig1 with a valid HMAC over the given components and
// parameters, to test profile checks that a correct MAC must not bypass.
func resign(t *testing.T, req *http.Request, uri string, comps []string, params []param, key []byte) {
	t.Helper()
	m := &message{method: req.Method, targetURI: uri, header: req.Header}
	in, sig, err := sign(m, comps, params, key)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Signature-Input", "sig1="+in)
	req.Header.Set("Signature", "sig1="+sig)
}

func TestVerifyRequestRejections(t *testing.T) {
	t.Parallel()
	const uri = "https://api.medspa.dev/api/v1/patients?limit=5"
	body := []byte(`{"firstName":"Ada","lastName":"Lovelace"}`)
	const nonce = "AAAAAAAAAAAAAAAAAAAAAA"
	okParams := signatureParams(testNow, nonce, testKeyID)
	tests := []struct {
		name   string
		mutate func(t *testing.T, req *http.Request) (body []byte, uri string)
		want   error
	}{
		{"valid", func(t *testing.T, r *http.Request) ([]byte, string) { return body, uri }, nil},
		{"extra whitespace is canonicalized", func(t *testing.T, r *http.Request) ([]byte, string) {
			in := r.Header.Get("Signature-Input")
			in = strings.Replace(in, "sig1=(", "sig1=(  ", 1)
			in = strings.Replace(in, `" "`, `"   "`, -1)
			r.Header.Set("Signature-Input", "  "+in+" ")
			return body, uri
		}, nil},
		{"other signatures alongside sig1", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Add("Signature-Input", `sig2=("@method");created=1`)
			r.Header.Set("Signature", `sig0=:AAAA:, `+r.Header.Get("Signature"))
			return body, uri
		}, nil},
		{"no Signature", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Del("Signature")
			return body, uri
		}, ErrMissingSignature},
		{"no Signature-Input", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Del("Signature-Input")
			return body, uri
		}, ErrMissingSignature},
		{"multiple signatures, sig1 absent", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), "sig1=", "sig2=", 1)+`, sig3=("@method");created=1`)
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=", "sig2=", 1)+`, sig3=:AAAA:`)
			return body, uri
		}, ErrMissingSignature},
		{"sig1 only in Signature-Input", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=", "sig2=", 1))
			return body, uri
		}, ErrMissingSignature},
		{"tampered body", func(t *testing.T, r *http.Request) ([]byte, string) {
			return []byte(`{"firstName":"Eve","lastName":"Lovelace"}`), uri
		}, ErrDigestMismatch},
		{"tampered body, digest recomputed", func(t *testing.T, r *http.Request) ([]byte, string) {
			b := []byte(`{"firstName":"Eve"}`)
			r.Header.Set("Content-Digest", ContentDigest(b))
			return b, uri
		}, ErrBadSignature},
		{"body dropped", func(t *testing.T, r *http.Request) ([]byte, string) { return nil, uri }, ErrDigestMismatch},
		{"tampered method", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Method = "PUT"
			return body, uri
		}, ErrBadSignature},
		{"tampered URI path", func(t *testing.T, r *http.Request) ([]byte, string) {
			return body, "https://api.medspa.dev/api/v1/invoices?limit=5"
		}, ErrBadSignature},
		{"tampered URI query", func(t *testing.T, r *http.Request) ([]byte, string) {
			return body, "https://api.medspa.dev/api/v1/patients?limit=6"
		}, ErrBadSignature},
		{"tampered URI scheme", func(t *testing.T, r *http.Request) ([]byte, string) {
			return body, "http://api.medspa.dev/api/v1/patients?limit=5"
		}, ErrBadSignature},
		{"tampered authorization", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Authorization", "Bearer msk_test_other")
			return body, uri
		}, ErrBadSignature},
		{"second authorization line", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Add("Authorization", "Bearer msk_test_other")
			return body, uri
		}, ErrBadSignature},
		{"tampered content-type", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Content-Type", "text/plain")
			return body, uri
		}, ErrBadSignature},
		{"tampered created", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), "created=1763820180", "created=1763820181", 1))
			return body, uri
		}, ErrBadSignature},
		{"tampered signature bytes", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(make([]byte, 32))+":")
			return body, uri
		}, ErrBadSignature},
		{"truncated signature", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature", "sig1=:AAAA:")
			return body, uri
		}, ErrBadSignature},
		{"wrong key", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, okParams, bytes.Repeat([]byte{1}, 32))
			return body, uri
		}, ErrBadSignature},
		{"unknown keyid", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, signatureParams(testNow, nonce, "key_other"), testKey)
			return body, uri
		}, ErrUnknownKey},
		{"wrong alg", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `alg="hmac-sha256"`, `alg="hmac-sha512"`, 1))
			return body, uri
		}, ErrUnsupportedAlg},
		{"alg absent", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, okParams[:3], testKey)
			return body, uri
		}, ErrUnsupportedAlg},
		{"alg as token", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `alg="hmac-sha256"`, `alg=hmac-sha256`, 1))
			return body, uri
		}, ErrMalformed},
		{"authorization not covered", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, []string{`"@method"`, `"@target-uri"`, `"content-type"`, `"content-digest"`}, okParams, testKey)
			return body, uri
		}, ErrMissingComponent},
		{"body signed with the no-body set", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsNoBody, okParams, testKey)
			return body, uri
		}, ErrMissingComponent},
		{"digest header on empty body, not covered", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Content-Digest", ContentDigest(nil))
			resign(t, r, uri, requestComponentsNoBody, okParams, testKey)
			return nil, uri
		}, ErrMissingComponent},
		{"content-digest header removed", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Del("Content-Digest")
			return body, uri
		}, ErrMissingComponent},
		{"authorization header removed", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Del("Authorization")
			return body, uri
		}, ErrMissingComponent},
		{"created absent", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, okParams[1:], testKey)
			return body, uri
		}, ErrMalformed},
		{"nonce absent", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, signatureParams(testNow, "", testKeyID), testKey)
			return body, uri
		}, ErrMalformed},
		{"nonce too short", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, signatureParams(testNow, "abc", testKeyID), testKey)
			return body, uri
		}, ErrMalformed},
		{"keyid absent", func(t *testing.T, r *http.Request) ([]byte, string) {
			resign(t, r, uri, requestComponentsBody, signatureParams(testNow, nonce, ""), testKey)
			return body, uri
		}, ErrMalformed},
		{"created is a string", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), "created=1763820180", `created="1763820180"`, 1))
			return body, uri
		}, ErrMalformed},
		{"Signature-Input garbage", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", `sig1=("@method" "@target-uri"`)
			return body, uri
		}, ErrMalformed},
		{"Signature garbage", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature", `sig1=:not base64!:`)
			return body, uri
		}, ErrMalformed},
		{"sig1 input is an item", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", `sig1="@method"`)
			return body, uri
		}, ErrMalformed},
		{"sig1 signature is a string", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature", `sig1="AAAA"`)
			return body, uri
		}, ErrMalformed},
		{"duplicate sig1", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Add("Signature", r.Header.Get("Signature"))
			return body, uri
		}, ErrMalformed},
		{"uppercase component", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, `"Authorization"`, 1))
			return body, uri
		}, ErrMalformed},
		{"component as token", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, `authorization`, 1))
			return body, uri
		}, ErrMalformed},
		{"unsupported component parameter", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"content-digest"`, `"content-digest";sf`, 1))
			return body, uri
		}, ErrMalformed},
		{";req on an extra request component", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, `"authorization" "@path";req`, 1))
			return body, uri
		}, ErrMalformed},
		{"@method;req instead of @method", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@method"`, `"@method";req`, 1))
			return body, uri
		}, ErrMissingComponent},
		{"duplicate component", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, `"authorization" "authorization"`, 1))
			return body, uri
		}, ErrMalformed},
		{"@signature-params covered", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, `"authorization" "@signature-params"`, 1))
			return body, uri
		}, ErrMalformed},
		{"@status on a request", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, `"authorization" "@status"`, 1))
			return body, uri
		}, ErrMalformed},
		{"too many components", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"authorization"`, strings.Repeat(`"x" `, maxInnerItems)+`"authorization"`, 1))
			return body, uri
		}, ErrMalformed},
		{"huge header", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Signature-Input", r.Header.Get("Signature-Input")+`;x="`+strings.Repeat("a", maxFieldLen)+`"`)
			return body, uri
		}, ErrMalformed},
		{"malformed Content-Digest", func(t *testing.T, r *http.Request) ([]byte, string) {
			r.Header.Set("Content-Digest", "sha-256=:AAAA")
			resign(t, r, uri, requestComponentsBody, okParams, testKey)
			return body, uri
		}, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := newSignedRequest(t, "POST", uri, body)
			b, u := tt.mutate(t, req)
			_, err := VerifyRequest(req, b, u, keyFor)
			if (tt.want == nil) != (err == nil) || !errors.Is(err, tt.want) {
				t.Fatalf("VerifyRequest = %v, want %v\nSignature-Input: %s", err, tt.want, req.Header.Get("Signature-Input"))
			}
		})
	}
}

func TestVerifyRequestNoBodyRejections(t *testing.T) {
	t.Parallel()
	const uri = "https://api.medspa.dev/api/v1/patients/pat_1"
	req := newSignedRequest(t, "GET", uri, nil)
	if _, err := VerifyRequest(req, nil, uri, keyFor); err != nil {
		t.Fatal(err)
	}
	// A body smuggled onto a no-body signature needs the body variant.
	if _, err := VerifyRequest(req, []byte("x"), uri, keyFor); !errors.Is(err, ErrMissingComponent) {
		t.Fatalf("body on no-body signature: %v", err)
	}
	req.Method = "DELETE"
	if _, err := VerifyRequest(req, nil, uri, keyFor); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("tampered method: %v", err)
	}
}

const (
	respReqMethod = "POST"
	respReqURI    = "https://api.medspa.dev/api/v1/payments"
)

func newSignedResponse(status int, body []byte) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", "req_0193abc")
	SignResponse(h, status, body, respReqMethod, respReqURI, testKeyID, testKey, testNow)
	return h
}

// TestVerifyResponseAt refuses a response signed more than MaxSkew from the client's clock, in
// either direction, and accepts one signed within it (the bound included).
func TestVerifyResponseAt(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"pat_1"}`)
	h := newSignedResponse(200, body) // created = testNow
	for _, tc := range []struct {
		clock time.Duration // client's clock minus the signature's created
		ok    bool
	}{
		{0, true}, {MaxSkew, true}, {-MaxSkew, true}, {299 * time.Second, true},
		{MaxSkew + time.Second, false}, {-MaxSkew - time.Second, false}, {3 * time.Hour, false},
	} {
		err := VerifyResponseAt(200, h, body, respReqMethod, respReqURI, testKey, testNow.Add(tc.clock))
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, ErrStale)) {
			t.Errorf("clock %v from created: %v", tc.clock, err)
		}
	}
	// A bad signature is reported as such, whatever the clock.
	if err := VerifyResponseAt(201, h, body, respReqMethod, respReqURI, testKey, testNow); !errors.Is(err, ErrBadSignature) {
		t.Errorf("wrong status: %v", err)
	}
}

func TestResponseRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		body   []byte
	}{{201, []byte(`{"id":"pay_1"}`)}, {204, nil}, {402, []byte(`{"code":"card_declined"}`)}} {
		h := newSignedResponse(tt.status, tt.body)
		want := `sig1=("@status" "content-digest" "x-request-id" "@method";req "@target-uri";req);created=1763820180;keyid="key_test123";alg="hmac-sha256"`
		if got := h.Get("Signature-Input"); got != want {
			t.Fatalf("Signature-Input = %s", got)
		}
		if h.Get("Content-Digest") != ContentDigest(tt.body) {
			t.Fatalf("Content-Digest = %s", h.Get("Content-Digest"))
		}
		if err := VerifyResponse(tt.status, h, tt.body, respReqMethod, respReqURI, testKey); err != nil {
			t.Fatalf("status %d: %v", tt.status, err)
		}
	}
}

// TestResponseSignatureBase pins the exact base of a response signature,
// including the request-derived lines.
func TestResponseSignatureBase(t *testing.T) {
	t.Parallel()
	h := newSignedResponse(201, []byte(`{}`))
	s, err := findSignature(h)
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.base(&message{status: 201, header: h, request: &message{method: "POST", targetURI: respReqURI}})
	if err != nil {
		t.Fatal(err)
	}
	want := `"@status": 201` + "\n" +
		`"content-digest": ` + ContentDigest([]byte(`{}`)) + "\n" +
		`"x-request-id": req_0193abc` + "\n" +
		`"@method";req: POST` + "\n" +
		`"@target-uri";req: ` + respReqURI + "\n" +
		`"@signature-params": ("@status" "content-digest" "x-request-id" "@method";req "@target-uri";req);created=1763820180;keyid="key_test123";alg="hmac-sha256"`
	if base != want {
		t.Fatalf("base:\n%s\nwant:\n%s", base, want)
	}
}

func TestVerifyResponseRejections(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"pay_1","amount":1000}`)
	type args struct {
		status      int
		h           http.Header
		body        []byte
		method, uri string
		key         []byte
	}
	tests := []struct {
		name   string
		mutate func(a *args)
		want   error
	}{
		{"valid", func(a *args) {}, nil},
		{"tampered status", func(a *args) { a.status = 200 }, ErrBadSignature},
		{"tampered x-request-id", func(a *args) { a.h.Set("X-Request-Id", "req_other") }, ErrBadSignature},
		{"tampered body", func(a *args) { a.body = []byte(`{"id":"pay_1","amount":1}`) }, ErrDigestMismatch},
		{"tampered request method", func(a *args) { a.method = "GET" }, ErrBadSignature},
		{"tampered request URI", func(a *args) { a.uri = respReqURI + "?x=1" }, ErrBadSignature},
		{"wrong key", func(a *args) { a.key = bytes.Repeat([]byte{7}, 32) }, ErrBadSignature},
		{"empty key", func(a *args) { a.key = nil }, ErrUnknownKey},
		{"no signature", func(a *args) { a.h.Del("Signature") }, ErrMissingSignature},
		{"no content-digest", func(a *args) { a.h.Del("Content-Digest") }, ErrMissingComponent},
		{"no x-request-id", func(a *args) { a.h.Del("X-Request-Id") }, ErrMissingComponent},
		{"invalid status", func(a *args) { a.status = 0 }, ErrMalformed},
		{"wrong alg", func(a *args) {
			a.h.Set("Signature-Input", strings.Replace(a.h.Get("Signature-Input"), "hmac-sha256", "ed25519", 1))
		}, ErrUnsupportedAlg},
		{"request binding dropped", func(a *args) {
			m := &message{status: a.status, header: a.h}
			in, sig, err := sign(m, []string{`"@status"`, `"content-digest"`, `"x-request-id"`}, signatureParams(testNow, "", testKeyID), testKey)
			if err != nil {
				t.Fatal(err)
			}
			a.h.Set("Signature-Input", "sig1="+in)
			a.h.Set("Signature", "sig1="+sig)
		}, ErrMissingComponent},
		{"request signature replayed as response", func(a *args) {
			req := newSignedRequest(t, "POST", respReqURI, body)
			a.h.Set("Signature-Input", req.Header.Get("Signature-Input"))
			a.h.Set("Signature", req.Header.Get("Signature"))
		}, ErrMissingComponent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := args{201, newSignedResponse(201, body), body, respReqMethod, respReqURI, testKey}
			tt.mutate(&a)
			err := VerifyResponse(a.status, a.h, a.body, a.method, a.uri, a.key)
			if (tt.want == nil) != (err == nil) || !errors.Is(err, tt.want) {
				t.Fatalf("VerifyResponse = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSignResponseUnsignable(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("Signature", "sig1=:stale:")
	SignResponse(h, 200, nil, "GET", respReqURI, testKeyID, testKey, testNow) // no X-Request-Id
	if h.Get("Signature") != "" || h.Get("Signature-Input") != "" {
		t.Fatalf("unsignable response kept signature headers: %v", h)
	}
	if err := VerifyResponse(200, h, nil, "GET", respReqURI, testKey); !errors.Is(err, ErrMissingSignature) {
		t.Fatalf("VerifyResponse = %v", err)
	}
}

// TestSignVerifyProperty signs random requests and checks that they verify
// and that flipping any single byte of the body breaks verification.
func TestSignVerifyProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	methods := []string{"GET", "POST", "PATCH", "DELETE", "PUT"}
	for i := range 200 {
		body := make([]byte, rng.IntN(64))
		for j := range body {
			body[j] = byte(rng.IntN(256))
		}
		uri := fmt.Sprintf("https://h%d.example:%d/p/%x?q=%d", rng.IntN(9), 1+rng.IntN(65535), rng.Uint64(), rng.Int64())
		req := newSignedRequest(t, methods[rng.IntN(len(methods))], uri, body)
		if _, err := VerifyRequest(req, body, uri, keyFor); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		// A body known by its length and digest verifies the same (a server streaming it).
		if _, err := VerifyRequestBody(req, BodyOf(body), uri, keyFor); err != nil {
			t.Fatalf("case %d: by digest: %v", i, err)
		}
		if len(body) > 0 {
			bad := bytes.Clone(body)
			bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			if _, err := VerifyRequest(req, bad, uri, keyFor); !errors.Is(err, ErrDigestMismatch) {
				t.Fatalf("case %d: flipped body: %v", i, err)
			}
			if _, err := VerifyRequestBody(req, BodyOf(bad), uri, keyFor); !errors.Is(err, ErrDigestMismatch) {
				t.Fatalf("case %d: flipped body by digest: %v", i, err)
			}
			// A body dropped on the way (length 0, no digest of it) still needs the digest to match.
			if _, err := VerifyRequestBody(req, Body{}, uri, keyFor); !errors.Is(err, ErrDigestMismatch) {
				t.Fatalf("case %d: body dropped: %v", i, err)
			}
		}
		status := 100 + rng.IntN(500)
		h := newSignedResponse(status, body)
		if err := VerifyResponse(status, h, body, respReqMethod, respReqURI, testKey); err != nil {
			t.Fatalf("case %d: response: %v", i, err)
		}
	}
}

func TestSignatureBase(t *testing.T) {
	t.Parallel()
	vals := map[string]string{`"a"`: "1", `"b";req`: "2", `"c"`: "x\ny"}
	look := func(id string) (string, error) {
		v, ok := vals[id]
		if !ok {
			return "", ErrMissingComponent
		}
		return v, nil
	}
	got, err := SignatureBase([]string{`"a"`, `"b";req`}, `("a" "b";req);created=1`, look)
	if want := "\"a\": 1\n\"b\";req: 2\n\"@signature-params\": (\"a\" \"b\";req);created=1"; err != nil || got != want {
		t.Fatalf("SignatureBase = %q, %v", got, err)
	}
	for _, tc := range []struct {
		comps []string
		want  error
	}{
		{[]string{`"c"`}, ErrMalformed},
		{[]string{`"a"`, `"a"`}, ErrMalformed},
		{[]string{`"@signature-params"`}, ErrMalformed},
		{[]string{`"z"`}, ErrMissingComponent},
	} {
		if _, err := SignatureBase(tc.comps, "()", look); !errors.Is(err, tc.want) {
			t.Errorf("SignatureBase(%v) = %v, want %v", tc.comps, err, tc.want)
		}
	}
}

// TestDerivedAndKeyedComponents covers the generic component resolution
// used by the RFC vector: @authority, @scheme, @path, @query and ;key.
func TestDerivedAndKeyedComponents(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("Example-Dict", " a=1, b=2;x=1;y=2, c=(a b c)")
	h.Add("X-Multi", " one ")
	h.Add("X-Multi", "two\t")
	m := &message{method: "GET", targetURI: "https://WWW.Example.com:443/a%20b/c?x=1&y", header: h}
	for _, tc := range []struct{ id, want string }{
		{`"@authority"`, "www.example.com"},
		{`"@scheme"`, "https"},
		{`"@path"`, "/a%20b/c"},
		{`"@query"`, "?x=1&y"},
		{`"@method"`, "GET"},
		{`"x-multi"`, "one, two"},
		{`"example-dict"`, "a=1, b=2;x=1;y=2, c=(a b c)"},
		{`"example-dict";key="a"`, "1"},
		{`"example-dict";key="b"`, "2;x=1;y=2"},
		{`"example-dict";key="c"`, "(a b c)"},
	} {
		p := sfParser{s: tc.id}
		it, err := p.parseItem()
		if err != nil {
			t.Fatal(err)
		}
		cs, err := parseComponents([]item{it})
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.value(cs[0])
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
	if _, err := m.value(component{id: `"example-dict";key="z"`, name: "example-dict", key: "z", hasKey: true}); !errors.Is(err, ErrMissingComponent) {
		t.Errorf("absent dictionary key: %v", err)
	}
}
