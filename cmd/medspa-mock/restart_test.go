package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
)

// The binary on a data directory, stopped (SIGTERM) or killed (SIGKILL) after every item was
// set up and acknowledged, and started again on it, keeps every item of docs/protocol.md §13,
// and prints the key it printed before instead of minting one.
func TestRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	for _, kill := range []bool{false, true} {
		t.Run(map[bool]string{false: "sigterm", true: "sigkill"}[kill], func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data")
			p := startBinary(t, "-data", dir)
			var again *proc
			restart := func(t *testing.T) restarttest.Target {
				p.stop(t, kill)
				again = startBinary(t, "-data", dir)
				return restarttest.Target{BaseURL: again.base, Key: again.key, Account: again.account}
			}
			restarttest.Run(t, restarttest.Target{BaseURL: p.base, Key: p.key, Account: p.account}, restart, restarttest.Items())
			t.Run("printed key", func(t *testing.T) {
				if again.key != p.key || again.account != p.account {
					t.Fatalf("the restart printed key %s of %s, want the key printed before, %s of %s", again.key, again.account, p.key, p.account)
				}
			})
			t.Run("no plaintext PHI", func(t *testing.T) {
				noPlaintext(t, dir, "Restartova", "restart notes", "Crash Way", "appointment notes", "invoice notes", "adjust note")
			})
		})
	}
}

// noPlaintext fails if a file of dir holds one of the strings, or is readable by others.
func noPlaintext(t *testing.T, dir string, plain ...string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range plain {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q in plaintext", path, s)
			}
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v: readable by others", path, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walking %s: %v (%d files)", dir, err, n)
	}
}

// write is one write of the load and what the client knows of it.
type write struct {
	key, body string // the Idempotency-Key and the body sent
	acked     bool   // a 201 came back, with answer
	answer    []byte
}

// TestKillDuringWriteLoad kills the binary (SIGKILL) at random moments while several clients
// write, then starts it again: every write the clients saw acknowledged is there, as
// acknowledged; a retry of each write with its Idempotency-Key settles it, once (no write
// happens twice); the audit chain verifies; keys and tokens still work.
func TestKillDuringWriteLoad(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	p := startBinary(t, "-data", dir)
	c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: p.key, Account: p.account})
	k := loadKey(t, c, p.account)
	var cl struct{ ClientID, ClientSecret string }
	_ = json.Unmarshal(c.Must(t, 201, "", "POST", "/__admin/oauth-clients",
		`{"plan":"enterprise","scopes":["patients:read"],"account":"`+p.account+`"}`), &cl)
	st, tok := c.Form(t, "/oauth/token", cl.ClientID, cl.ClientSecret, url.Values{"grant_type": {"client_credentials"}})
	if st != 200 {
		t.Fatalf("token: %d %v", st, tok)
	}
	token := tok["access_token"].(string)

	const workers, rounds = 6, 4
	var all []*write
	settled := 0 // all[:settled] are settled writes of earlier rounds
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := range rounds {
		stop := make(chan struct{})
		var mu sync.Mutex
		var wg sync.WaitGroup
		// The kill comes once a random number of writes were acknowledged: in the middle of
		// the load, with writes of every worker in flight.
		killAt, acks, reached := 30+rng.IntN(300), 0, make(chan struct{})
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hc := &http.Client{Timeout: 10 * time.Second}
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					wr := &write{key: fmt.Sprintf("kill-%d-%d-%d", round, w, i),
						body: fmt.Sprintf(`{"firstName":"Load%d-%d-%d","lastName":"Killova","email":"load%d.%d.%d@example.org","notes":"load notes"}`, round, w, i, round, w, i)}
					mu.Lock()
					all = append(all, wr) // recorded before it is sent
					mu.Unlock()
					req, _ := http.NewRequest("POST", p.base+"/api/v1/patients", strings.NewReader(wr.body))
					req.Header.Set("Authorization", "Bearer "+k.Key)
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Idempotency-Key", wr.key)
					resp, err := hc.Do(req)
					if err != nil {
						return // the server is gone
					}
					b, rerr := readAll(resp)
					if rerr == nil && resp.StatusCode == 201 {
						mu.Lock()
						wr.acked, wr.answer = true, b
						if acks++; acks == killAt {
							close(reached)
						}
						mu.Unlock()
					}
				}
			}()
		}
		select {
		case <-reached:
		case <-time.After(time.Minute):
			t.Fatalf("round %d: fewer than %d writes acknowledged in a minute", round, killAt)
		}
		p.stop(t, true)
		close(stop)
		wg.Wait()
		p = startBinary(t, "-data", dir)
		c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: k.Key, Account: p.account})
		acked := 0
		for _, wr := range all {
			if !wr.acked {
				continue
			}
			if strings.HasPrefix(wr.key, fmt.Sprintf("kill-%d-", round)) {
				acked++
			}
			var sent struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(wr.answer, &sent)
			if got := c.Must(t, 200, k.Key, "GET", "/api/v1/patients/"+sent.ID, ""); !bytes.Equal(got, wr.answer) {
				t.Fatalf("round %d: acknowledged %s after the kill:\n%s\nwant\n%s", round, sent.ID, got, wr.answer)
			}
		}
		if acked == 0 {
			t.Fatalf("round %d: no write was acknowledged before the kill", round)
		}
		// Settle every write of the round: a retry with its key answers 201, the first answer
		// when there was one.
		for _, wr := range all[settled:] {
			st, h, b := c.Do(t, k.Key, "POST", "/api/v1/patients", wr.body, "Idempotency-Key: "+wr.key)
			if st != 201 || wr.acked && (h.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, wr.answer)) {
				t.Fatalf("round %d: retry of %s (acknowledged: %v): %d %q %s", round, wr.key, wr.acked, st, h.Get("Idempotent-Replayed"), b)
			}
			wr.acked, wr.answer = true, b
		}
		settled = len(all)
		// No write happened twice.
		seen := map[string]int{}
		for page := 1; ; page++ {
			var list struct {
				Data []struct {
					FirstName string `json:"firstName"`
				} `json:"data"`
			}
			_ = json.Unmarshal(c.Must(t, 200, k.Key, "GET", fmt.Sprintf("/api/v1/patients?perPage=100&page=%d", page), ""), &list)
			for _, x := range list.Data {
				seen[x.FirstName]++
			}
			if len(list.Data) < 100 {
				break
			}
		}
		for name, n := range seen {
			if n != 1 {
				t.Fatalf("round %d: %d patients named %s: a write happened twice", round, n, name)
			}
		}
		if len(seen) != len(all) {
			t.Fatalf("round %d: %d patients for %d settled writes", round, len(seen), len(all))
		}
		var audit struct {
			Verified bool `json:"verified"`
		}
		_ = json.Unmarshal(c.Must(t, 200, "", "GET", "/__admin/audit-events?account="+p.account, ""), &audit)
		if !audit.Verified {
			t.Fatalf("round %d: the audit chain does not verify", round)
		}
		c.Must(t, 200, token, "GET", "/api/v1/patients?perPage=1", "")
		c.Must(t, 200, p.key, "GET", "/api/v1/patients?perPage=1", "")
		t.Logf("round %d: %d writes in all, %d of this round acknowledged before the kill", round, len(all), acked)
	}
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// loadKey makes a key of account whose limits no load test reaches.
func loadKey(t *testing.T, c *restarttest.Client, account string) (k struct {
	Key string `json:"key"`
}) {
	t.Helper()
	_ = json.Unmarshal(c.Must(t, 201, "", "POST", "/__admin/api-keys",
		`{"plan":"custom","ratePerMinute":1000000,"burst":1000000,"scopes":["*"],"account":"`+account+`"}`), &k)
	return k
}
