package httpapi

import (
	"net/http"
	"slices"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/webhooks"
)

func (a *API) webhookRoutes() []route {
	return []route{
		{http.MethodGet, "/api/v1/webhooks", "webhooks:read", a.listWebhooks},
		{http.MethodPost, "/api/v1/webhooks", "webhooks:write", a.createWebhook},
		{http.MethodGet, "/api/v1/webhooks/{id}", "webhooks:read", a.getWebhook},
		{http.MethodDelete, "/api/v1/webhooks/{id}", "webhooks:write", a.deleteWebhook},
		{http.MethodPost, "/api/v1/webhooks/{id}/test", "webhooks:write", a.testWebhook},
	}
}

func (a *API) createWebhook(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	f.allow("url", "events", "description", "enabled")
	var e webhooks.Endpoint
	if u, p := f.str("url", true, 1, 0); p == present {
		if code, detail := a.opts.Webhooks.CheckURL(rq.Context(), u); code != "" {
			f.fail("url", code, detail)
		}
		e.URL = u
	}
	e.Events = readEvents(f)
	e.Description, _ = f.str("description", false, 0, 500)
	e.Enabled = true
	if v, p := f.boolean("enabled"); p == present {
		e.Enabled = v
	}
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	out, err := rq.acct.CreateWebhook(e, rq.backdate)
	return created, out, err
}

// readEvents validates the events list: known types without duplicates, or "*" alone.
func readEvents(f *form) []webhooks.EventType {
	list, p := f.strings("events", 32, 64)
	switch p {
	case absent, null:
		f.fail("events", "required", "is required")
		return nil
	case invalid:
		return nil
	}
	if len(list) == 0 {
		f.fail("events", "too_short", "must list at least one event type")
		return nil
	}
	items := &form{prefix: f.pointer("events"), errs: f.errs}
	out := make([]webhooks.EventType, 0, len(list))
	for i, s := range list {
		t := webhooks.EventType(s)
		switch {
		case !t.Valid():
			items.fail(itoa(i), "invalid_value", "must be a known event type or \"*\"")
		case slices.Contains(out, t):
			items.fail(itoa(i), "invalid_value", "is listed twice")
		case t == webhooks.EventAll && len(list) > 1:
			items.fail(itoa(i), "invalid_value", "\"*\" must be the only entry")
		}
		out = append(out, t)
	}
	return out
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
	q := rq.parseQuery("page", "perPage")
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
	return ok, a.opts.Webhooks.Test(rq.Context(), rq.acct, t), nil
}
