package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// routes is every /api/v1 endpoint, area by area.
func (a *API) routes() []route {
	var rs []route
	rs = append(rs, a.patientRoutes()...)
	rs = append(rs, a.appointmentRoutes()...)
	rs = append(rs, a.billingRoutes()...)
	rs = append(rs, a.inventoryRoutes()...)
	rs = append(rs, a.webhookRoutes()...)
	rs = append(rs, a.reportRoutes()...)
	return rs
}

// listAnswer is the list envelope of docs/protocol.md §3.
type listAnswer[T any] struct {
	Data []T       `json:"data"`
	Meta wire.Meta `json:"meta"`
}

func list[T any](items []T, total int, w store.Window) listAnswer[T] {
	if items == nil {
		items = []T{}
	}
	return listAnswer[T]{Data: items, Meta: wire.Meta{Total: total, Page: w.Page, PerPage: w.PerPage}}
}

// pathID returns the {id} path value when it has the prefix's shape; a malformed id is a 404.
func (rq *request) pathID(prefix, what string) (string, error) {
	id := rq.PathValue("id")
	if !wire.IsID(id, prefix) {
		return "", problem.NotFound(what)
	}
	return id, nil
}

// created and ok are the usual successful statuses.
const (
	created = http.StatusCreated
	ok      = http.StatusOK
)
