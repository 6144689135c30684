package webhooks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/wiretest"
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
	rotate := one + "/rotate-secret"
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
	}, {
		Name: "Update sends only what changes, null clears",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Update(ctx, wiretest.WebhookID, &webhooks.UpdateParams{URL: "https://hooks.example.com/medspa",
				Events: []webhooks.EventType{webhooks.EventPaymentSucceeded}, Description: medspa.Null[string](), Enabled: medspa.Set(true)})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one,
			Body: `{"url":"https://hooks.example.com/medspa","events":["payment.succeeded"],"description":null,"enabled":true}`}, Answer: endpointJSON},
		Check: isEndpoint,
	}, {
		Name: "Update of one field",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Update(ctx, wiretest.WebhookID, &webhooks.UpdateParams{Enabled: medspa.Set(false)})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{"enabled":false}`}, Answer: endpointJSON},
	}, {
		Name: "Update resets enabled with null, sends an empty event list as written",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Update(ctx, wiretest.WebhookID, &webhooks.UpdateParams{Events: []webhooks.EventType{}, Enabled: medspa.Null[bool]()})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{"events":[],"enabled":null}`},
			Status: 422, Answer: `{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,` +
				`"code":"validation_error","errors":[{"pointer":"/events","code":"too_short","detail":"must not be empty"}]}`},
		Err: func(t *testing.T, err error) {
			var e *medspa.Error
			if !errors.Is(err, medspa.ErrValidation) || !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Pointer != "/events" {
				t.Errorf("err %v", err)
			}
		},
	}, {
		Name: "Update with nothing to change sends {}",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.Update(ctx, wiretest.WebhookID, &webhooks.UpdateParams{})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{}`}, Answer: endpointJSON},
	}, {
		Name: "RotateSecret with an overlap",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(90 * time.Minute)})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: rotate, Body: `{"expiresInSeconds":5400}`},
			Answer: `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","previousSecretExpiresAt":"2026-11-22T15:33:00Z","rotations":2}`},
		Check: wiretest.Equal(&webhooks.SecretRotation{Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
			PreviousSecretExpiresAt: medspa.Ptr(time.Date(2026, 11, 22, 15, 33, 0, 0, time.UTC))}),
	}, {
		Name: "RotateSecret retiring the previous secret at once",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Duration(0))})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: rotate, Body: `{"expiresInSeconds":0}`},
			Answer: `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","previousSecretExpiresAt":null}`},
		Check: wiretest.Equal(&webhooks.SecretRotation{Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}),
	}, {
		Name: "RotateSecret without params is a bare POST",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: rotate},
			Answer: `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","previousSecretExpiresAt":"2026-11-23T14:03:00Z"}`},
	}, {
		Name: "RotateSecret with the server's default window sends {}",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, &webhooks.RotateSecretParams{})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: rotate, Body: `{}`},
			Answer: `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","previousSecretExpiresAt":"2026-11-23T14:03:00Z"}`},
	}, {
		// Out of range goes to the server, which names the field.
		Name: "RotateSecret beyond a week",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(8 * 24 * time.Hour)})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: rotate, Body: `{"expiresInSeconds":691200}`},
			Status: 422, Answer: `{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,` +
				`"code":"validation_error","errors":[{"pointer":"/expiresInSeconds","code":"out_of_range","detail":"0 to 604800"}]}`},
		Err: func(t *testing.T, err error) {
			var e *medspa.Error
			if !errors.Is(err, medspa.ErrValidation) || !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Pointer != "/expiresInSeconds" {
				t.Errorf("err %v", err)
			}
		},
	}, {
		// A hostile answer: the secret must not reach the error message.
		Name: "RotateSecret with a malformed expiry",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: rotate},
			Answer: `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","previousSecretExpiresAt":"tomorrow"}`},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "whsec_", "MfKQ9r8", "tomorrow") },
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"Update empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.Update(ctx, "", &webhooks.UpdateParams{Enabled: medspa.Set(true)})
			return err
		},
		"Update nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.Update(ctx, wiretest.WebhookID, nil)
			return err
		},
		"Update a malformed event type": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.Update(ctx, wiretest.WebhookID, &webhooks.UpdateParams{Events: []webhooks.EventType{webhooks.EventAll, "Refund!"}})
			return err
		},
		"RotateSecret empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.RotateSecret(ctx, "", nil)
			return err
		},
		"RotateSecret dot": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.RotateSecret(ctx, ".", nil)
			return err
		},
		"RotateSecret a fraction of a second": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Webhooks.RotateSecret(ctx, wiretest.WebhookID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(1500 * time.Millisecond)})
			return err
		},
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
