package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"

	"github.com/medspa/medspa-go/internal/wire"
)

// ListOptions are the paging parameters every list accepts; area ListParams embed it.
type ListOptions struct {
	// Page is the 1-based page number (default 1).
	Page int `url:"page,omitempty"`
	// PerPage is the page size, 1–100 (default 25).
	PerPage int `url:"perPage,omitempty"`
}

// Meta is the paging information of a list answer; users see it as medspa.Meta:
//
//	Total   int // the number of records matching the filters
//	Page    int // the 1-based page number of this answer
//	PerPage int // the page size
type Meta = wire.Meta

// Page is one page of a list: the records and the paging information.
type Page[T any] struct {
	Data []T  `json:"data"`
	Meta Meta `json:"meta"`
}

// HasMore reports whether pages follow this one.
func (p *Page[T]) HasMore() bool {
	return len(p.Data) > 0 && p.Meta.Page*p.Meta.PerPage < p.Meta.Total
}

// ErrPagination ends an All iteration (wrapped) when the server's pages cannot be walked to
// their end: a page that repeats the previous one (the same ids), an empty page before the
// total is reached, or more pages than WithMaxPages allows.
var ErrPagination = errors.New("medspa: list pages inconsistent")

// List fetches one page of the list at route with the given params (see EncodeQuery), and the
// *Response as Engine.Do.
func List[T any](ctx context.Context, e *Engine, route Route, params any, opts ...RequestOption) (*Page[T], *Response, error) {
	return Call[Page[T]](ctx, e, http.MethodGet, route, params, opts...)
}

// All walks every record of the list at route, fetching pages lazily from params' page
// (default 1) as the loop advances. It stops after the last page (by meta.total), on the first
// error (yielded once, with the zero T), or when the caller breaks; it starts no goroutine and
// holds one page in memory. It does not trust the server to end the walk: a repeated page, an
// empty page before the total, or more than WithMaxPages pages end it with ErrPagination.
func All[T any](ctx context.Context, e *Engine, route Route, params any, opts ...RequestOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if err := checkParams(params); err != nil {
			yield(zero, err)
			return
		}
		q, err := EncodeQuery(params)
		if err != nil {
			yield(zero, err)
			return
		}
		page := 1
		if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
			page = n
		}
		maxPages := e.configured(opts).maxPages
		var previous []string
		for fetched := 0; ; fetched++ {
			if fetched == maxPages {
				yield(zero, fmt.Errorf("%w: GET %s: more than %d pages", ErrPagination, route.path, maxPages))
				return
			}
			q.Set("page", strconv.Itoa(page))
			var p listPage[T]
			if _, err := e.Do(ctx, http.MethodGet, route, q, &p, opts...); err != nil {
				yield(zero, err)
				return
			}
			switch {
			case len(p.Data) == 0 && (page-1)*p.Meta.PerPage < p.Meta.Total:
				yield(zero, fmt.Errorf("%w: GET %s: page %d is empty, before the total of %d", ErrPagination, route.path, page, p.Meta.Total))
				return
			case len(p.Data) > 0 && slices.Equal(p.ids, previous):
				yield(zero, fmt.Errorf("%w: GET %s: page %d repeats page %d", ErrPagination, route.path, page, page-1))
				return
			}
			for _, item := range p.Data {
				if !yield(item, nil) {
					return
				}
			}
			if !p.HasMore() {
				return
			}
			previous = p.ids
			page++
		}
	}
}

// listPage is a page as All reads it: the records, and their ids to tell a repeated page.
type listPage[T any] struct {
	Page[T]
	ids []string
}

func (p *listPage[T]) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &p.Page); err != nil {
		return err
	}
	var ids struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &ids); err != nil {
		return err
	}
	p.ids = make([]string, len(ids.Data))
	for i, d := range ids.Data {
		p.ids[i] = d.ID
	}
	return nil
}
