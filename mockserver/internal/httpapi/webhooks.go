package httpapi

import (
	"net/http"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

var (
	webhookFields  = []string{"url", "events", "description", "enabled"}
	rotationFields = []string{"expiresInSeconds"}
)

// decodeWebhook reads a webhook endpoint body (create or merge patch).
func decodeWebhook(f *form) store.WebhookInput {
	return store.WebhookInput{
		Members: f.members(webhookFields...),
		URL:     f.str("url"), Events: f.strs("events"), Description: f.str("description"), Enabled: f.boolean("enabled"),
	}
}

func (a *API) createWebhook(rq *request) (int, any, error) {
	f, err := rq.form()
	if err != nil {
		return 0, nil, err
	}
	out, err := rq.acct.CreateWebhook(rq.Context(), decodeWebhook(f), time.Time{})
	return created, out, err
}

// updateWebhook applies a merge patch; an endpoint it leaves disabled loses its pending
// deliveries, as one disabled by a 410 does (enabling it again replays nothing).
func (a *API) updateWebhook(rq *request) (int, any, error) {
	id, err := rq.pathID("whk", "webhook")
	if err != nil {
		return 0, nil, err
	}
	f, err := rq.form()
	if err != nil {
		return 0, nil, err
	}
	e, err := rq.acct.UpdateWebhook(rq.Context(), id, decodeWebhook(f))
	if err == nil && !e.Enabled {
		a.opts.Webhooks.Drop(id)
	}
	return ok, e, err
}

func (a *API) rotateWebhookSecret(rq *request) (int, any, error) {
	id, err := rq.pathID("whk", "webhook")
	if err != nil {
		return 0, nil, err
	}
	in, err := optionalBody(rq, func(f *form) store.SecretRotateInput {
		return store.SecretRotateInput{Members: f.members(rotationFields...), ExpiresInSeconds: f.number("expiresInSeconds")}
	})
	if err != nil {
		return 0, nil, err
	}
	out, err := rq.acct.RotateWebhookSecret(id, in)
	return ok, out, err
}

func (a *API) getWebhook(rq *request) (int, any, error) {
	id, err := rq.pathID("whk", "webhook")
	if err != nil {
		return 0, nil, err
	}
	e, err := rq.acct.GetWebhook(id)
	return ok, e, err
}

func (a *API) listWebhooks(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(false)
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total := rq.acct.ListWebhooks(w)
	return ok, list(items, total, w), nil
}

func (a *API) deleteWebhook(rq *request) (int, any, error) {
	id, err := rq.pathID("whk", "webhook")
	if err != nil {
		return 0, nil, err
	}
	if err := rq.acct.DeleteWebhook(id); err != nil {
		return 0, nil, err
	}
	a.opts.Webhooks.Drop(id)
	return http.StatusNoContent, nil, nil
}

func (a *API) testWebhook(rq *request) (int, any, error) {
	id, err := rq.pathID("whk", "webhook")
	if err != nil {
		return 0, nil, err
	}
	t, found := rq.acct.WebhookTarget(id)
	if !found {
		return 0, nil, problem.NotFound("webhook")
	}
	// The account's own handle, not the request's session: the dispatcher may act on it later.
	return ok, a.opts.Webhooks.Test(rq.Context(), a.store.Account(rq.acct.ID), t), nil
}
