package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthcheck is -healthcheck: it asks the server this configuration describes (-addr, -tls)
// for GET /readyz on loopback and fails unless the answer is 200 — the health command of an
// image without a shell or curl (docs/ci.md). The self-signed certificate is not verified: the
// connection never leaves the container.
func healthcheck(c *config, stdout io.Writer) error {
	host, port, err := net.SplitHostPort(c.addr)
	if err != nil || port == "0" {
		return fmt.Errorf("-healthcheck: -addr %q names no fixed port", c.addr)
	}
	// The server's own address when it is a loopback one (127.0.0.2, ::1); else, a listener on
	// every address or on a named one, IPv4 loopback.
	probe := "127.0.0.1"
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		probe = host
	}
	scheme := "http"
	hc := &http.Client{Timeout: 5 * time.Second}
	if c.useTLS {
		scheme = "https"
		hc.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}} //nolint:gosec // loopback, to itself
	}
	resp, err := hc.Get(scheme + "://" + net.JoinHostPort(probe, port) + "/readyz")
	if err != nil {
		return fmt.Errorf("-healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("-healthcheck: /readyz answered %d %s", resp.StatusCode, body)
	}
	fmt.Fprintf(stdout, "%s", body)
	return nil
}
