package store

import (
	"encoding/hex"
	"errors"
	"time"
)

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept by
// BenchmarkFencePatientRecord: a patient record's timestamps and blind index are values of
// fixed size inside the record, not a time.Time (24 bytes, with a location pointer) and a hex
// string (a header and 64 bytes elsewhere), and its tags a pointer (patients.go). An account
// with 1,000,000 patients keeps 96 bytes and one allocation less per patient (docs/protocol.md §13: one mock may serve a whole CI
// fleet). Both marshal exactly as the types they replace, so snapshots and data directories
// read and write the same JSON.

// instant is a timestamp in the protocol's precision (docs/protocol.md §2: UTC, whole
// seconds): seconds since the Unix epoch. Every time the store keeps passes wire.Time first.
type instant int64

func instantOf(t time.Time) instant { return instant(t.Unix()) }

// Time returns the timestamp as a UTC time.Time.
func (i instant) Time() time.Time { return time.Unix(int64(i), 0).UTC() }

// MarshalJSON writes the timestamp as time.Time does (RFC 3339).
func (i instant) MarshalJSON() ([]byte, error) { return i.Time().MarshalJSON() }

// UnmarshalJSON reads what time.Time's MarshalJSON writes; a fraction of a second (in state
// written by another program) is dropped, as wire.Time drops it.
func (i *instant) UnmarshalJSON(b []byte) error {
	var t time.Time
	if err := t.UnmarshalJSON(b); err != nil {
		return err
	}
	*i = instantOf(t)
	return nil
}

// indexValue is a blind index value (seal.go): an HMAC-SHA256; zero is none.
type indexValue [32]byte

var errBlindIndex = errors.New("store: a blind index must be 64 hex digits")

// MarshalText writes the value in hex, as the index strings of earlier releases were.
func (x indexValue) MarshalText() ([]byte, error) {
	if x == (indexValue{}) {
		return []byte{}, nil
	}
	return hex.AppendEncode(nil, x[:]), nil
}

// UnmarshalText reads what MarshalText writes ("" is none).
func (x *indexValue) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*x = indexValue{}
		return nil
	}
	if len(b) != 2*len(x) {
		return errBlindIndex
	}
	if _, err := hex.Decode(x[:], b); err != nil {
		return errBlindIndex
	}
	return nil
}
