package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// MaxURLLength bounds an endpoint URL.
const MaxURLLength = 2048

// Policy decides which endpoint URLs and addresses the server may deliver to (SSRF guard).
type Policy struct {
	// AllowPrivate permits private and link-local addresses (mockserver.WithPrivateWebhookURLs).
	AllowPrivate bool
	// Resolve looks a host name up (default net.DefaultResolver); tests inject their own.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// lookupTimeout bounds the name lookup of URL validation; a name that does not resolve is
// accepted (the dial guard still applies at every connection).
const lookupTimeout = 2 * time.Second

// extraBlocked are special-purpose ranges refused with the private ones: "this network" and
// carrier-grade NAT.
var extraBlocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
}

// Blocked reports whether ip is private, link-local or otherwise internal. Loopback is not
// blocked: tests and local receivers use it.
func Blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return false
	}
	if ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() ||
		ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range extraBlocked {
		if p.Contains(ip) {
			return true
		}
	}
	// IPv6 addresses that carry an IPv4 one (NAT64 RFC 6052, 6to4 RFC 3056) reach it through a
	// gateway: judge the IPv4 address (a loopback one is not this machine's then).
	if v4, ok := embeddedIPv4(ip); ok {
		return v4.IsLoopback() || Blocked(v4)
	}
	return false
}

var (
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	sixTo = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 returns the IPv4 address inside a NAT64 or 6to4 address.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, false
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixTo.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

func isLoopbackName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// CheckURL validates an endpoint URL. It returns the protocol's field error code and a detail
// that never quotes the URL, or "" when the URL is acceptable.
func (p *Policy) CheckURL(ctx context.Context, raw string) (code, detail string) {
	if len(raw) > MaxURLLength {
		return "too_long", "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "invalid_format", "must be an absolute https:// URL"
	}
	host := u.Hostname()
	if host == "" {
		return "invalid_format", "must be an absolute https:// URL"
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		switch {
		case ip.IsLoopback():
			return "", ""
		case Blocked(ip) && !p.AllowPrivate:
			return "invalid_value", "must not point to a private or link-local address"
		case u.Scheme == "http" && !Blocked(ip):
			return "invalid_value", "must use https:// (http:// is allowed only to loopback hosts)"
		}
		return "", ""
	}
	if isLoopbackName(host) {
		return "", ""
	}
	if u.Scheme == "http" && !p.AllowPrivate {
		return "invalid_value", "must use https:// (http:// is allowed only to loopback hosts)"
	}
	if p.AllowPrivate {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := p.resolve(ctx, host)
	if err != nil {
		return "", "" // unresolvable now: the dial guard decides at delivery time
	}
	for _, a := range addrs {
		if Blocked(a) {
			return "invalid_value", "must not resolve to a private or link-local address"
		}
	}
	return "", ""
}

func (p *Policy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if p.Resolve != nil {
		return p.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// errBlockedAddress is the dial guard's refusal.
var errBlockedAddress = errors.New("webhook: destination address not allowed")

// control is the net.Dialer.Control of deliveries: it checks the address actually connected
// to, after resolution, so DNS rebinding cannot reach an internal address.
func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return errBlockedAddress
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || Blocked(ip) {
		return errBlockedAddress
	}
	return nil
}
