package webhooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/webhooks"
)

// End-to-end tests of endpoint updates and secret rotation (docs/protocol.md §9 "Webhooks and
// events") through the SDK against the mock server, every request and answer validated against
// api/openapi.yaml.

// TestEndpointUpdate: a merge patch changes what it names and nothing else, clears the
// description and resets enabled with null, never shows the secret, and refuses what create
// refuses, changing nothing. A disabled endpoint gets nothing; re-enabled, it gets what happens
// after, not what it missed.
func TestEndpointUpdate(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c, ctx := env.Client, context.Background()
	rc := newTestReceiver(t, answer(http.StatusNoContent))
	e, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: "https://hooks.example.com/a", Events: []webhooks.EventType{webhooks.EventPatientCreated},
		Description: "books"})
	if err != nil {
		t.Fatal(err)
	}

	got, resp, err := c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{URL: rc.URL,
		Events: []webhooks.EventType{webhooks.EventPatientCreated, webhooks.EventRefundCreated}})
	if err != nil {
		t.Fatal(err)
	}
	want := *e
	want.URL, want.Events, want.Secret = rc.URL, []webhooks.EventType{webhooks.EventPatientCreated, webhooks.EventRefundCreated}, ""
	if resp.StatusCode != http.StatusOK || !cmp.Equal(got, &want) {
		t.Errorf("update %d (-got +want):\n%s", resp.StatusCode, cmp.Diff(got, &want))
	}
	if fetched, _, err := c.Webhooks.Get(ctx, e.ID); err != nil || !cmp.Equal(fetched, got) {
		t.Errorf("Get after the update (-got +updated): %s %v", cmp.Diff(fetched, got), err)
	}

	got, _, err = c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{Description: medspa.Null[string](), Enabled: medspa.Set(false)})
	if err != nil || got.Description != "" || got.Enabled || got.URL != rc.URL || len(got.Events) != 2 {
		t.Errorf("clear the description, disable: %+v %v", got, err)
	}
	createPatient(t, env) // while disabled: never delivered
	settle()
	if n := len(rc.deliveries()); n != 0 {
		t.Errorf("a disabled endpoint got %d deliveries", n)
	}
	got, _, err = c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{Enabled: medspa.Null[bool]()})
	if err != nil || !got.Enabled {
		t.Errorf("enabled: null resets it to true: %+v %v", got, err)
	}
	p := createPatient(t, env)
	waitFor(t, "the delivery after re-enabling", func() bool { return len(rc.deliveries()) >= 1 })
	settle()
	if d := rc.deliveries(); len(d) != 1 || !strings.Contains(string(d[0].body), p.ID) {
		t.Errorf("after re-enabling: %d deliveries, want only the new patient's", len(d))
	}

	// Refusals change nothing.
	before, _, _ := c.Webhooks.Get(ctx, e.ID)
	for _, tc := range []struct {
		name     string
		params   webhooks.UpdateParams
		sentinel error
		pointer  string
	}{
		{"plain http off loopback", webhooks.UpdateParams{URL: "http://hooks.example.com/a", Enabled: medspa.Set(false)}, medspa.ErrValidation, "/url"},
		{"a private address", webhooks.UpdateParams{URL: "https://10.1.2.3/hook"}, medspa.ErrValidation, "/url"},
		{"no events", webhooks.UpdateParams{Events: []webhooks.EventType{}}, medspa.ErrValidation, "/events"},
		{"a long description", webhooks.UpdateParams{Description: medspa.Set(strings.Repeat("d", 501))}, medspa.ErrValidation, "/description"},
	} {
		_, _, err := c.Webhooks.Update(oapitest.WithoutRequestValidation(ctx), e.ID, &tc.params)
		var apiErr *medspa.Error
		if !errors.Is(err, tc.sentinel) || !errors.As(err, &apiErr) || len(apiErr.Fields) != 1 || apiErr.Fields[0].Pointer != tc.pointer {
			t.Errorf("%s: %v, want %v at %s", tc.name, err, tc.sentinel, tc.pointer)
		}
	}
	if after, _, _ := c.Webhooks.Get(ctx, e.ID); !cmp.Equal(before, after) {
		t.Errorf("refused updates changed the endpoint: %s", cmp.Diff(before, after))
	}
	_, _, err = c.Webhooks.Update(ctx, "whk_0000000000000000000000000000000f", &webhooks.UpdateParams{Enabled: medspa.Set(true)})
	if !errors.Is(err, medspa.ErrNotFound) {
		t.Errorf("unknown endpoint: %v", err)
	}
}

// rotationReceiver is a loopback receiver running c.Webhooks.NewHandler, whose secrets change
// as a deployment would change them: each configuration is a new handler.
type rotationReceiver struct {
	URL     string
	mu      sync.Mutex
	handler http.Handler
	got     []rotationDelivery
}

// rotationDelivery is what the receiver saw of one delivery and how its handler answered.
type rotationDelivery struct {
	signatures int
	status     int
}

func newRotationReceiver(t *testing.T) *rotationReceiver {
	t.Helper()
	rc := &rotationReceiver{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		h := rc.handler
		rc.mu.Unlock()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		rc.mu.Lock()
		rc.got = append(rc.got, rotationDelivery{len(strings.Fields(r.Header.Get(webhooks.HeaderSignature))), rec.Code})
		rc.mu.Unlock()
		w.WriteHeader(rec.Code)
	}))
	t.Cleanup(ts.Close)
	rc.URL = ts.URL + "/hook"
	return rc
}

func (rc *rotationReceiver) use(h http.Handler) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.handler = h
}

// next waits for delivery n (from 1).
func (rc *rotationReceiver) next(t *testing.T, n int) rotationDelivery {
	t.Helper()
	waitFor(t, "a delivery", func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		return len(rc.got) >= n
	})
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.got[n-1]
}

// TestSecretRotationEndToEnd: an endpoint's secret is rotated while a receiver built by the
// client (on the mock's clock) keeps verifying every delivery: before the rotation with the
// first secret, in the overlap with both (two signatures), after the expiry with the new one
// only (one signature), while a receiver that kept only the first secret is refused from the
// expiry on. A retried rotation (same Idempotency-Key) returns the same secret; rotating with
// 0 retires the previous secret at once; rotating again replaces the previous one (at most two
// secrets sign); what the server refuses changes nothing.
func TestSecretRotationEndToEnd(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	t0 := time.Date(2030, 7, 1, 10, 0, 0, 0, time.UTC)
	env.Server.SetTime(acct, t0)
	c := env.ClientFor(t, env.Key.Key, medspa.WithClock(func() time.Time { return env.Server.Now(acct) }))
	ctx := context.Background()
	rc := newRotationReceiver(t)
	e, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: rc.URL, Events: []webhooks.EventType{webhooks.EventPatientCreated}})
	if err != nil {
		t.Fatal(err)
	}
	handle := func(context.Context, *webhooks.Event) error { return nil }
	s1 := e.Secret
	rc.use(c.Webhooks.NewHandler(s1, handle))
	n := 0
	deliver := func(what string, signatures, status int) {
		t.Helper()
		createPatient(t, env)
		n++
		if d := rc.next(t, n); d.signatures != signatures || d.status != status {
			t.Errorf("%s: %d signatures answered %d, want %d answered %d", what, d.signatures, d.status, signatures, status)
		}
	}
	deliver("before the rotation", 1, http.StatusNoContent)

	rot, resp, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Hour)},
		medspa.WithIdempotencyKey("rotate-1"))
	if err != nil {
		t.Fatal(err)
	}
	s2 := rot.Secret
	if resp.StatusCode != http.StatusOK || s2 == s1 || !strings.HasPrefix(s2, webhooks.SecretPrefix) || rot.PreviousSecretExpiresAt == nil ||
		!rot.PreviousSecretExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("rotation %d %+v", resp.StatusCode, rot)
	}
	again, resp, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Hour)},
		medspa.WithIdempotencyKey("rotate-1"))
	if err != nil || !resp.Replayed || !cmp.Equal(again, rot) {
		t.Fatalf("a retried rotation: %+v %+v %v", again, resp, err)
	}
	if got, _, _ := c.Webhooks.Get(ctx, e.ID); got.Secret != "" {
		t.Error("Get shows the secret")
	}

	deliver("in the overlap, the receiver not yet told", 2, http.StatusNoContent)
	rc.use(c.Webhooks.NewHandler(s2, handle, webhooks.WithSecrets(s1)))
	deliver("in the overlap, the receiver holding both", 2, http.StatusNoContent)
	env.Server.AdvanceTime(acct, time.Hour-time.Second)
	deliver("the last second of the overlap", 2, http.StatusNoContent)
	env.Server.AdvanceTime(acct, time.Second)
	deliver("at the expiry, still holding both", 1, http.StatusNoContent)
	rc.use(c.Webhooks.NewHandler(s2, handle, webhooks.WithSecrets(""))) // the previous-secret setting emptied
	deliver("after the expiry", 1, http.StatusNoContent)
	rc.use(c.Webhooks.NewHandler(s1, handle))
	deliver("after the expiry, a receiver with the first secret only", 1, http.StatusBadRequest)

	// 0 retires the previous secret at once.
	rc.use(c.Webhooks.NewHandler(s2, handle))
	now, _, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Duration(0))})
	if err != nil || now.PreviousSecretExpiresAt != nil {
		t.Fatalf("rotation with 0: %+v %v", now, err)
	}
	deliver("right after a rotation with 0, a receiver with the retired secret", 1, http.StatusBadRequest)
	s3 := now.Secret

	// Rotating twice: the newest and the one before sign; the first is gone.
	r4, _, err := c.Webhooks.RotateSecret(ctx, e.ID, nil) // the default window, 24 h
	if err != nil || r4.PreviousSecretExpiresAt == nil || !r4.PreviousSecretExpiresAt.Equal(env.Server.Now(acct).Add(24*time.Hour)) {
		t.Fatalf("default rotation: %+v %v", r4, err)
	}
	r5, _, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(10 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	rc.use(c.Webhooks.NewHandler(r4.Secret, handle))
	deliver("two rotations: the one before the newest", 2, http.StatusNoContent)
	rc.use(c.Webhooks.NewHandler(s3, handle))
	deliver("two rotations: the one before that", 2, http.StatusBadRequest)
	rc.use(c.Webhooks.NewHandler(r5.Secret, handle, webhooks.WithSecrets(r4.Secret, s3)))
	deliver("two rotations: a receiver holding all three", 2, http.StatusNoContent)
	rc.use(c.Webhooks.NewHandler(s3, handle, webhooks.WithSecrets(r4.Secret))) // only the extra secret signs
	deliver("two rotations: a receiver holding the retired secret and the one before the newest", 2, http.StatusNoContent)

	// Refusals: out of range, unknown endpoint; the secret stays.
	for _, d := range []time.Duration{-time.Second, 7*24*time.Hour + time.Second} {
		_, _, err := c.Webhooks.RotateSecret(oapitest.WithoutRequestValidation(ctx), e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: &d})
		var apiErr *medspa.Error
		if !errors.Is(err, medspa.ErrValidation) || !errors.As(err, &apiErr) || len(apiErr.Fields) != 1 ||
			apiErr.Fields[0].Pointer != "/expiresInSeconds" || apiErr.Fields[0].Code != "out_of_range" {
			t.Errorf("expiry %v: %v", d, err)
		}
	}
	if _, _, err := c.Webhooks.RotateSecret(ctx, "whk_0000000000000000000000000000000f", nil); !errors.Is(err, medspa.ErrNotFound) {
		t.Errorf("unknown endpoint: %v", err)
	}
	rc.use(c.Webhooks.NewHandler(r5.Secret, handle))
	deliver("after refused rotations", 2, http.StatusNoContent)
	week := 7 * 24 * time.Hour
	if r, _, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: &week}); err != nil ||
		r.PreviousSecretExpiresAt == nil || !r.PreviousSecretExpiresAt.Equal(env.Server.Now(acct).Add(week)) {
		t.Errorf("a week, the longest: %+v %v", r, err)
	}

	// The server logs an attempt once it has read the answer, which the receiver wrote just
	// before: the last attempt may still be on its way into the log.
	var statuses []int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		statuses = statuses[:0]
		for _, a := range env.Server.Deliveries(acct) {
			statuses = append(statuses, a.StatusCode)
		}
		if len(statuses) >= n || time.Now().After(deadline) {
			break
		}
	}
	if len(statuses) != n || slices.Contains(statuses, 0) {
		t.Errorf("delivery log %v, want %d answered attempts", statuses, n)
	}
}
