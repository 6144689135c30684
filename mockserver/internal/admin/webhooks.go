package admin

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// webhookRoutes are GET /__admin/deliveries.
func (s *Surface) webhookRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/deliveries", handle: func(rq *request) (int, any, error) {
			ds := s.hooks.Deliveries(rq.URL.Query().Get("account"))
			if ds == nil {
				ds = []webhook.Delivery{}
			}
			return http.StatusOK, map[string]any{"deliveries": ds}, nil
		}},
	}
}
