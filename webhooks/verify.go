package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/safetext"
)

// Standard Webhooks header names. http.Header canonicalizes keys, so these
// match however the sender capitalized them.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every endpoint secret; the rest is base64 of the key.
const SecretPrefix = "whsec_"

// DefaultTolerance is how far webhook-timestamp may be from now, in either
// direction, before Verify rejects a delivery as a possible replay.
const DefaultTolerance = 5 * time.Minute

// Sentinel errors returned (possibly wrapped) by Verify, VerifySignature,
// Sign and SignHeaders; test them with errors.Is.
var (
	// ErrMissingHeaders: webhook-id, webhook-timestamp or webhook-signature
	// is absent or empty.
	ErrMissingHeaders = errors.New("webhooks: missing webhook headers")
	// ErrInvalidSecret: the secret is empty or not base64 after "whsec_", or
	// (for Verify, VerifySignature and NewHandler) its key is shorter than
	// MinSecretBytes.
	ErrInvalidSecret = errors.New("webhooks: invalid secret")
	// ErrSignatureMismatch: no v1 signature in webhook-signature matches any of
	// the receiver's secrets (a wrong or retired secret, or a tampered delivery).
	// It is not medspa.ErrInvalidSignature, the API's answer to a request whose
	// own signature (medspa.WithSigning) it refused.
	ErrSignatureMismatch = errors.New("webhooks: no matching signature")
	// ErrTimestampTooOld: webhook-timestamp is older than the tolerance.
	ErrTimestampTooOld = errors.New("webhooks: timestamp too old")
	// ErrTimestampTooNew: webhook-timestamp is further in the future than
	// the tolerance.
	ErrTimestampTooNew = errors.New("webhooks: timestamp too new")
	// ErrInvalidTimestamp: webhook-timestamp is not unix seconds.
	ErrInvalidTimestamp = errors.New("webhooks: invalid timestamp")
	// ErrInvalidPayload: the signature is valid but the body is not an
	// event (see Event.UnmarshalJSON).
	ErrInvalidPayload = errors.New("webhooks: invalid payload")
)

// VerifyOption configures Verify and VerifySignature. The same values can be
// passed to NewHandler.
type VerifyOption func(*verifyConfig)

type verifyConfig struct {
	tolerance time.Duration
	now       func() time.Time
	secrets   []string // WithSecrets: accepted besides the first argument's
}

func newVerifyConfig(opts []VerifyOption) verifyConfig {
	c := verifyConfig{tolerance: DefaultTolerance, now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTolerance sets how far webhook-timestamp may differ from now in either
// direction (default DefaultTolerance). The bound itself is accepted. A
// negative d is treated as zero.
func WithTolerance(d time.Duration) VerifyOption {
	return func(c *verifyConfig) { c.tolerance = max(d, 0) }
}

// WithNow sets the clock the timestamp is checked against (default
// time.Now). Tests against a mock server whose clock was moved pass the mock
// clock here, since deliveries are stamped with it. A nil now is ignored.
func WithNow(now func() time.Time) VerifyOption {
	return func(c *verifyConfig) {
		if now != nil {
			c.now = now
		}
	}
}

// WithSecrets adds secrets that a delivery may be signed with, besides the one
// given to Verify, VerifySignature or NewHandler: a delivery is accepted when
// any of its v1 signatures matches any of the secrets. A receiver passes the
// previous secret here while an endpoint's secret is rotated
// (Service.RotateSecret), or the secrets of several endpoints that deliver to
// it. Each secret must be valid as the first one must (ErrInvalidSecret);
// empty strings are skipped, so that a setting for the previous secret can be
// left empty once a rotation is over. Several WithSecrets add up.
func WithSecrets(secrets ...string) VerifyOption {
	return func(c *verifyConfig) {
		for _, s := range secrets {
			if s != "" {
				c.secrets = append(c.secrets, s)
			}
		}
	}
}

// decodeSecret returns the HMAC key of a secret. The prefix is optional
// because the Standard Webhooks reference libraries accept bare base64 too.
func decodeSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, ErrInvalidSecret
	}
	return key, nil
}

// MinSecretBytes is the shortest key (the base64-decoded part of a secret) a
// receiver accepts: the API's secrets have 24 random bytes (docs/protocol.md §9),
// and a shorter one could be guessed.
const MinSecretBytes = 24

// receiverKeys decodes the keys of a receiver (Verify, VerifySignature,
// NewHandler): secret's, then those of c's WithSecrets. Unlike a sender, a
// receiver also refuses keys shorter than MinSecretBytes.
func receiverKeys(secret string, c *verifyConfig) ([][]byte, error) {
	n := 1 + len(c.secrets)
	keys := make([][]byte, n)
	for i := range n {
		s := secret
		if i > 0 {
			s = c.secrets[i-1]
		}
		which := "" // which secret is wrong, when there are several (never what it holds)
		if n > 1 {
			which = fmt.Sprintf(" (secret %d of %d)", i+1, n)
		}
		key, err := decodeSecret(s)
		if err != nil {
			return nil, fmt.Errorf("%w%s", err, which)
		}
		if len(key) < MinSecretBytes {
			return nil, fmt.Errorf("%w%s: the key has %d bytes, fewer than %d", ErrInvalidSecret, which, len(key), MinSecretBytes)
		}
		keys[i] = key
	}
	return keys, nil
}

// mac computes HMAC-SHA256(key, "<id>.<timestamp>.<body>"), the Standard
// Webhooks signed content.
func mac(key []byte, msgID, timestamp string, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msgID))
	h.Write([]byte{'.'})
	h.Write([]byte(timestamp))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// VerifySignature checks that body was signed with secret (or one of those
// given by WithSecrets) and that the delivery is recent. It returns nil, or an
// error wrapping one of ErrInvalidSecret, ErrMissingHeaders,
// ErrInvalidTimestamp, ErrTimestampTooOld, ErrTimestampTooNew or
// ErrSignatureMismatch, checked in that order. webhook-signature may hold
// several space-separated signatures (during a secret rotation the sender
// signs with the new and the previous secret): any valid "v1," one made with
// any of the secrets passes, and other versions are ignored. It does not look
// at the body's content; use Verify to also decode it.
func VerifySignature(secret string, header http.Header, body []byte, opts ...VerifyOption) error {
	c := newVerifyConfig(opts)
	keys, err := receiverKeys(secret, &c)
	if err != nil {
		return err
	}
	return verifyKeys(keys, &c, header, body)
}

func verifyKeys(keys [][]byte, c *verifyConfig, header http.Header, body []byte) error {
	msgID, ts, sigs := header.Get(HeaderID), header.Get(HeaderTimestamp), header.Get(HeaderSignature)
	if msgID == "" || ts == "" || sigs == "" {
		return ErrMissingHeaders
	}
	sec, err := parseTimestamp(ts)
	if err != nil {
		return err
	}
	// Compared in whole seconds so that "exactly at the tolerance" is
	// accepted regardless of the sub-second part of now, and so a huge
	// timestamp can't overflow a time.Duration.
	now := c.now().Unix()
	tol := int64(c.tolerance / time.Second)
	switch {
	case sec < now && now-sec > tol:
		return ErrTimestampTooOld
	case sec > now && sec-now > tol:
		return ErrTimestampTooNew
	}
	var macs [2][]byte // the new and the previous secret's, without a heap allocation
	want := macs[:0]
	for _, key := range keys {
		want = append(want, mac(key, msgID, ts, body))
	}
	for _, s := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			continue
		}
		for _, w := range want {
			// Constant time, so response timing doesn't leak how much of a
			// forged signature was right.
			if hmac.Equal(got, w) {
				return nil
			}
		}
	}
	return ErrSignatureMismatch
}

// parseTimestamp accepts only plain decimal unix seconds: no sign, no
// spaces, no fraction, so one timestamp has exactly one signed spelling.
func parseTimestamp(ts string) (int64, error) {
	for i := 0; i < len(ts); i++ {
		if ts[i] < '0' || ts[i] > '9' {
			return 0, ErrInvalidTimestamp
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return 0, ErrInvalidTimestamp
	}
	return sec, nil
}

// Verify checks the delivery like VerifySignature and then decodes body
// into an Event. Besides VerifySignature's errors it returns an error
// wrapping ErrInvalidPayload when the signature is valid but the body is not
// an event. The returned error never quotes the body.
func Verify(secret string, header http.Header, body []byte, opts ...VerifyOption) (*Event, error) {
	c := newVerifyConfig(opts)
	keys, err := receiverKeys(secret, &c)
	if err != nil {
		return nil, err
	}
	return verifyAndDecode(keys, &c, header, body)
}

func verifyAndDecode(keys [][]byte, c *verifyConfig, header http.Header, body []byte) (*Event, error) {
	if err := verifyKeys(keys, c, header, body); err != nil {
		return nil, err
	}
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		// Unmarshal may fail before reaching Event.UnmarshalJSON (a syntax
		// error in the outer value); both paths get a value-free message.
		msg := safetext.JSONError(err)
		if errors.Is(err, errBadEvent) {
			msg = strings.TrimPrefix(err.Error(), errBadEvent.Error()+": ")
		}
		return nil, fmt.Errorf("%w: %s", ErrInvalidPayload, msg)
	}
	return &e, nil
}

// Sign returns the webhook-signature value ("v1,<base64>") for a delivery
// of body with message id msgID at timestamp, as a sender computes it. It
// fails only with ErrInvalidSecret.
func Sign(secret, msgID string, timestamp time.Time, body []byte) (string, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return "", err
	}
	ts := strconv.FormatInt(timestamp.Unix(), 10)
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, msgID, ts, body)), nil
}

// SignHeaders returns the headers of a signed delivery: webhook-id,
// webhook-timestamp, webhook-signature and Content-Type: application/json.
// Senders (our mock server's dispatcher) and receivers' own tests use it. It
// fails only with ErrInvalidSecret.
func SignHeaders(secret, msgID string, timestamp time.Time, body []byte) (http.Header, error) {
	sig, err := Sign(secret, msgID, timestamp, body)
	if err != nil {
		return nil, err
	}
	h := make(http.Header, 4)
	h.Set(HeaderID, msgID)
	h.Set(HeaderTimestamp, strconv.FormatInt(timestamp.Unix(), 10))
	h.Set(HeaderSignature, sig)
	h.Set("Content-Type", "application/json")
	return h, nil
}

// NewSecret returns a fresh endpoint secret: "whsec_" and the standard
// base64 of 24 random bytes from crypto/rand.
func NewSecret() string {
	b := make([]byte, 24)
	// crypto/rand.Read never fails on supported platforms (it crashes the
	// program rather than return short), so there is no error to report.
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}
