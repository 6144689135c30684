package httpsig

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
)

// ContentDigest returns the RFC 9530 Content-Digest field value for body
// using sha-256: `sha-256=:<base64 of SHA-256(body)>:`.
func ContentDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// VerifyContentDigest checks a Content-Digest field value against body. The
// value is parsed as an RFC 8941 dictionary, so several algorithms may be
// listed; only sha-256 is checked and it must be present. It returns an
// error wrapping ErrMalformed (unparseable, no sha-256 member, wrong length)
// or ErrDigestMismatch.
func VerifyContentDigest(header string, body []byte) error {
	return verifyContentDigestSum(header, sha256.Sum256(body))
}

// verifyContentDigestSum checks a Content-Digest field value against the SHA-256 of a body
// (VerifyContentDigest's rules).
func verifyContentDigestSum(header string, sum [sha256.Size]byte) error {
	d, err := parseDictionary(header)
	if err != nil {
		return fmt.Errorf("Content-Digest: %w", err)
	}
	m, ok := lookupMember(d, "sha-256")
	if !ok {
		return malformedf("Content-Digest has no sha-256 member")
	}
	if m.isList || m.item.bare.kind != kindBytes || len(m.item.bare.bytes) != sha256.Size {
		return malformedf("Content-Digest sha-256 is not a 32-byte byte sequence")
	}
	if subtle.ConstantTimeCompare(sum[:], m.item.bare.bytes) != 1 {
		return ErrDigestMismatch
	}
	return nil
}

// Body is a request body as a verifier knows it: its length and its SHA-256. A server that
// streams a body it will not keep (one over its size limit, say) still verifies its digest
// exactly, with BodyOf for a body in memory or a hash of the stream.
type Body struct {
	Len    int64
	SHA256 [sha256.Size]byte
}

// BodyOf returns the Body of b.
func BodyOf(b []byte) Body { return Body{Len: int64(len(b)), SHA256: sha256.Sum256(b)} }
