package jsonx

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// Each appender writes exactly what encoding/json writes for the same value.
func TestStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain", "with space", `quote " inside`, `back\slash`, "<script>&amp;", "tab\tnew\nline\r",
		"\x00\x01\x1f\x7f", "Zoë 🙂", "\u2028\u2029", "bad utf-8 \xff\xfe", "\xed\xa0\x80", "~/path", "'single'",
	} {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
		if got := String([]byte("prefix"), s); string(got) != "prefix"+string(want) {
			t.Errorf("String appends: %s", got)
		}
	}
}

func TestStrings(t *testing.T) {
	t.Parallel()
	for _, ss := range [][]string{nil, {}, {"a"}, {"a", "<b>", "\n"}} {
		want, _ := json.Marshal(ss)
		if ss == nil {
			want = []byte("[]") // nil writes as an empty array: the encoders only call it for non-empty lists
		}
		if got := Strings(nil, ss); string(got) != string(want) {
			t.Errorf("Strings(%q) = %s, want %s", ss, got, want)
		}
	}
}

func TestTimeMatchesMarshalJSON(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	for _, tm := range []time.Time{
		base, base.Add(500 * time.Millisecond), base.Add(time.Nanosecond), base.In(time.FixedZone("x", -5*3600+1800)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		want, _ := tm.MarshalJSON()
		if got := Time(nil, tm); string(got) != string(want) {
			t.Errorf("Time(%v) = %s, want %s", tm, got, want)
		}
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64} {
		want, _ := json.Marshal(n)
		if got := Int(nil, n); string(got) != string(want) {
			t.Errorf("Int(%d) = %s, want %s", n, got, want)
		}
	}
}

// Field puts a comma before every member but an object's first.
func TestField(t *testing.T) {
	t.Parallel()
	b := append([]byte(nil), '{')
	b = Int(Field(b, "a"), 1)
	b = String(Field(b, "b"), "x")
	b = append(Field(append(Field(b, "c"), '{'), "d"), "null}"...)
	b = append(b, '}')
	if want := `{"a":1,"b":"x","c":{"d":null}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if !json.Valid(b) {
		t.Error("not valid JSON")
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a", "\xff", "<&>", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	})
}

// plainString is String without its table: the comparisons it replaces.
func plainString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Every byte takes the same path with the table as with the comparisons.
func TestStringTableMatchesComparisons(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		s := "a" + string(rune(c))[:1] + "z"
		if c >= 0x80 {
			s = "a" + string([]byte{byte(c)}) + "z"
		}
		if got, want := String(nil, s), plainString(nil, s); string(got) != string(want) {
			t.Errorf("byte %#x: %s, want %s", c, got, want)
		}
	}
}
