package wire

import (
	"fmt"
	"time"
)

// Date is a calendar date without a time zone, written YYYY-MM-DD (date of birth, lot expiry).
// The zero Date is "no date" and is omitted by `omitzero`. The SDK shows it as medspa.Date; the
// mock server uses it without importing the SDK's engine.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// NewDate returns the date y-m-d.
func NewDate(y int, m time.Month, d int) Date { return Date{Year: y, Month: m, Day: d} }

// ParseDate parses YYYY-MM-DD, rejecting impossible dates such as 2026-02-30.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("medspa: invalid date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// IsZero reports the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// String formats the date as YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Time().Before(e.Time()) }

// MarshalText writes YYYY-MM-DD.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses YYYY-MM-DD.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
