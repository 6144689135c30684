package webhooks

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
)

// DefaultMaxBodyBytes caps a delivery's body in NewHandler. Events are thin
// (ids and amounts), so 1 MiB leaves ample room while bounding memory.
const DefaultMaxBodyBytes int64 = 1 << 20

// HandlerOption configures NewHandler. Every VerifyOption (WithTolerance,
// WithNow, WithSecrets) is also a HandlerOption.
type HandlerOption interface {
	applyHandler(*handlerConfig)
}

type handlerConfig struct {
	verify   verifyConfig
	maxBytes int64
	logger   *slog.Logger
}

// applyHandler lets a VerifyOption configure the handler's verification.
func (o VerifyOption) applyHandler(c *handlerConfig) { o(&c.verify) }

type handlerOptionFunc func(*handlerConfig)

func (f handlerOptionFunc) applyHandler(c *handlerConfig) { f(c) }

// WithMaxBodyBytes caps the request body (default DefaultMaxBodyBytes);
// larger deliveries get 413. n <= 0 keeps the default.
func WithMaxBodyBytes(n int64) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if n > 0 {
			c.maxBytes = n
		}
	})
}

// WithLogger makes the handler log one record per delivery with metadata
// only: method, event id and type, HTTP status and outcome. It never logs the
// body or the handler function's error text, either of which may hold PHI.
// The default discards logs.
func WithLogger(l *slog.Logger) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if l != nil {
			c.logger = l
		}
	})
}

// NewHandler returns an http.Handler that receives webhook deliveries signed
// with secret (or with one of those given by WithSecrets, such as the previous
// secret during a rotation) and passes each verified event to fn with the
// request's context. It answers:
//
//   - 405 with Allow: POST for any other method;
//   - 413 when the body exceeds the cap (WithMaxBodyBytes);
//   - 400 with a short plain-text reason when headers are missing, the
//     signature doesn't match, the timestamp is outside the tolerance or
//     the body is not an event;
//   - 500 when a secret is invalid or its key shorter than MinSecretBytes (a
//     configuration error on the receiver's side: the sender keeps retrying
//     until it is fixed) or when fn returns an error, so the sender retries
//     the delivery later;
//   - 204 when fn returns nil.
//
// Delivery is at least once: fn may see the same event again (same ID) and
// should make its effect idempotent. The handler is safe for concurrent use;
// fn must be too.
//
// NewHandler panics if fn is nil, as http.ServeMux.Handle does for a nil
// handler: it is a programming error better caught at start-up than on the
// first delivery.
func NewHandler(secret string, fn func(ctx context.Context, e *Event) error, opts ...HandlerOption) http.Handler {
	if fn == nil {
		panic("webhooks: NewHandler with nil fn")
	}
	h := &handler{
		fn: fn,
		cfg: handlerConfig{
			verify:   newVerifyConfig(nil),
			maxBytes: DefaultMaxBodyBytes,
			logger:   slog.New(slog.DiscardHandler),
		},
	}
	for _, o := range opts {
		o.applyHandler(&h.cfg)
	}
	// Decoded once here rather than per request; an invalid secret is
	// reported on every delivery instead of panicking at start-up, matching
	// how the rest of the SDK reports configuration errors as errors.
	h.keys, h.keyErr = receiverKeys(secret, &h.cfg.verify)
	return h
}

// handler is immutable after NewHandler, which is what makes it safe for
// concurrent use.
type handler struct {
	fn     func(ctx context.Context, e *Event) error
	cfg    handlerConfig
	keys   [][]byte
	keyErr error
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// Each outcome is logged before the reply is written, so the record
	// exists by the time the sender (or a test) sees the status.
	log := h.cfg.logger
	if r.Method != http.MethodPost {
		log.LogAttrs(ctx, slog.LevelWarn, "webhook rejected", slog.String("method", r.Method),
			slog.Int("status", http.StatusMethodNotAllowed), slog.String("outcome", "method_not_allowed"))
		w.Header().Set("Allow", http.MethodPost)
		reply(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.maxBytes))
	if err != nil {
		status, outcome := http.StatusBadRequest, "read_error"
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			status, outcome = http.StatusRequestEntityTooLarge, "too_large"
		}
		log.LogAttrs(ctx, slog.LevelWarn, "webhook rejected", slog.String("webhook_id", r.Header.Get(HeaderID)),
			slog.Int("status", status), slog.String("outcome", outcome))
		reply(w, status, http.StatusText(status))
		return
	}
	if h.keyErr != nil {
		log.LogAttrs(ctx, slog.LevelError, "webhook rejected: invalid secret", slog.String("webhook_id", r.Header.Get(HeaderID)),
			slog.Int("status", http.StatusInternalServerError), slog.String("outcome", "invalid_secret"))
		reply(w, http.StatusInternalServerError, "receiver misconfigured")
		return
	}
	e, err := verifyAndDecode(h.keys, &h.cfg.verify, r.Header, body)
	if err != nil {
		// The reply is the sentinel's fixed text only: the wrapped detail is
		// for the caller of Verify, not for whoever sent this request.
		reason := sentinelText(err)
		// webhook-id is the sender's event id, not payload data, so it is
		// safe to log and lets operators match a rejection to a delivery.
		log.LogAttrs(ctx, slog.LevelWarn, "webhook rejected", slog.String("webhook_id", r.Header.Get(HeaderID)),
			slog.Int("status", http.StatusBadRequest), slog.String("outcome", reason))
		reply(w, http.StatusBadRequest, reason)
		return
	}
	attrs := []slog.Attr{slog.String("event_id", e.ID), slog.String("event_type", string(e.Type))}
	if err := h.fn(ctx, e); err != nil {
		log.LogAttrs(ctx, slog.LevelError, "webhook handler failed",
			append(attrs, slog.Int("status", http.StatusInternalServerError), slog.String("outcome", "handler_error"))...)
		reply(w, http.StatusInternalServerError, "handler failed")
		return
	}
	log.LogAttrs(ctx, slog.LevelInfo, "webhook handled",
		append(attrs, slog.Int("status", http.StatusNoContent), slog.String("outcome", "ok"))...)
	w.WriteHeader(http.StatusNoContent)
}

// sentinelText maps a verification error to its sentinel's fixed message.
func sentinelText(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "invalid request"
}

// sentinels lists every error Verify can wrap; the handler and the fuzz test
// both rely on the list being complete.
var sentinels = []error{
	ErrMissingHeaders, ErrInvalidSecret, ErrSignatureMismatch, ErrTimestampTooOld,
	ErrTimestampTooNew, ErrInvalidTimestamp, ErrInvalidPayload,
}

// reply writes a short plain-text response. nosniff keeps browsers from
// reinterpreting it should anyone point one at the endpoint.
func reply(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}
