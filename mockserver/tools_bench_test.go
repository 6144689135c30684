package mockserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
)

func BenchmarkNewTest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mockserver.NewTest(b)
	}
}

// BenchmarkSnapshot measures Snapshot and Restore of an account with n patients.
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{100, 1000} {
		s := mockserver.NewTest(b)
		k := newKey(b, s.Server, "")
		fx := mockserver.Fixtures{}
		for i := range n {
			fx.Patients = append(fx.Patients, map[string]any{"firstName": fmt.Sprint("P", i), "lastName": "Bench", "email": "p@example.com",
				"notes": strings.Repeat("n", 200), "tags": []string{"a", "b"}})
		}
		if _, err := s.Server.LoadFixtures(k.Account, fx); err != nil {
			b.Fatal(err)
		}
		if err := s.Server.Snapshot(k.Account, "x"); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("save/%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := s.Server.Snapshot(k.Account, "x"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("restore/%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := s.Server.Restore(k.Account, "x"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
