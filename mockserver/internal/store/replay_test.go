package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/medspa/medspa-go/patients"
)

// Records loaded back (many, so every decoding goroutine takes several chunks) give the account
// the state they were listed from, in order, and Load hands back exactly the events marked for
// delivery; a record of an unknown kind fails the whole load.
func TestLoadRecordsInOrder(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, 32)
	src := New(Options{Sealer: NewSealer(key)}).Account("acct_load")
	for i := range 3*loadChunk + 17 {
		p := patients.Patient{FirstName: fmt.Sprint("Load", i), LastName: "Order", Email: fmt.Sprintf("l%d@example.com", i), Notes: "n"}
		if _, err := src.CreatePatient(PatientInputOf(p), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	state, err := src.Export()
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	err = StateRecords(state, func(kind, id string, v []byte) error {
		r := Record{Kind: kind, Key: []byte(id), Value: v}
		if kind == KindEvent {
			r.Key, r.Redeliver = nil, len(recs)%2 == 0
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range recs {
		if r.Redeliver {
			var e Event
			if err := json.Unmarshal(r.Value, &e); err != nil {
				t.Fatal(err)
			}
			want = append(want, e.ID)
		}
	}
	dst := New(Options{Sealer: NewSealer(key)})
	got, err := dst.Account("acct_load").Load(recs)
	if err != nil {
		t.Fatal(err)
	}
	dst.FinishReplay()
	if after, _ := dst.Account("acct_load").Export(); !bytes.Equal(after, state) {
		t.Error("the loaded account differs from the one its records came from")
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) || len(want) == 0 {
		t.Errorf("events to deliver again: %d, want %d", len(ids), len(want))
	}

	recs = append(recs, Record{Kind: "giftcard", Key: []byte("gft_1"), Value: []byte(`{"id":"gft_1"}`)})
	if _, err := New(Options{Sealer: NewSealer(key)}).Account("acct_load").Load(recs); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("a record of an unknown kind: %v", err)
	}
}

// A sealed value decodes from JSON to the same bytes as encoding/json's []byte, or fails where
// it fails.
func FuzzSealedJSON(f *testing.F) {
	for _, s := range []string{`"AAEC"`, `null`, `""`, `"AA\u003d\u003d"`, `"A\/B="`, `"%%"`, `"QUJD\r\n"`, `12`, `"QQ=="`, `"QQ"`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []byte
		errWant := json.Unmarshal(b, &want)
		var got sealedJSON
		errGot := json.Unmarshal(b, &got)
		if (errWant == nil) != (errGot == nil) || errWant == nil && !bytes.Equal(want, got) {
			t.Fatalf("%q: encoding/json %q %v, sealedJSON %q %v", b, want, errWant, got, errGot)
		}
	})
}

// loadJSON decodes every kind of record as encoding/json does: the same record (compared by
// what it marshals to), or an error where encoding/json fails. The seeds are records of every
// kind the store writes.
func FuzzLoadJSON(f *testing.F) {
	kinds := []string{KindEvent, KindIdempotency}
	for k := range decoders() {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, v := range []string{
		`{"id":"pat_01a21d6af2177002a81597a8e82817ed","createdAt":"2026-11-27T14:31:17Z","updatedAt":"2026-11-27T14:31:17Z","tags":["a","b"],"emailIndex":"20fd16e051ef21123f243ed62a6e1a8f4d2a1e9bd3fa05eaa5a39559fcc147aa","sealed":"AAEC"}`,
		`{"ID":"pat_1","createdAt":"2026-11-27T14:31:17.5+01:00","tags":null,"sealed":null,"emailIndex":""}`,
		`{"id":"x","id":"y"}`, `{"id":"\ud800"}`, `{"id":"a\u00e9","unknown":[1,{"b":2}]}`, `[]`, `null`,
		`{"id":"evt_1","type":"patient.created","createdAt":"2026-11-27T14:31:35Z","data":{"object":"patient","id":"pat_1"}}`,
	} {
		for i := range kinds {
			f.Add(uint8(i), []byte(v))
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, b []byte) {
		kind := kinds[int(k)%len(kinds)]
		decode := func(unmarshal func([]byte, any) error) (string, error) {
			var v any
			switch kind {
			case KindEvent:
				v = new(Event)
			case KindIdempotency:
				v = new(IdempotencyRecord)
			default:
				tb := decoders()[kind]
				v = tb.(interface{ zero() any }).zero()
			}
			if err := unmarshal(b, v); err != nil {
				return "", err
			}
			out, err := json.Marshal(v)
			return string(out), err
		}
		want, errWant := decode(json.Unmarshal)
		got, errGot := decode(loadJSON)
		if (errWant == nil) != (errGot == nil) || want != got {
			t.Fatalf("%s %q:\nencoding/json %s %v\nloadJSON      %s %v", kind, b, want, errWant, got, errGot)
		}
	})
}
