package mockserver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

func TestNewTestInProcessAndOverLoopback(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]mockserver.Option{
		"in-process": nil,
		"loopback":   {mockserver.WithLoopbackListener()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := mockserver.NewTest(t, opts...).Client
			p, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Patients.Get(context.Background(), p.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNewTestServersAreIsolated(t *testing.T) {
	t.Parallel()
	c1 := mockserver.NewTest(t).Client
	c2 := mockserver.NewTest(t).Client
	p, _, err := c1.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c2.Patients.Get(context.Background(), p.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("another test's server sees the patient: %v", err)
	}
}
