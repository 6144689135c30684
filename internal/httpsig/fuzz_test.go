package httpsig

import (
	"errors"
	"net/http"
	"testing"
)

var sentinels = []error{
	ErrMissingSignature, ErrMalformed, ErrMissingComponent, ErrUnknownKey,
	ErrBadSignature, ErrDigestMismatch, ErrUnsupportedAlg, ErrStale,
}

func isSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzParseDictionary: parsing never panics, fails only with ErrMalformed,
// and a successful parse serializes to a canonical form that parses back to
// the same serialization.
func FuzzParseDictionary(f *testing.F) {
	for _, s := range []string{
		``, `a=1`, `a=1, b=2;x=?0`, `a=-1.5`, `a="s\"\\"`, `a=tok/:x`, `a=:AQID:`, `a`,
		`sig1=("@method" "@target-uri" "content-type" "content-digest" "authorization");created=1763820180;nonce="AAAAAAAAAAAAAAAAAAAAAA";keyid="key_1";alg="hmac-sha256"`,
		`sig1=("@status" "content-digest" "x-request-id" "@method";req "@target-uri";req);created=1;keyid="k";alg="hmac-sha256"`,
		`sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`,
		`a=( "x" ;y )`, `a=(`, `a="`, `a=:`, `a=?`, `a=1.`, `a=,`, "a=1\t,\tb", `a=1;;`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDictionary(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		out, err := serializeDictionary(d)
		if err != nil {
			t.Fatalf("serialize of parsed %q: %v", s, err)
		}
		d2, err := parseDictionary(out)
		if err != nil {
			t.Fatalf("reparse of %q (from %q): %v", out, s, err)
		}
		out2, _ := serializeDictionary(d2)
		if out2 != out {
			t.Fatalf("not canonical: %q → %q → %q", s, out, out2)
		}
	})
}

// FuzzVerifyRequest feeds hostile signature headers and bodies to
// VerifyRequest: it never panics and every error is a sentinel. The seeds
// include valid signatures so the fuzzer explores deep paths.
func FuzzVerifyRequest(f *testing.F) {
	const uri = "https://api.medspa.dev/api/v1/patients"
	body := []byte(`{"firstName":"Ada"}`)
	req := newSignedRequest(f, "POST", uri, body)
	f.Add(req.Header.Get("Signature-Input"), req.Header.Get("Signature"), req.Header.Get("Content-Digest"), body, "POST")
	get := newSignedRequest(f, "GET", uri, nil)
	f.Add(get.Header.Get("Signature-Input"), get.Header.Get("Signature"), "", []byte(nil), "GET")
	f.Add(`sig1=("@method";req "x";key="a");created=-1;nonce="";alg="hmac-sha256"`, `sig1=:AAAA:`, `sha-256=:AAAA:`, []byte("x"), "")
	f.Add(`sig1=()`, `sig1=::`, ``, []byte{}, "PUT")
	f.Add(`sig2=("@method");created=1, sig1=?0`, `sig1=1`, `sha-256=1`, []byte{0}, "POST")
	f.Fuzz(func(t *testing.T, sigInput, sig, digest string, body []byte, method string) {
		r, err := http.NewRequest(http.MethodPost, uri, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Method = method
		r.Header.Set("Authorization", "Bearer msk_test_x")
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Example-Dict", sigInput) // reachable through ;key
		r.Header.Set("Signature-Input", sigInput)
		r.Header.Set("Signature", sig)
		if digest != "" {
			r.Header.Set("Content-Digest", digest)
		}
		if _, err := VerifyRequest(r, body, uri, keyFor); err != nil && !isSentinel(err) {
			t.Fatalf("VerifyRequest error %v is not a sentinel", err)
		}
		h := r.Header.Clone()
		h.Set("X-Request-Id", "req_1")
		if err := VerifyResponse(200, h, body, method, uri, testKey); err != nil && !isSentinel(err) {
			t.Fatalf("VerifyResponse error %v is not a sentinel", err)
		}
	})
}

// FuzzVerifyContentDigest: never panics, errors are ErrMalformed or
// ErrDigestMismatch, and the digest of the body itself always verifies.
func FuzzVerifyContentDigest(f *testing.F) {
	body := []byte(`{"hello": "world"}`)
	f.Add(ContentDigest(body), body)
	f.Add("sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, "+ContentDigest(body), body)
	f.Add("sha-256=:AAAA:", []byte(nil))
	f.Add("sha-256=(:AAAA:)", []byte("x"))
	f.Add("sha-256", []byte("x"))
	f.Add("", []byte{})
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		err := VerifyContentDigest(header, body)
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrDigestMismatch) {
			t.Fatalf("error %v is neither ErrMalformed nor ErrDigestMismatch", err)
		}
		if err := VerifyContentDigest(ContentDigest(body), body); err != nil {
			t.Fatalf("own digest rejected: %v", err)
		}
	})
}
