package mockserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// BenchmarkHandlerGetPatient measures the full stack of a get by id (auth, rate limit, audit,
// PHI opening, encoding) without the network.
func BenchmarkHandlerGetPatient(b *testing.B) {
	srv := mockserver.New()
	c, key, err := srv.NewClient()
	if err != nil {
		b.Fatal(err)
	}
	p, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"})
	if err != nil {
		b.Fatal(err)
	}
	// An unlimited plan on the same account, so the bucket never empties during the run.
	load, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}, Account: key.Account})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/patients/"+p.ID, nil)
	req.Header.Set("Authorization", "Bearer "+load.Key)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
