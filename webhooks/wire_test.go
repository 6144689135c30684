package webhooks_test

import (
	"context"
	"testing"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/wiretest"
	"github.com/medspa/medspa-go/webhooks"
)

const endpointJSON = `{"id":"` + wiretest.WebhookID + `","url":"https://hooks.example.com/medspa","events":["payment.succeeded"],` +
	`"description":"books","enabled":true,"createdAt":"2026-11-22T10:00:00Z","version":2}`

func isEndpoint(t *testing.T, got any) {
	t.Helper()
	e := got.(*webhooks.Endpoint)
	if e.ID != wiretest.WebhookID || e.URL != "https://hooks.example.com/medspa" || len(e.Events) != 1 || e.Events[0] != webhooks.EventPaymentSucceeded || !e.Enabled {
		t.Errorf("endpoint %+v", e)
	}
}

// TestWire holds every method of the webhooks service to the protocol (docs/protocol.md §3, §9
// "Webhooks and events"): exactly what it sends, and what it makes of the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	path := "/api/v1/webhooks"
	one := path + "/" + wiretest.WebhookID
	wiretest.Run(t, []wiretest.Case{{
		Name: "Create",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: "https://hooks.example.com/medspa",
				Events: []webhooks.EventType{webhooks.EventPaymentSucceeded}, Description: "books", Enabled: medspa.Ptr(false)})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: path, Body: `{"url":"https://hooks.example.com/medspa","events":["payment.succeeded"],` +
				`"description":"books","enabled":false}`},
			Status: 201, Answer: `{"id":"` + wiretest.WebhookID + `","url":"https://hooks.example.com/medspa","events":["payment.succeeded"],` +
				`"enabled":true,"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","createdAt":"2026-11-22T10:00:00Z"}`,
		},
		Check: func(t *testing.T, got any) {
			isEndpoint(t, got)
			if got.(*webhooks.Endpoint).Secret != "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" {
				t.Error("secret not decoded")
			}
		},
	}, {
		Name: "Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Get(ctx, wiretest.WebhookID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one}, Answer: endpointJSON},
		Check:    isEndpoint,
	}, {
		Name: "List",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.List(ctx, &webhooks.ListParams{ListOptions: client.ListOptions{PerPage: 100}})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: path, Query: "perPage=100"}, Answer: wiretest.Page(endpointJSON, 1, 1, 100)},
	}, {
		Name: "All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Webhooks.All(ctx, nil))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: path, Query: "page=1"}, Answer: wiretest.Page(`{"id":"whk_1"}`, 2, 1, 1)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: path, Query: "page=2"},
			Answer: wiretest.Page(`{"id":"whk_2"}`, 2, 2, 1)}},
		Check: wiretest.Yielded(2),
	}, {
		Name: "Delete",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			resp, err := c.Webhooks.Delete(ctx, wiretest.WebhookID)
			return nil, resp, err
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "DELETE", Path: one}, Status: 204},
	}, {
		Name: "Test sends no body",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Test(ctx, wiretest.WebhookID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: one + "/test"},
			Answer: `{"eventId":"` + wiretest.EventID + `","delivered":false,"statusCode":null,"durationMs":10000,"error":"timeout"}`},
		Check: func(t *testing.T, got any) {
			r := got.(*webhooks.TestResult)
			if r.EventID != wiretest.EventID || r.Delivered || r.StatusCode != nil || r.Error == nil || *r.Error != "timeout" {
				t.Errorf("result %+v", r)
			}
		},
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"Create a malformed event type": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: "https://hooks.example.com/x", Events: []webhooks.EventType{"Patient Created"}})
			return err
		},
		"Get empty id":    func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Webhooks.Get(ctx, ""); return err },
		"Delete empty id": func(ctx context.Context, c *medspa.Client) error { _, err := c.Webhooks.Delete(ctx, ""); return err },
		"Delete dot-dot":  func(ctx context.Context, c *medspa.Client) error { _, err := c.Webhooks.Delete(ctx, ".."); return err },
		"Test empty id":   func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Webhooks.Test(ctx, ""); return err },
		"Test a query": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.Test(ctx, "whk_1?x")
			return err
		},
		"Create nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.Create(ctx, nil)
			return err
		},
	})
}
