// Command sdkprobe is the Go service of .ci/image-check: run in a container of its own, it
// reaches the mock server in another container through the SDK — over https trusting the
// mock's exported CA (MEDSPA_CA_FILE), or over plain http to a named host with the explicit
// opt-in (MEDSPA_PLAIN_HTTP_HOST) — then creates a patient and reads it back.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/patients"
)

func main() {
	if err := probe(); err != nil {
		fmt.Fprintln(os.Stderr, "sdkprobe:", err)
		os.Exit(1)
	}
}

func probe() error {
	opts := []medspa.Option{medspa.WithMaxRetries(0)} // base URL and key: MEDSPA_BASE_URL, MEDSPA_API_KEY
	if f := os.Getenv("MEDSPA_CA_FILE"); f != "" {
		opts = append(opts, medspa.WithCAFile(f))
	}
	if h := os.Getenv("MEDSPA_PLAIN_HTTP_HOST"); h != "" {
		opts = append(opts, medspa.WithInsecurePlainHTTPHost(h))
	}
	c, err := medspa.New(opts...)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Probe", LastName: "Container", Email: "probe@example.com"})
	if err != nil {
		return err
	}
	got, _, err := c.Patients.Get(ctx, p.ID)
	if err != nil {
		return err
	}
	if got.ID != p.ID {
		return fmt.Errorf("read %s back as %s", p.ID, got.ID)
	}
	fmt.Printf("sdkprobe: created and read %s at %s\n", p.ID, c.BaseURL())
	return nil
}
