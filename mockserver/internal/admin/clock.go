package admin

import (
	"net/http"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// ClockControl is the server's clock surface (the mockserver package's Go methods): account ""
// is the server-wide clock.
type ClockControl interface {
	Now(account string) time.Time
	Frozen(account string) bool
	SetTime(account string, t time.Time)
	AdvanceTime(account string, d time.Duration)
	RealTime(account string)
}

// clockAnswer is the body of GET and POST /__admin/clock.
type clockAnswer struct {
	Now    time.Time `json:"now"`
	Frozen bool      `json:"frozen"`
}

// clockRoutes are GET and POST /__admin/clock.
func (s *Surface) clockRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/clock", handle: s.getClock},
		{method: http.MethodPost, pattern: "/__admin/clock", handle: s.setClock},
	}
}

func (s *Surface) clockAnswer(account string) clockAnswer {
	return clockAnswer{Now: wire.Time(s.opts.Clock.Now(account)), Frozen: s.opts.Clock.Frozen(account)}
}

func (s *Surface) getClock(rq *request) (int, any, error) {
	if s.opts.Clock == nil {
		return 0, nil, problem.NotFound("admin route")
	}
	account := rq.URL.Query().Get("account")
	if _, ok := s.store.LookupAccount(account); !ok && account != "" {
		return 0, nil, problem.NotFound("account")
	}
	return http.StatusOK, s.clockAnswer(account), nil
}

func (s *Surface) setClock(rq *request) (int, any, error) {
	if s.opts.Clock == nil {
		return 0, nil, problem.NotFound("admin route")
	}
	var p struct {
		Account string     `json:"account"`
		Now     *time.Time `json:"now"`
		Advance *string    `json:"advance"`
		Real    *bool      `json:"real"`
	}
	if err := decodeAdmin(rq, &p); err != nil {
		return 0, nil, err
	}
	if _, ok := s.store.LookupAccount(p.Account); !ok && p.Account != "" {
		return 0, nil, problem.Field("/account", "not_found", "no such account")
	}
	n := 0
	for _, set := range []bool{p.Now != nil, p.Advance != nil, p.Real != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return 0, nil, problem.Field("/now", "required", "exactly one of now, advance or real is required")
	}
	switch {
	case p.Now != nil:
		s.opts.Clock.SetTime(p.Account, *p.Now)
	case p.Advance != nil:
		d, err := time.ParseDuration(*p.Advance)
		if err != nil || d < 0 {
			return 0, nil, problem.Field("/advance", "invalid_format", "must be a non-negative Go duration such as 90m")
		}
		s.opts.Clock.AdvanceTime(p.Account, d)
	default:
		if !*p.Real {
			return 0, nil, problem.Field("/real", "invalid_value", "must be true")
		}
		s.opts.Clock.RealTime(p.Account)
	}
	return http.StatusOK, s.clockAnswer(p.Account), nil
}
