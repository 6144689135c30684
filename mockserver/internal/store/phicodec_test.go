package store

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/patients"
)

// The binary PHI form opens to what the JSON form did, and sealed JSON from older data files
// still opens.
func TestPHICodecRoundTrip(t *testing.T) {
	t.Parallel()
	for _, p := range []patients.Patient{
		{},
		{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"},
		{FirstName: "Zoë", LastName: "O'Brien \"Q\"", Email: "z@example.com", Phone: "+15555550100",
			DateOfBirth: client.NewDate(1990, 2, 28), Gender: "female", Notes: "multi\nline <b>&</b>",
			Address: &patients.Address{Line1: "1 Main St", City: "Springfield", Country: "US"}, Allergies: []string{"latex", "", "penicillin"}},
		{FirstName: "E", Address: &patients.Address{}, Allergies: []string{}},
		{FirstName: "Old", DateOfBirth: client.NewDate(1, 1, 1)},
	} {
		want := jsonRoundTrip(t, p)
		var got patients.Patient
		if err := decodePHI(encodePHI(nil, &p), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("binary form opens to %+v, the JSON form to %+v", got, want)
		}
		old, _ := json.Marshal(&p)
		var fromJSON patients.Patient
		if err := decodePHI(old, &fromJSON); err != nil || !reflect.DeepEqual(fromJSON, want) {
			t.Errorf("sealed JSON opens to %+v (%v), want %+v", fromJSON, err, want)
		}
	}
}

func jsonRoundTrip(t *testing.T, p patients.Patient) patients.Patient {
	t.Helper()
	b, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	var out patients.Patient
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Truncated or altered plaintext is an error, never a panic.
func TestPHICodecCorrupt(t *testing.T) {
	t.Parallel()
	full := encodePHI(nil, &patients.Patient{FirstName: "Ada", LastName: "L", Email: "a@example.com",
		Address: &patients.Address{City: "X"}, Allergies: []string{"latex"}})
	for i := range len(full) {
		var p patients.Patient
		if err := decodePHI(full[:i], &p); err == nil {
			t.Errorf("prefix of %d bytes decodes", i)
		}
	}
	if err := decodePHI(append(full, 0), new(patients.Patient)); err == nil {
		t.Error("trailing byte decodes")
	}
	if err := decodePHI([]byte{9, 0}, new(patients.Patient)); err == nil {
		t.Error("unknown version decodes")
	}
}

// FuzzPHIDecoder: the decoder's varints read exactly what encoding/binary reads (value, length,
// or refusal), and no input makes decodePHI panic; what it opens, encodePHI writes back the same.
func FuzzPHIDecoder(f *testing.F) {
	p := patients.Patient{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", DateOfBirth: client.NewDate(1815, 12, 10),
		Address: &patients.Address{City: "London"}, Allergies: []string{"latex"}}
	f.Add(encodePHI(nil, &p))
	f.Add([]byte{phiV1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02})
	f.Add([]byte{phiV1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{phiV1, 3, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := phiDecoder{s: string(b)}
		v := d.uvarint()
		want, n := binary.Uvarint(b)
		if n <= 0 {
			if d.err == nil {
				t.Fatalf("% x: read %d, binary.Uvarint refuses (%d)", b, v, n)
			}
		} else if d.err != nil || v != want || len(d.s) != len(b)-n {
			t.Fatalf("% x: read %d leaving %d bytes (err %v), binary.Uvarint %d of %d bytes", b, v, len(d.s), d.err, want, n)
		}
		var got patients.Patient
		if err := decodePHI(b, &got); err != nil || len(b) == 0 || b[0] != phiV1 {
			return
		}
		var again patients.Patient
		if err := decodePHI(encodePHI(nil, &got), &again); err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("% x: opened %+v, which reopens as %+v (%v)", b, got, again, err)
		}
	})
}
