package store

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

// WebhookRecord is a stored webhook endpoint; its signing secrets are sealed.
type WebhookRecord struct {
	ID          string               `json:"id"`
	URL         string               `json:"url"`
	Events      []webhooks.EventType `json:"events"`
	Description string               `json:"description"`
	Enabled     bool                 `json:"enabled"`
	CreatedAt   time.Time            `json:"createdAt"`
	Secret      []byte               `json:"secret"` // whsec_…, AES-256-GCM
	// PreviousSecret is the secret a rotation replaced (sealed); it keeps signing, after the
	// current one, until PreviousSecretExpiresAt on the account's clock.
	PreviousSecret          []byte    `json:"previousSecret,omitempty"`
	PreviousSecretExpiresAt time.Time `json:"previousSecretExpiresAt,omitzero"`
	// EnabledSince is an id drawn when the endpoint was last enabled again (empty: enabled
	// since it was made): events older than it are not delivered, so re-enabling an endpoint
	// does not replay what it missed.
	EnabledSince string `json:"enabledSince,omitempty"`
}

func (r *WebhookRecord) sealedFields() []sealedField {
	return []sealedField{{"secret", &r.Secret}, {"previousSecret", &r.PreviousSecret}}
}

// since is the id that events must follow to reach the endpoint.
func (r *WebhookRecord) since() string { return cmp.Or(r.EnabledSince, r.ID) }

func (r *WebhookRecord) endpoint() webhooks.Endpoint {
	return webhooks.Endpoint{
		ID: r.ID, URL: r.URL, Events: slices.Clone(r.Events), Description: r.Description,
		Enabled: r.Enabled, CreatedAt: r.CreatedAt,
	}
}

// WebhookInput is a webhook endpoint create or merge-patch body (docs/protocol.md §9 Webhooks
// and events), decoded.
type WebhookInput struct {
	Members
	URL         Field[string]
	Events      Field[[]string]
	Description Field[string]
	Enabled     Field[bool]
}

// WebhookInputOf is the input that creates e (for Go callers such as tests).
func WebhookInputOf(e webhooks.Endpoint) WebhookInput {
	events := make([]string, len(e.Events))
	for i, t := range e.Events {
		events[i] = string(t)
	}
	in := WebhookInput{URL: Given(e.URL), Events: Given(events), Enabled: Given(e.Enabled)}
	if e.Description != "" {
		in.Description = Given(e.Description)
	}
	return in
}

// URLCheck judges a webhook endpoint URL: a field code and detail when it is refused (an
// address the server may not deliver to), "" when it is allowed.
type URLCheck func(ctx context.Context, url string) (code, detail string)

// checkWebhook validates an endpoint body (a create, or a merge patch) and returns the change
// it makes: the URL (also by the store's URLCheck), the event types (known, no duplicates, or
// "*" alone), the description, enabled. In a patch, null on url or events is "required", null
// on description clears it and null on enabled restores the default, true.
func (a *Account) checkWebhook(ctx context.Context, in WebhookInput, patch bool) (func(*webhooks.Endpoint), error) {
	c := newChecker()
	c.members(in.Members)
	var sets []func(*webhooks.Endpoint)
	if patch {
		c.nonNull(namedState{"url", in.URL.State}, namedState{"events", in.Events.State})
	}
	if u, p := c.str("url", in.URL, !patch, 1, 0); p == Present {
		if check := a.store.checkURL; check != nil {
			if code, detail := check(ctx, u); code != "" {
				c.fail("url", code, detail)
			}
		}
		sets = append(sets, func(e *webhooks.Endpoint) { e.URL = u })
	}
	if !patch || in.Events.State == Present || in.Events.State == Invalid {
		if events := checkEvents(c, in.Events); events != nil {
			sets = append(sets, func(e *webhooks.Endpoint) { e.Events = events })
		}
	}
	if v, p := c.str("description", in.Description, false, 0, 500); p == Present || p == Null {
		sets = append(sets, func(e *webhooks.Endpoint) { e.Description = v })
	}
	if v, p := c.boolean(in.Enabled); p == Present || p == Null {
		sets = append(sets, func(e *webhooks.Endpoint) { e.Enabled = v || p == Null })
	}
	if err := c.done(); err != nil {
		return nil, err
	}
	return changes(sets), nil
}

// checkEvents checks the events list: known types without duplicates, or "*" alone.
func checkEvents(c checker, f Field[[]string]) []webhooks.EventType {
	list, p := c.strings("events", f, 32, 64)
	switch p {
	case Absent, Null:
		c.fail("events", "required", "is required")
		return nil
	case Invalid:
		return nil
	}
	if len(list) == 0 {
		c.fail("events", "too_short", "must list at least one event type")
		return nil
	}
	out := make([]webhooks.EventType, 0, len(list))
	for i, s := range list {
		t := webhooks.EventType(s)
		switch {
		case !t.Valid():
			c.failItem("events", i, "invalid_value", "must be a known event type or \"*\"")
		case slices.Contains(out, t):
			c.failItem("events", i, "invalid_value", "is listed twice")
		case t == webhooks.EventAll && len(list) > 1:
			c.failItem("events", i, "invalid_value", "\"*\" must be the only entry")
		}
		out = append(out, t)
	}
	return out
}

// CreateWebhook validates in and stores the endpoint with a fresh secret, returned here only
// (the only time it is shown). createdAt may be backdated (fixtures) when non-zero.
func (a *Account) CreateWebhook(ctx context.Context, in WebhookInput, createdAt time.Time) (webhooks.Endpoint, error) {
	change, err := a.checkWebhook(ctx, in, false)
	if err != nil {
		return webhooks.Endpoint{}, err
	}
	e := webhooks.Endpoint{Enabled: true}
	change(&e)
	return a.createWebhook(e, createdAt)
}

// newWebhookSecret returns a fresh endpoint secret: as webhooks.NewSecret, from the id
// generator's secret source (crypto/rand, unless PredictableSecrets).
func (a *Account) newWebhookSecret() string {
	b := make([]byte, 24)
	_, _ = io.ReadFull(a.store.ids.Rand(), b)
	return webhooks.SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// createWebhook stores a valid endpoint.
func (a *Account) createWebhook(e webhooks.Endpoint, createdAt time.Time) (webhooks.Endpoint, error) {
	t := a.begin()
	defer t.end()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	secret := a.newWebhookSecret()
	r := &WebhookRecord{
		ID: a.store.ids.New("whk", createdAt), URL: e.URL, Events: slices.Clone(e.Events),
		Description: e.Description, Enabled: e.Enabled, CreatedAt: createdAt,
	}
	r.Secret = a.seal("webhook", r.ID, "secret", []byte(secret))
	a.data.Webhooks.insert(r)
	t.put("webhook", r.ID)
	out := r.endpoint()
	out.Secret = secret
	return out, nil
}

// GetWebhook returns the endpoint (without its secret), or 404.
func (a *Account) GetWebhook(id string) (webhooks.Endpoint, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.data.Webhooks.get(id)
	if !ok {
		return webhooks.Endpoint{}, NotFound("webhook")
	}
	return r.endpoint(), nil
}

// ListWebhooks returns a page of endpoints (without secrets) and their number.
func (a *Account) ListWebhooks(w Window) ([]webhooks.Endpoint, int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	recs, total := a.data.Webhooks.page(w, nil)
	out := make([]webhooks.Endpoint, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.endpoint())
	}
	return out, total
}

// UpdateWebhook validates in, a merge patch, and applies it to the endpoint: 422 before 404.
// An endpoint enabled again receives only the events that happen from then on. The answer
// has no secret.
func (a *Account) UpdateWebhook(ctx context.Context, id string, in WebhookInput) (webhooks.Endpoint, error) {
	change, err := a.checkWebhook(ctx, in, true)
	if err != nil {
		return webhooks.Endpoint{}, err
	}
	t := a.begin()
	defer t.end()
	r, ok := a.data.Webhooks.get(id)
	if !ok {
		return webhooks.Endpoint{}, NotFound("webhook")
	}
	before := r.endpoint()
	after := r.endpoint()
	change(&after)
	if after.URL == before.URL && slices.Equal(after.Events, before.Events) && after.Description == before.Description &&
		after.Enabled == before.Enabled {
		return before, nil
	}
	if after.Enabled && !r.Enabled {
		r.EnabledSince = a.newID("whk")
	}
	r.URL, r.Events, r.Description, r.Enabled = after.URL, after.Events, after.Description, after.Enabled
	t.put("webhook", id)
	return r.endpoint(), nil
}

// SecretRotateInput is the optional body of a secret rotation (docs/protocol.md §9 Webhooks
// and events), decoded; its zero value is a bare POST.
type SecretRotateInput struct {
	Members
	ExpiresInSeconds Field[json.Number]
}

// Bounds of a rotation's overlap (docs/protocol.md §9 Webhooks and events).
const (
	defaultSecretOverlap = 86_400
	maxSecretOverlap     = 604_800
)

// RotateWebhookSecret validates in and gives the endpoint a new secret: 422 before 404. The
// secret it replaces keeps signing (after the new one) for expiresInSeconds on the account's
// clock (default 86,400; 0: not at all), replacing any older one still live, so at most two
// secrets sign. The new secret is returned here only.
func (a *Account) RotateWebhookSecret(id string, in SecretRotateInput) (webhooks.SecretRotation, error) {
	c := newChecker()
	c.members(in.Members)
	overlap, p := c.integer("expiresInSeconds", in.ExpiresInSeconds, false, 0, maxSecretOverlap)
	if p != Present {
		overlap = defaultSecretOverlap
	}
	if err := c.done(); err != nil {
		return webhooks.SecretRotation{}, err
	}
	t := a.begin()
	defer t.end()
	r, ok := a.data.Webhooks.get(id)
	if !ok {
		return webhooks.SecretRotation{}, NotFound("webhook")
	}
	secret := a.newWebhookSecret() // drawn only for a rotation that happens: seeded runs stay reproducible
	out := webhooks.SecretRotation{Secret: secret}
	r.PreviousSecret, r.PreviousSecretExpiresAt = nil, time.Time{}
	if overlap > 0 {
		until := a.Now().Add(time.Duration(overlap) * time.Second)
		// Sealed again for its new field: a sealed value opens only where it was sealed.
		if prev, err := a.open("webhook", id, "secret", r.Secret); err == nil {
			r.PreviousSecret, r.PreviousSecretExpiresAt = a.seal("webhook", id, "previousSecret", prev), until
			out.PreviousSecretExpiresAt = &until
		}
	}
	r.Secret = a.seal("webhook", id, "secret", []byte(secret))
	t.put("webhook", id)
	return out, nil
}

// DeleteWebhook removes the endpoint, or answers 404. The caller drops its pending retries.
func (a *Account) DeleteWebhook(id string) error {
	t := a.begin()
	defer t.end()
	r, ok := a.data.Webhooks.get(id)
	if !ok {
		return NotFound("webhook")
	}
	a.data.Webhooks.drop(r.ID)
	t.remove("webhook", id)
	return nil
}

// DisableWebhook turns the endpoint off (a receiver answered 410 Gone); false if it is gone.
func (a *Account) DisableWebhook(id string) bool {
	t := a.begin()
	defer t.end()
	r, ok := a.data.Webhooks.get(id)
	if ok {
		r.Enabled = false
		t.put("webhook", id)
	}
	return ok
}

// WebhookSubscribers returns the ids of the enabled endpoints subscribed to e's type (directly
// or with "*") that existed when e happened: ids come from one generator, strictly increasing,
// so an endpoint registered after the event has a greater id. webhook.test is only ever sent
// by the test endpoint, so it has no subscribers.
func (a *Account) WebhookSubscribers(e Event) []string {
	if e.Type == webhooks.EventWebhookTest {
		return nil
	}
	_, seq, _ := strings.Cut(e.ID, "_")
	a.mu.RLock()
	defer a.mu.RUnlock()
	var ids []string
	for _, r := range a.data.Webhooks.all() {
		_, since, _ := strings.Cut(r.since(), "_")
		if r.Enabled && since < seq && (slices.Contains(r.Events, e.Type) || slices.Contains(r.Events, webhooks.EventAll)) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// HasWebhooksLocked reports whether the account has any endpoint. It takes no lock: call it
// only where a.mu is held, as in the OnEvent hook, so events of accounts without endpoints
// are never queued.
func (a *Account) HasWebhooksLocked() bool { return a.data.Webhooks.len() > 0 }

// WebhookTarget is what a delivery needs: where to send and the secrets to sign with.
type WebhookTarget struct {
	ID, URL, Secret string
	Enabled         bool
	// PreviousSecret signs too, after Secret, until PreviousUntil (a rotation's overlap).
	PreviousSecret string
	PreviousUntil  time.Time
}

// Secrets returns the secrets that sign a delivery attempted at at: the current one, then the
// previous one while its overlap lasts.
func (t WebhookTarget) Secrets(at time.Time) []string {
	if t.PreviousSecret != "" && at.Before(t.PreviousUntil) {
		return []string{t.Secret, t.PreviousSecret}
	}
	return []string{t.Secret}
}

// WebhookTarget returns the endpoint's delivery target with its secret opened.
func (a *Account) WebhookTarget(id string) (WebhookTarget, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.data.Webhooks.get(id)
	if !ok {
		return WebhookTarget{}, false
	}
	secret, err := a.open("webhook", r.ID, "secret", r.Secret)
	if err != nil {
		return WebhookTarget{}, false
	}
	t := WebhookTarget{ID: r.ID, URL: r.URL, Secret: string(secret), Enabled: r.Enabled}
	if r.PreviousSecret != nil {
		if prev, err := a.open("webhook", r.ID, "previousSecret", r.PreviousSecret); err == nil {
			t.PreviousSecret, t.PreviousUntil = string(prev), r.PreviousSecretExpiresAt
		}
	}
	return t, true
}

// NewEventID returns a fresh event id on the account's clock (for events that are not domain
// state changes, such as webhook.test).
func (a *Account) NewEventID() string { return a.newID("evt") }
