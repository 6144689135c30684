package httpapi

import (
	"crypto/sha256"
	"io"

	"github.com/medspa/medspa-go/internal/httpsig"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// MaxSignedBodyBytes is how much of a signed body over MaxBodyBytes the server reads to check
// its digest (docs/protocol.md §6, §14): such a request is verified as strictly as any other
// (a tampered body, a stale signature or a replay is 401 and consumes nothing), then refused
// 413 in its place in the order of checks. A signed body longer than this is refused 413 before
// its signature is looked at, its nonce kept or its rate limit touched.
const MaxSignedBodyBytes = 16 << 20

// readBody reads the request body once, at most MaxBodyBytes+1 bytes: the signature covers
// it, the handler decodes it, idempotency fingerprints it. A longer body is marked tooBig and
// answered 413 after the route is known (mediaType); when its signature is to be checked, the
// rest is streamed through SHA-256 (at most MaxSignedBodyBytes in all) so the digest is
// checked exactly, never skipped.
func (a *API) readBody(rq *request) *answer {
	body, tooBig, p := httpcore.ReadBody(rq.Request, httpcore.MaxBodyBytes)
	if p != nil {
		return rq.problem(p)
	}
	rq.body, rq.tooBig = body, tooBig
	if tooBig && signatureChecked(rq) {
		var err error
		rq.bodyDigest, err = digestRest(body, rq.Body)
		switch {
		case err != nil:
			return rq.problem(problem.New("malformed_json", "the request body could not be read"))
		case rq.bodyDigest == nil:
			return rq.problem(problem.New("payload_too_large",
				"a signed request body must be at most 16 MiB for its signature to be checked (and at most 1 MiB to be accepted)"))
		}
	}
	return nil
}

// digestRest returns the length and SHA-256 of a body whose first bytes are head and whose
// rest is still in r; nil when it is longer than MaxSignedBodyBytes.
func digestRest(head []byte, r io.Reader) (*httpsig.Body, error) {
	h := sha256.New()
	h.Write(head)
	n, err := io.Copy(h, io.LimitReader(r, MaxSignedBodyBytes-int64(len(head))+1))
	if err != nil {
		return nil, err
	}
	total := int64(len(head)) + n
	if total > MaxSignedBodyBytes {
		return nil, nil
	}
	d := &httpsig.Body{Len: total}
	h.Sum(d.SHA256[:0])
	return d, nil
}
