package httpapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
)

// Tests that tie fenced optimisations (fences_bench_test.go) to the plain code they replace.

// TestLimitHeadersMatchPlain ties the fenced setLimitHeaders to the plain formatting it
// replaces: the same header values for every shape of plan and count.
func TestLimitHeadersMatchPlain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		plan auth.Plan
		v    limitValues
	}{
		{"daily", auth.Plan{RatePerMinute: 60, Burst: 100, Daily: 10_000}, limitValues{57, 43, 9_950, 41_200, 1_763_820_183}},
		{"no daily", auth.Plan{RatePerMinute: 1_000, Burst: 2_000}, limitValues{0, 120, 0, 5, 1}},
		{"huge", auth.Plan{RatePerMinute: 1e9, Burst: 1e9, Daily: 1e9}, limitValues{999_999_999, 1, 999_999_999, 86_400, 1_795_629_126}},
		{"spent", auth.Plan{RatePerMinute: 60, Burst: 1, Daily: 1}, limitValues{0, 1, 0, 1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := &limitState{plan: c.plan}
			st.policy, st.limit = constantHeaders(c.plan)
			fast, plain := http.Header{}, http.Header{}
			setLimitHeaders(fast, st, c.v)
			plainLimitHeaders(plain, c.plan, c.v)
			if diff := cmp.Diff(plain, fast); diff != "" {
				t.Errorf("headers differ (-plain +fast):\n%s", diff)
			}
		})
	}
}
