package httpsig

import (
	"errors"
	"testing"
)

func TestParseDictionary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // canonical serialization; "" with err
		err  bool
	}{
		{in: ``, want: ``},
		{in: `a=1`, want: `a=1`},
		{in: `a=1, b=2`, want: `a=1, b=2`},
		{in: `a=1,b=2`, want: `a=1, b=2`},
		{in: "a=1 ,\t b=2", want: `a=1, b=2`},
		{in: `a`, want: `a`},
		{in: `a;x=1`, want: `a;x=1`},
		{in: `a=?0`, want: `a=?0`},
		{in: `a=?1`, want: `a`},
		{in: `a=-42`, want: `a=-42`},
		{in: `a=999999999999999`, want: `a=999999999999999`},
		{in: `a=1.50`, want: `a=1.5`},
		{in: `a=-0.001`, want: `a=-0.001`},
		{in: `a=3.0`, want: `a=3.0`},
		{in: `a="x\"y\\z"`, want: `a="x\"y\\z"`},
		{in: `a=tok/en:1`, want: `a=tok/en:1`},
		{in: `a=*tok`, want: `a=*tok`},
		{in: `a=::`, want: `a=::`},
		{in: `a=:AQID:`, want: `a=:AQID:`},
		{in: `a=()`, want: `a=()`},
		{in: `a=( "x"  "y";req )`, want: `a=("x" "y";req)`},
		{in: `sig1=("@method" "@target-uri";req);created=1;keyid="k"`, want: `sig1=("@method" "@target-uri";req);created=1;keyid="k"`},
		{in: `a=1;  b=2`, want: `a=1;b=2`},
		{in: `*a.b_c-d=1`, want: `*a.b_c-d=1`},
		{in: `a=1,`, err: true},
		{in: `,a=1`, err: true},
		{in: `a=1,,b=2`, err: true},
		{in: `a=1 b=2`, err: true},
		{in: `A=1`, err: true},
		{in: `1a=1`, err: true},
		{in: `a=`, err: true},
		{in: `a=1, a=2`, err: true},
		{in: `a=1;x;x`, err: true},
		{in: `a=1000000000000000`, err: true},
		{in: `a=1.`, err: true},
		{in: `a=1.1234`, err: true},
		{in: `a=1234567890123.1`, err: true},
		{in: `a=-`, err: true},
		{in: `a="unterminated`, err: true},
		{in: `a="bad\escape"`, err: true},
		{in: "a=\"tab\there\"", err: true},
		{in: "a=\"\xff\"", err: true},
		{in: `a=:AQID`, err: true},
		{in: `a=:A:`, err: true},
		{in: `a=:AQ==:`, want: `a=:AQ==:`},
		{in: `a=:AQ:`, err: true}, // unpadded base64 is refused
		{in: `a=?2`, err: true},
		{in: `a=?`, err: true},
		{in: `a=("x"`, err: true},
		{in: `a=("x""y")`, err: true},
		{in: `a=(("x"))`, err: true},
		{in: `a=@`, err: true},
		{in: `a=1;`, err: true},
		{in: `a=1;X=1`, err: true},
	}
	for _, tt := range tests {
		d, err := parseDictionary(tt.in)
		if tt.err {
			if err == nil || !errors.Is(err, ErrMalformed) {
				t.Errorf("parseDictionary(%q) = %v, %v; want ErrMalformed", tt.in, d, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseDictionary(%q): %v", tt.in, err)
			continue
		}
		got, err := serializeDictionary(d)
		if err != nil || got != tt.want {
			t.Errorf("serialize(parse(%q)) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDictionaryLimits(t *testing.T) {
	t.Parallel()
	many := func(n int, item string, sep string) string {
		s := ""
		for i := range n {
			if i > 0 {
				s += sep
			}
			s += item
		}
		return s
	}
	members := func(n int) string {
		s := ""
		for i := range n {
			if i > 0 {
				s += ", "
			}
			s += "k" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + "=1"
		}
		return s
	}
	params := func(n int) string {
		s := "a=1"
		for i := range n {
			s += ";p" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		}
		return s
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{members(maxMembers), true},
		{members(maxMembers + 1), false},
		{"a=(" + many(maxInnerItems, `"x"`, " ") + ")", true},
		{"a=(" + many(maxInnerItems+1, `"x"`, " ") + ")", false},
		{params(maxParams), true},
		{params(maxParams + 1), false},
		{"a" + many(maxKeyLen-1, "b", "") + "=1", true},
		{"a" + many(maxKeyLen, "b", "") + "=1", false},
	} {
		_, err := parseDictionary(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("parseDictionary(%.40q…, len %d) err = %v, want ok=%v", tc.in, len(tc.in), err, tc.ok)
		}
	}
}
