package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHashIsOverCanonicalJSON(t *testing.T) {
	t.Parallel()
	e := Event{ID: "aud_1", At: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC), Actor: "key_1", Action: "read",
		ResourceType: "patient", ResourceID: "pat_1", RequestID: "req_1", IP: "127.0.0.1", Outcome: Success, PrevHash: GenesisHash}
	canonical := `{"action":"read","actor":"key_1","at":"2026-11-22T14:03:00Z","id":"aud_1","ip":"127.0.0.1",` +
		`"outcome":"success","prevHash":"` + GenesisHash + `","requestId":"req_1","resourceId":"pat_1","resourceType":"patient"}`
	sum := sha256.Sum256([]byte(GenesisHash + canonical))
	if got := ComputeHash(e); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("hash %s, want sha256(prevHash + %s)", got, canonical)
	}
}

func TestChain(t *testing.T) {
	t.Parallel()
	l := NewLog()
	at := time.Date(2026, 11, 22, 14, 3, 0, 500, time.UTC)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			l.Append("acct_a", Event{ID: "aud_" + strings.Repeat("x", i), At: at, Outcome: Denied})
			l.Append("acct_b", Event{ID: "aud_b", At: at, Outcome: Success})
		})
	}
	wg.Wait()
	for _, acct := range []string{"acct_a", "acct_b"} {
		ev := l.Events(acct)
		if len(ev) != 50 || !Verify(ev) || ev[0].PrevHash != GenesisHash || !ev[0].At.Equal(at.Truncate(time.Second)) {
			t.Fatalf("%s: %d events, verified %v", acct, len(ev), Verify(ev))
		}
	}
	if ev := l.Events("acct_none"); ev == nil || len(ev) != 0 || !Verify(ev) {
		t.Fatal("empty chain")
	}
	edits := []func([]Event) []Event{
		func(e []Event) []Event { e[10].IP = "10.0.0.1"; return e },
		func(e []Event) []Event {
			e[0].PrevHash = strings.Repeat("1", 64)
			e[0].Hash = ComputeHash(e[0])
			return e
		},
		func(e []Event) []Event { e[5].Outcome = Success; e[5].Hash = ComputeHash(e[5]); return e }, // rehashed, next link breaks
		func(e []Event) []Event { return e[1:] },
		func(e []Event) []Event { e[3], e[4] = e[4], e[3]; return e },
	}
	for i, edit := range edits {
		if Verify(edit(l.Events("acct_a"))) {
			t.Errorf("edit %d verifies", i)
		}
	}
}

// TestCanonicalFormIsSortedKeys pins the canonical JSON to the map encoding (keys sorted) that
// the protocol defines, so the faster struct encoding cannot drift from it.
func TestCanonicalFormIsSortedKeys(t *testing.T) {
	t.Parallel()
	e := Event{ID: "aud_1", At: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC), Actor: "key_<1>", Action: "read",
		ResourceType: "patient", ResourceID: "pat_1", RequestID: "req_1", IP: "127.0.0.1", Outcome: "success", PrevHash: GenesisHash}
	m := map[string]string{"id": e.ID, "at": "2026-11-22T14:03:00Z", "actor": e.Actor, "action": e.Action, "resourceType": e.ResourceType,
		"resourceId": e.ResourceID, "requestId": e.RequestID, "ip": e.IP, "outcome": e.Outcome, "prevHash": e.PrevHash}
	b, _ := json.Marshal(m)
	sum := sha256.Sum256(append([]byte(e.PrevHash), b...))
	if got, want := ComputeHash(e), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("hash %s, want %s (from the sorted-key map encoding)", got, want)
	}
}

// canonical is an event without its hash, fields declared in sorted key order, so that
// encoding/json writes the canonical form (keys sorted, no whitespace) without a map to sort.
type canonical struct {
	Action       string `json:"action"`
	Actor        string `json:"actor"`
	At           string `json:"at"`
	ID           string `json:"id"`
	IP           string `json:"ip"`
	Outcome      string `json:"outcome"`
	PrevHash     string `json:"prevHash"`
	RequestID    string `json:"requestId"`
	ResourceID   string `json:"resourceId"`
	ResourceType string `json:"resourceType"`
}

// TestHashMatchesEncodingJSON checks the hand-written canonical form against encoding/json for
// values that need escaping.
func TestHashMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "plain", `quo"te`, `back\\slash`, "<html>&", "tab\t", "é ü", "\u2028", "bad\xff", "ctl\x01"} {
		e := Event{ID: "aud_" + v, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Actor: v, Action: v, ResourceType: v,
			ResourceID: v, RequestID: v, IP: v, Outcome: v, PrevHash: GenesisHash}
		b, err := json.Marshal(canonical{Action: e.Action, Actor: e.Actor, At: "2026-01-02T03:04:05Z", ID: e.ID, IP: e.IP,
			Outcome: e.Outcome, PrevHash: e.PrevHash, RequestID: e.RequestID, ResourceID: e.ResourceID, ResourceType: e.ResourceType})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(append([]byte(GenesisHash), b...))
		if got := ComputeHash(e); got != hex.EncodeToString(sum[:]) {
			t.Errorf("%q: hash differs from encoding/json's canonical form", v)
		}
	}
}

// Ids of the server's form are stored compactly and come back as they went in; others as is.
func TestIDsRoundTrip(t *testing.T) {
	t.Parallel()
	l := NewLog()
	ids := [][2]string{
		{"aud_0123456789abcdef0123456789abcdef", "req_fedcba9876543210fedcba9876543210"},
		{"aud_0123456789ABCDEF0123456789ABCDEF", "req_short"},
		{"aud_x", "req_0123456789abcdef0123456789abcdeg"},
		{"", ""},
		{"evt_0123456789abcdef0123456789abcdef", "aud_0123456789abcdef0123456789abcdef"},
	}
	for _, id := range ids {
		l.Append("a", Event{ID: id[0], RequestID: id[1], At: time.Unix(0, 0)})
	}
	ev := l.Events("a")
	for i, id := range ids {
		if ev[i].ID != id[0] || ev[i].RequestID != id[1] {
			t.Errorf("event %d: ids %q %q, want %q %q", i, ev[i].ID, ev[i].RequestID, id[0], id[1])
		}
	}
	if !Verify(ev) {
		t.Error("chain does not verify")
	}
}

// Resource ids, actors and addresses round-trip too, across chunk boundaries and accounts.
func TestEventsRoundTripAcrossChunks(t *testing.T) {
	t.Parallel()
	l := NewLog()
	const n = 2*chunkEvents + 3
	resources := []string{"pat_0123456789abcdef0123456789abcdef", "revenue", "", "x_ÿ_\u2028", "pat_0123456789abcdef0123456789abcde"}
	var want []Event
	for i := range n {
		e := Event{
			ID: "aud_" + strings.Repeat("0", 28) + fmt.Sprintf("%04x", i), At: time.Unix(int64(i), 0).UTC(),
			Actor: fmt.Sprintf("key_%d", i%3), Action: "read", ResourceType: "patient", ResourceID: resources[i%len(resources)],
			RequestID: fmt.Sprintf("req_%d", i), IP: "127.0.0.1", Outcome: Success,
		}
		want = append(want, l.Append("a", e))
		l.Append("b", e)
	}
	got := l.Events("a")
	if !slices.Equal(got, want) {
		t.Fatalf("events differ from what Append returned (%d vs %d)", len(got), len(want))
	}
	if !Verify(got) || !Verify(l.Events("b")) {
		t.Error("a chain does not verify")
	}
	if ev := l.Events("none"); ev == nil || len(ev) != 0 {
		t.Errorf("unknown account: %v, want an empty, non-nil slice", ev)
	}
}
