package mockserver_test

// TestDocExample is the Go example of docs/mock-server.md; keep the two in step.

import (
	"context"
	"errors"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

func TestDocExample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	srv := mockserver.NewTest(t, mockserver.WithSeed(1), mockserver.WithStartTime(start))
	// NewTest hands back a ready client, its key and its account.
	c, key := srv.Client, srv.Key

	// Fixtures: created through the API's own rules; "@patients.0" names the first patient.
	ids, err := srv.LoadFixtures(mockserver.Fixtures{
		Patients: []any{
			patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"},
			map[string]any{"firstName": "Old", "lastName": "Timer", "email": "old@example.com",
				"createdAt": "2025-01-01T00:00:00Z", "tags": []string{"referred-by:@patients.0"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	// Clock: frozen at start; move it and timestamps follow.
	srv.AdvanceTime(90 * time.Minute)
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.CreatedAt.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("createdAt %v", p.CreatedAt)
	}

	// Snapshots: save, change, restore.
	if err := srv.Snapshot("seeded"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Patients.Update(ctx, ids.Patients[0], &patients.UpdateParams{Tags: medspa.Set([]string{"vip"})}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restore("seeded"); err != nil {
		t.Fatal(err)
	}

	// Faults: the next two list calls answer 503 with Retry-After; the SDK retries through them.
	retryAfter := 0
	if err := srv.InjectFault(mockserver.Fault{Account: key.Account, Method: "GET", Path: "/api/v1/patients",
		Status: 503, RetryAfter: &retryAfter, Times: 2}); err != nil {
		t.Fatal(err)
	}
	page, _, err := c.Patients.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 3 || page.Data[0].ID != ids.Patients[1] || len(page.Data[1].Tags) != 0 { // backdated first
		t.Fatalf("after restore: %+v", page.Data)
	}
	// Without retries, the fault surfaces as a *client.Error.
	_ = srv.InjectFault(mockserver.Fault{Path: "/api/v1/patients/*", Status: 503, Times: 1})
	_, _, err = c.Patients.Get(ctx, ids.Patients[0], medspa.WithMaxRetries(0))
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 503 {
		t.Fatalf("fault: %v", err)
	}

	// Journal: what the server saw, newest last (no bodies, no Authorization, no query values).
	var statuses []int
	for _, e := range srv.Requests() {
		statuses = append(statuses, e.Status)
	}
	if !equal(statuses, []int{201, 200, 503, 503, 200, 503}) {
		t.Fatalf("journal statuses %v", statuses)
	}
}
