package wire

import "time"

// Time is t as the protocol writes timestamps (docs/protocol.md §2): UTC, whole seconds.
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// TimeLayout is the protocol's timestamp layout: RFC 3339 in UTC with "Z", second precision.
const TimeLayout = "2006-01-02T15:04:05Z"

// FormatTime formats t as the protocol writes timestamps: "2026-11-22T14:03:00Z".
func FormatTime(t time.Time) string { return Time(t).Format(TimeLayout) }

// DateLayout is the protocol's calendar-date layout (dateOfBirth, lot expiresOn).
const DateLayout = "2006-01-02"
