package store

import (
	"encoding/json"
	"testing"
	"time"
)

// legacyPatientRecord is PatientRecord as releases before the compact form kept it: what
// snapshots and data directories hold.
type legacyPatientRecord struct {
	ID         string    `json:"id"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	Tags       []string  `json:"tags,omitempty"`
	EmailIndex string    `json:"emailIndex"`
	Sealed     []byte    `json:"sealed"`
}

// The compact record reads and writes exactly the JSON of the record it replaced.
func TestPatientRecordJSONUnchanged(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 16, 4, 5, 0, time.UTC)
	for _, old := range []legacyPatientRecord{
		{ID: "pat_1", CreatedAt: at, UpdatedAt: at.Add(time.Hour), Tags: []string{"vip"},
			EmailIndex: blindIndex([]byte("k"), "a@example.com"), Sealed: []byte{1, 2, 3}},
		{ID: "pat_2", CreatedAt: time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2262, 4, 12, 0, 0, 0, 0, time.UTC)},
		{ID: "pat_3"}, // zero times and no index
	} {
		want, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		var r PatientRecord
		if err := json.Unmarshal(want, &r); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		got, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("round trip:\n got %s\nwant %s", got, want)
		}
		if !r.CreatedAt.Time().Equal(old.CreatedAt) || !r.UpdatedAt.Time().Equal(old.UpdatedAt) {
			t.Errorf("%s: times %v %v", old.ID, r.CreatedAt.Time(), r.UpdatedAt.Time())
		}
	}
}

func TestCompactValuesRejectOrTruncate(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`"abc"`, `"` + string(make([]byte, 64)) + `"`, `"zz` + blindIndex([]byte("k"), "x")[2:] + `"`, `"` + blindIndex([]byte("k"), "x") + `00"`} {
		var x indexValue
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("index %q: no error", bad)
		}
	}
	var i instant
	if err := json.Unmarshal([]byte(`"2026-11-25T16:04:05.999Z"`), &i); err != nil {
		t.Fatal(err)
	}
	if got := i.Time(); !got.Equal(time.Date(2026, 11, 25, 16, 4, 5, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("fraction: %v", got)
	}
	if err := json.Unmarshal([]byte(`"yesterday"`), &i); err == nil {
		t.Error("instant: no error for a non-time")
	}
}
