package client

import (
	"context"
	"iter"
	"net/http"
	"strconv"
)

// ListOptions are the paging parameters every list accepts; area ListParams embed it.
type ListOptions struct {
	// Page is the 1-based page number (default 1).
	Page int `url:"page,omitempty"`
	// PerPage is the page size, 1–100 (default 25).
	PerPage int `url:"perPage,omitempty"`
}

// Meta is the paging information of a list answer.
type Meta struct {
	// Total is the number of records matching the filters.
	Total int `json:"total"`
	// Page is the 1-based page number of this answer.
	Page int `json:"page"`
	// PerPage is the page size.
	PerPage int `json:"perPage"`
}

// Page is one page of a list: the records and the paging information.
type Page[T any] struct {
	Data []T  `json:"data"`
	Meta Meta `json:"meta"`
}

// HasMore reports whether pages follow this one.
func (p *Page[T]) HasMore() bool {
	return len(p.Data) > 0 && p.Meta.Page*p.Meta.PerPage < p.Meta.Total
}

// List fetches one page of the list at path with the given params (see EncodeQuery).
func List[T any](ctx context.Context, c *Client, path string, params any, opts ...Option) (*Page[T], error) {
	var p Page[T]
	if err := c.Do(ctx, http.MethodGet, path, params, &p, opts...); err != nil {
		return nil, err
	}
	return &p, nil
}

// All walks every record of the list at path, fetching pages lazily from params' page (default
// 1) as the loop advances. It stops after the last page (by meta.total), on an empty page, on the
// first error (yielded once, with the zero T), or when the caller breaks; it starts no goroutine.
// Only one page is held in memory at a time.
func All[T any](ctx context.Context, c *Client, path string, params any, opts ...Option) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		q, err := EncodeQuery(params)
		if err != nil {
			yield(zero, err)
			return
		}
		page := 1
		if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
			page = n
		}
		for {
			q.Set("page", strconv.Itoa(page))
			p, err := List[T](ctx, c, path, q, opts...)
			if err != nil {
				yield(zero, err)
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
			page++
		}
	}
}
