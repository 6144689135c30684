package client

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"
)

// ErrResponseSignature is returned (wrapped) when signing is on and a response's signature is
// missing, does not verify, or was made more than 300 s from the client's clock: the
// response's data is never returned then.
var ErrResponseSignature = errors.New("medspa: response signature missing or invalid")

// WithSigning signs every request (RFC 9421, hmac-sha256, with Content-Digest) with the key's
// id (key_…) and signing secret (mss_…), and verifies the signature of every response. An
// invalid secret makes New (or the call) fail. Signing secrets belong to API keys: use it with
// WithAPIKey.
func WithSigning(keyID, secret string) RequestOption {
	key, err := httpsig.ParseSecret(secret)
	if err == nil && keyID == "" {
		err = errors.New("httpsig: empty key id")
	}
	return func(c *config) {
		if err != nil {
			c.err = fmt.Errorf("medspa: WithSigning: %w", err)
			return
		}
		c.signer = &signer{keyID: keyID, key: key}
	}
}

// signer signs requests and verifies responses (RFC 9421); nil when signing is off.
type signer struct {
	keyID string
	key   []byte
}

// sign signs one attempt at now: every retry gets a fresh created time and nonce.
func (s *signer) sign(req *http.Request, body []byte, now time.Time) error {
	if s == nil {
		return nil
	}
	return httpsig.SignRequest(req, body, s.keyID, s.key, now)
}

// verify checks the signature of a response whose body was read whole, bound to the request
// that got it, and made within 300 s of now. Only a 401 or 403 without any signature passes
// unverified: the server refuses those before it checks the request's signature, so it cannot
// sign them; they become an *Error and carry no data.
func (s *signer) verify(resp *http.Response, body []byte, now time.Time) error {
	unsigned := len(resp.Header.Values("Signature")) == 0 && len(resp.Header.Values("Signature-Input")) == 0
	if unsigned && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		return nil
	}
	req := resp.Request
	if req == nil || req.URL == nil {
		return fmt.Errorf("%w: no request to bind the response to", ErrResponseSignature)
	}
	uri, err := httpsig.TargetURI(req.URL)
	if err == nil {
		err = httpsig.VerifyResponseAt(resp.StatusCode, resp.Header, body, req.Method, uri, s.key, now)
	}
	if err != nil {
		return &callError{
			msg: fmt.Sprintf("%s (status %d): %s", ErrResponseSignature, resp.StatusCode, signatureProblem(err)),
			err: errors.Join(ErrResponseSignature, err),
		}
	}
	return nil
}

// signatureProblem names what failed by the httpsig sentinel, never quoting the headers.
func signatureProblem(err error) string {
	for _, p := range []struct {
		err  error
		what string
	}{
		{httpsig.ErrMissingSignature, "no signature"},
		{httpsig.ErrStale, "created more than 300 s from the client's clock"},
		{httpsig.ErrBadSignature, "signature mismatch"},
		{httpsig.ErrDigestMismatch, "body does not match Content-Digest"},
		{httpsig.ErrMissingComponent, "a required component is not covered"},
		{httpsig.ErrUnsupportedAlg, "unsupported algorithm"},
	} {
		if errors.Is(err, p.err) {
			return p.what
		}
	}
	return "malformed signature"
}
