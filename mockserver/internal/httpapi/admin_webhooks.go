package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// adminWebhookRoutes are GET /__admin/deliveries.
func (a *API) adminWebhookRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/deliveries", handle: func(rq *request) (int, any, error) {
			ds := a.opts.Webhooks.Deliveries(rq.URL.Query().Get("account"))
			if ds == nil {
				ds = []webhook.Delivery{}
			}
			return ok, map[string]any{"deliveries": ds}, nil
		}},
	}
}
