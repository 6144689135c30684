package store

import (
	"context"
	"encoding/base64"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

// WebhookRecord is a stored webhook endpoint; its signing secret is sealed.
type WebhookRecord struct {
	ID          string               `json:"id"`
	URL         string               `json:"url"`
	Events      []webhooks.EventType `json:"events"`
	Description string               `json:"description"`
	Enabled     bool                 `json:"enabled"`
	CreatedAt   time.Time            `json:"createdAt"`
	Secret      []byte               `json:"secret"` // whsec_…, AES-256-GCM
}

func (r *WebhookRecord) sealedFields() []sealedField { return []sealedField{{"secret", &r.Secret}} }

func (r *WebhookRecord) endpoint() webhooks.Endpoint {
	return webhooks.Endpoint{
		ID: r.ID, URL: r.URL, Events: slices.Clone(r.Events), Description: r.Description,
		Enabled: r.Enabled, CreatedAt: r.CreatedAt,
	}
}

// WebhookInput is a webhook endpoint create body (docs/protocol.md §9 Webhooks and events),
// decoded.
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

// checkWebhook validates an endpoint body: the URL (also by the store's URLCheck), the event
// types (known, no duplicates, or "*" alone), the description.
func (a *Account) checkWebhook(ctx context.Context, in WebhookInput) (webhooks.Endpoint, error) {
	c := newChecker()
	c.members(in.Members)
	var e webhooks.Endpoint
	if u, p := c.str("url", in.URL, true, 1, 0); p == Present {
		if check := a.store.checkURL; check != nil {
			if code, detail := check(ctx, u); code != "" {
				c.fail("url", code, detail)
			}
		}
		e.URL = u
	}
	e.Events = checkEvents(c, in.Events)
	e.Description, _ = c.str("description", in.Description, false, 0, 500)
	e.Enabled = true
	if v, p := c.boolean(in.Enabled); p == Present {
		e.Enabled = v
	}
	return e, c.done()
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
	e, err := a.checkWebhook(ctx, in)
	if err != nil {
		return webhooks.Endpoint{}, err
	}
	return a.createWebhook(e, createdAt)
}

// createWebhook stores a valid endpoint.
func (a *Account) createWebhook(e webhooks.Endpoint, createdAt time.Time) (webhooks.Endpoint, error) {
	t := a.begin()
	defer t.end()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	b := make([]byte, 24) // as webhooks.NewSecret, from the seeded source when there is one
	_, _ = io.ReadFull(a.store.ids.Rand(), b)
	secret := webhooks.SecretPrefix + base64.StdEncoding.EncodeToString(b)
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
		_, rseq, _ := strings.Cut(r.ID, "_")
		if r.Enabled && rseq < seq && (slices.Contains(r.Events, e.Type) || slices.Contains(r.Events, webhooks.EventAll)) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// HasWebhooksLocked reports whether the account has any endpoint. It takes no lock: call it
// only where a.mu is held, as in the OnEvent hook, so events of accounts without endpoints
// are never queued.
func (a *Account) HasWebhooksLocked() bool { return a.data.Webhooks.len() > 0 }

// WebhookTarget is what a delivery needs: where to send and the secret to sign with.
type WebhookTarget struct {
	ID, URL, Secret string
	Enabled         bool
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
	return WebhookTarget{ID: r.ID, URL: r.URL, Secret: string(secret), Enabled: r.Enabled}, true
}

// NewEventID returns a fresh event id on the account's clock (for events that are not domain
// state changes, such as webhook.test).
func (a *Account) NewEventID() string { return a.newID("evt") }
