package main

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"

	"github.com/medspa/medspa-go/mockserver"
)

// netFlags are the checked values of the flags for container networks and browsers.
type netFlags struct {
	keys        []knownKey
	tlsHosts    []string
	corsOrigins []string
}

// checkNetFlags reads -api-key, -tls-hosts, -tls-ca-out and -cors-origins before anything
// starts: the first problem is one line naming the flag.
func checkNetFlags(c *config) (netFlags, error) {
	var f netFlags
	var err error
	if f.keys, err = knownKeys(c.apiKeys); err != nil {
		return f, err
	}
	if !c.useTLS && (c.tlsHosts != "" || c.tlsCAOut != "") {
		return f, errors.New("-tls-hosts and -tls-ca-out need -tls")
	}
	if f.tlsHosts, err = listFlag("-tls-hosts", c.tlsHosts, checkTLSHost); err != nil {
		return f, err
	}
	if f.corsOrigins, err = listFlag("-cors-origins", c.corsOrigins, mockserver.CheckCORSOrigin); err != nil {
		return f, err
	}
	return f, nil
}

// listFlag splits a comma-separated flag value and checks each entry ("" : none).
func listFlag(flag, v string, check func(string) error) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []string
	for i, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("%s: entry %d is empty", flag, i+1)
		}
		if err := check(e); err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// dnsName is a host name a certificate may carry: labels of letters, digits, "-" (and "_",
// which container names use), dot-separated.
var dnsName = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$`)

// checkTLSHost says what is wrong with an entry of -tls-hosts: an IP address or a DNS name.
func checkTLSHost(h string) error {
	if net.ParseIP(h) != nil {
		return nil
	}
	if len(h) > 253 || !dnsName.MatchString(h) {
		return fmt.Errorf("%q is neither an IP address nor a DNS name", h)
	}
	// A name whose last label is all digits is a mistyped address (300.1.1.1), never a name:
	// a certificate would carry it as a DNS name that nothing resolves.
	if last := h[strings.LastIndexByte(h, '.')+1:]; strings.Trim(last, "0123456789") == "" {
		return fmt.Errorf("%q is neither an IP address nor a DNS name (a name's last label is not all digits)", h)
	}
	return nil
}
