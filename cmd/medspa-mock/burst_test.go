package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
)

// TestKillInBurst kills the binary (SIGKILL) in the middle of a burst of 64 concurrent writers
// (each sending its next write once it has the answer of the last, writes of every writer in
// flight at the kill): after a restart, every write whose answer arrived is there as answered.
func TestKillInBurst(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	p := startBinary(t, "-data", dir)
	c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: p.key, Account: p.account})
	k := loadKey(t, c, p.account)
	const writers, killAt = 64, 200
	var answers [][]byte
	var mu sync.Mutex
	sent, reached := 0, make(chan struct{})
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			hc := &http.Client{Timeout: 30 * time.Second}
			<-start
			for i := 0; ; i++ {
				body := fmt.Sprintf(`{"firstName":"Burst%d-%d","lastName":"Killova","email":"burst%d.%d@example.org"}`, w, i, w, i)
				req, _ := http.NewRequest("POST", p.base+"/api/v1/patients", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+k.Key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					return // killed before the answer
				}
				b, err := readAll(resp)
				if err != nil || resp.StatusCode != 201 {
					return
				}
				mu.Lock()
				answers = append(answers, b)
				if sent++; sent == killAt {
					close(reached)
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	select {
	case <-reached:
	case <-time.After(time.Minute):
		t.Fatalf("fewer than %d writes of the burst answered in a minute", killAt)
	}
	p.stop(t, true)
	wg.Wait()
	p = startBinary(t, "-data", dir)
	c = restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: k.Key, Account: p.account})
	n := 0
	for _, a := range answers {
		n++
		var sent struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(a, &sent)
		if got := c.Must(t, 200, k.Key, "GET", "/api/v1/patients/"+sent.ID, ""); !bytes.Equal(got, a) {
			t.Fatalf("acknowledged %s after the kill:\n%s\nwant\n%s", sent.ID, got, a)
		}
	}
	t.Logf("%d writes answered before the kill; all there after the restart", n)
}
