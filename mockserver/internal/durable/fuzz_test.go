package durable

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// frameOf encodes recs as one segment frame.
func frameOf(recs ...[]byte) []byte {
	f := newFrame(nil, bodyRecords)
	for _, r := range recs {
		f = appendRecord(f, r)
	}
	sealFrame(f)
	return f
}

// FuzzFrameReader feeds arbitrary bytes to the frame reader: it never panics or reads past the
// end, reports damage at the offset of the frame it could not read, agrees with validFrameAt
// (which the torn-tail check uses) on which frames are intact, and hands back exactly the
// records that were framed. The seeds run in every go test.
func FuzzFrameReader(f *testing.F) {
	valid := append(frameOf([]byte("a"), nil, []byte("hello")), frameOf(bytes.Repeat([]byte{0x80}, 300))...)
	f.Add(valid)
	f.Add(valid[:len(valid)-1])       // torn
	f.Add(valid[:5])                  // partial header
	f.Add(append(valid, 0, 0, 0, 0))  // zeros after the end
	f.Add(append([]byte{}, valid...)) // mutated below by the fuzzer
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	bad := append([]byte{}, valid...)
	bad[10] ^= 1
	f.Add(bad)
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := frameReader{r: bufio.NewReader(bytes.NewReader(data)), end: int64(len(data))}
		for {
			at := fr.off
			body, err := fr.next()
			if errors.Is(err, io.EOF) {
				if at != int64(len(data)) {
					t.Fatalf("EOF at %d of %d", at, len(data))
				}
				break
			}
			var fe *frameError
			if err != nil {
				if !errors.As(err, &fe) || fe.off != at {
					t.Fatalf("error %v at %d, want a frameError there", err, at)
				}
				if validFrameAt(data, int(at)) {
					t.Fatalf("validFrameAt(%d) accepts a frame next refused: %v", at, err)
				}
				break
			}
			if fr.off <= at || fr.off > int64(len(data)) {
				t.Fatalf("frame at %d ends at %d, outside (%d, %d]", at, fr.off, at, len(data))
			}
			if body[0] == bodyRecords && !validFrameAt(data, int(at)) {
				t.Fatalf("validFrameAt(%d) refuses a frame next accepted", at)
			}
		}

		// Round trip: data split at 0xff bytes is a batch of records.
		recs := bytes.Split(data, []byte{0xff})
		frame := frameOf(recs...)
		fr = frameReader{r: bufio.NewReader(bytes.NewReader(frame)), end: int64(len(frame))}
		body, err := fr.next()
		if err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		if _, err := eachRecord(body, func(rec []byte) error {
			got = append(got, bytes.Clone(rec))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(recs) {
			t.Fatalf("%d records back, want %d", len(got), len(recs))
		}
		for i := range recs {
			if !bytes.Equal(got[i], recs[i]) {
				t.Fatalf("record %d: %q, want %q", i, got[i], recs[i])
			}
		}
	})
}

// Malformed bodies behind a valid checksum (which only a bug could write) are refused, not
// read past their end.
func TestMalformedBodies(t *testing.T) {
	t.Parallel()
	for _, body := range [][]byte{
		{bodyRecords, 5, 'a'}, // length past the end
		{bodyRecords, 0x80},   // unfinished varint
		{bodyRecords, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}, // overflow
	} {
		if _, err := eachRecord(body, func([]byte) error { return nil }); !errors.Is(err, errMalformed) {
			t.Errorf("eachRecord(%v) = %v, want errMalformed", body, err)
		}
	}
}

func TestParseName(t *testing.T) {
	t.Parallel()
	tests := map[string]uint64{ // 0: not a log file
		"0000000000000001.seg":  1,
		"00000000000000ff.snap": 0, // suffix differs from the one asked
		"00000000000000ff.seg":  255,
		"000000000000000A.seg":  0, // the log writes lower case only
		"+000000000000001.seg":  0,
		"0000000000000000.seg":  0, // sequences start at 1
		"000000000000001.seg":   0,
		"x.seg":                 0,
		"0000000000000001.seg~": 0,
	}
	for name, want := range tests {
		got, ok := parseName(name, ".seg")
		if got != want || ok != (want != 0) {
			t.Errorf("parseName(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}
