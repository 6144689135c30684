package client

import (
	"time"

	"github.com/medspa/medspa-go/internal/wire"
)

// Date is a calendar date without a time zone, written YYYY-MM-DD on the wire (date of birth,
// lot expiry); users see it as medspa.Date. The zero Date is "no date" and is omitted by
// `omitzero`. Make one with medspa.NewDate, medspa.ParseDate or medspa.DateOf; its fields are
// Year, Month and Day. Its methods: String (YYYY-MM-DD), IsZero, Time (midnight UTC of the
// date), Before, and the text (un)marshalers.
type Date = wire.Date

// NewDate returns the date y-m-d (medspa.NewDate).
func NewDate(y int, m time.Month, d int) Date { return wire.NewDate(y, m, d) }

// ParseDate parses YYYY-MM-DD, rejecting impossible dates such as 2026-02-30
// (medspa.ParseDate).
func ParseDate(s string) (Date, error) { return wire.ParseDate(s) }

// DateOf returns the date of t in t's location (medspa.DateOf).
func DateOf(t time.Time) Date { return wire.DateOf(t) }
