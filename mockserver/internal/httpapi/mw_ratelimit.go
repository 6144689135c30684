package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// rateLimits are the credentials' token buckets and daily quotas.
type rateLimits struct{ byCredential sync.Map } // credential id → *limitState

// limitState is one credential's token bucket and daily quota (docs/protocol.md §7), both evaluated on the
// account's clock: the bucket is golang.org/x/time/rate driven with explicit times.
type limitState struct {
	mu      sync.Mutex
	account string // whose clock the sweep reads
	dead    bool   // dropped by the sweep: take looks the credential up again
	plan    auth.Plan
	lim     *rate.Limiter
	day     time.Time // UTC midnight starting the counted day
	used    int       // requests admitted that day
	// policy and limit are the constant header values of the plan, made once: a fenced
	// optimisation kept by BenchmarkFenceRateLimitHeaders (BENCHMARKS.md).
	policy, limit []string
}

// constantHeaders are the RateLimit-Policy and X-RateLimit-Limit values of a plan.
func constantHeaders(plan auth.Plan) (policy, limit []string) {
	refill := int64(math.Ceil(float64(plan.Burst) / (plan.RatePerMinute / 60)))
	p := `"burst";q=` + itoa(plan.Burst) + `;w=` + strconv.FormatInt(refill, 10)
	if plan.Daily > 0 {
		p += `, "daily";q=` + itoa(plan.Daily) + `;w=86400`
	}
	return []string{p}, []string{itoa(plan.Burst)}
}

func (l *rateLimits) limitFor(c *auth.Credential) *limitState {
	if v, ok := l.byCredential.Load(c.ID); ok {
		return v.(*limitState)
	}
	plan := c.Plan
	st := &limitState{account: c.Account, plan: plan, lim: rate.NewLimiter(rate.Limit(plan.RatePerMinute/60), plan.Burst)}
	st.policy, st.limit = constantHeaders(plan)
	v, _ := l.byCredential.LoadOrStore(c.ID, st)
	return v.(*limitState)
}

// ceilSeconds rounds d up to whole seconds.
func ceilSeconds(d time.Duration) int64 {
	return int64(math.Ceil(d.Seconds()))
}

// rateLimit takes a token from the credential's bucket and a unit of its daily quota
// (docs/protocol.md §7) and sets the rate-limit headers, on every answer from here on, errors
// included. Over a limit it answers 429; a refused request consumes nothing.
func (a *API) rateLimit(rq *request) *answer {
	if p := a.buckets.take(rq); p != nil {
		return rq.problem(p)
	}
	return nil
}

// take takes a token and a unit of quota for rq's credential, sets the headers, and returns the
// 429 problem when either is spent.
func (l *rateLimits) take(rq *request) *problem.Problem {
	now := rq.accountNow()
	st := l.limitFor(rq.cred)
	st.mu.Lock()
	for st.dead { // swept while at rest: a fresh state is the same state
		st.mu.Unlock()
		st = l.limitFor(rq.cred)
		st.mu.Lock()
	}
	defer st.mu.Unlock()
	plan := st.plan
	day := now.UTC().Truncate(24 * time.Hour) // the zero time is a UTC midnight
	if !day.Equal(st.day) {
		st.day, st.used = day, 0
	}
	toMidnight := day.Add(24 * time.Hour).Sub(now)
	perSecond := plan.RatePerMinute / 60

	var p *problem.Problem
	switch {
	case plan.Daily > 0 && st.used >= plan.Daily:
		p = problem.New("quota_exceeded", "the daily request quota is spent").
			WithHeader("Retry-After", strconv.FormatInt(max(ceilSeconds(toMidnight), 1), 10))
	case !st.lim.AllowN(now, 1):
		need := 1 - st.lim.TokensAt(now)
		wait := max(int64(math.Ceil(need/perSecond)), 1)
		p = problem.New("rate_limited", "the rate limit is exceeded").
			WithHeader("Retry-After", strconv.FormatInt(wait, 10))
	default:
		st.used++
	}

	tokens := max(st.lim.TokensAt(now), 0)
	full := int64(math.Ceil((float64(plan.Burst) - tokens) / perSecond))
	setLimitHeaders(rq.header, st, limitValues{
		remaining: int64(math.Floor(tokens)), full: full, dailyLeft: int64(max(plan.Daily-st.used, 0)),
		toMidnight: ceilSeconds(toMidnight), reset: now.Unix() + full,
	})
	return p
}

// limitValues are the changing numbers of a request's rate-limit headers.
type limitValues struct {
	remaining, full       int64 // whole tokens left; seconds until the bucket is full
	dailyLeft, toMidnight int64 // requests left today; seconds to the next UTC midnight
	reset                 int64 // Unix time the bucket is full again
}

// setLimitHeaders sets the rate-limit headers (docs/protocol.md §7). The three changing values
// are made in one buffer and one string, and their header slices share vals (the request's):
// one allocation rather than six; the constant ones are the state's, made once. A fenced
// optimisation kept by BenchmarkFenceRateLimitHeaders (BENCHMARKS.md).
func setLimitHeaders(h http.Header, st *limitState, v limitValues) {
	var buf [160]byte
	const burst = `"burst";r=`
	b := append(buf[:0], burst...)
	b = strconv.AppendInt(b, v.remaining, 10)
	endRemaining := len(b)
	b = append(b, `;t=`...)
	b = strconv.AppendInt(b, v.full, 10)
	if st.plan.Daily > 0 {
		b = append(b, `, "daily";r=`...)
		b = strconv.AppendInt(b, v.dailyLeft, 10)
		b = append(b, `;t=`...)
		b = strconv.AppendInt(b, v.toMidnight, 10)
	}
	endState := len(b)
	b = strconv.AppendInt(b, v.reset, 10)
	all := string(b)
	vals := [3]string{all[:endState], all[len(burst):endRemaining], all[endState:]}
	// Canonical keys assigned directly: no canonicalization.
	h["Ratelimit-Policy"] = st.policy
	h["Ratelimit"] = vals[0:1:1]
	h["X-Ratelimit-Limit"] = st.limit
	h["X-Ratelimit-Remaining"] = vals[1:2:2]
	h["X-Ratelimit-Reset"] = vals[2:3:3]
}

// sweep drops the states that hold nothing a fresh one would not: a full bucket, and no request
// counted today (on the credential's account clock); and every state of a credential that no
// longer exists. So the states of idle and deleted credentials leave memory.
func (l *rateLimits) sweep(now func(account string) time.Time, exists func(credentialID string) bool) {
	l.byCredential.Range(func(k, v any) bool {
		st := v.(*limitState)
		st.mu.Lock()
		t := now(st.account)
		rest := st.lim.TokensAt(t) >= float64(st.plan.Burst) && (st.used == 0 || !t.UTC().Truncate(24*time.Hour).Equal(st.day))
		if rest || !exists(k.(string)) {
			st.dead = true
			l.byCredential.CompareAndDelete(k, v)
		}
		st.mu.Unlock()
		return true
	})
}
