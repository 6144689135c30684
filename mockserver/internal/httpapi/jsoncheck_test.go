package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// The byte scan for valid JSON answers as the token walk does.
func TestCheckValidJSONMatchesTokens(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	tooDeep := strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1)
	for _, in := range []string{
		`{}`, `[]`, `"s"`, `1`, `null`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":"x","b":"a"}`, `{"a":"b","b":1}`,
		`{"a":{"a":1},"b":[{"a":1,"a":2}]}`, `{"a":[1,2,{"x":"y"}],"a":0}`, `{"\u0061":1,"a":2}`, `{"a\"b":1,"a\"b":2}`,
		`{"a\\":1,"b":"\\"}`, `{"x":true,"y":false,"x":null}`, `{"k":[],"l":{},"k":1}`, ` { "a" : 1 , "b" : { } } `,
		`{"a":"}","b":"{"}`, `{"a":",","a":1}`, `[{"a":1},{"a":1}]`, deep, tooDeep, `{"a":` + tooDeep + `}`,
		`{"a":1,"a":` + tooDeep + `}`, `{"a":` + tooDeep + `,"a":1}`,
	} {
		if !json.Valid([]byte(in)) {
			t.Fatalf("test input %s is not valid JSON", in)
		}
		want, got := checkJSONTokens([]byte(in)), checkValidJSON([]byte(in))
		if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
			t.Errorf("%.60s: scan says %v, tokens say %v", in, got, want)
		}
	}
}

func FuzzCheckValidJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"d","c":0}]}}`, `{"\u0061":1,"a":2}`, `[[[]]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		want, got := checkJSONTokens([]byte(in)), checkValidJSON([]byte(in))
		if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
			t.Errorf("%q: scan says %v, tokens say %v", in, got, want)
		}
	})
}
