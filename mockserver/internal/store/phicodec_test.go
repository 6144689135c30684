package store

import (
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
