package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
)

// MaxURLLength bounds an endpoint URL.
const MaxURLLength = 2048

// Policy decides which endpoint URLs and addresses the server may deliver to (the SSRF guard,
// docs/protocol.md §9). The zero value refuses every private, link-local, reserved or otherwise
// internal address and allows loopback, as the protocol allows the mock by default.
type Policy struct {
	// AllowPrivate turns the address guard off, so receivers on private networks (a Docker
	// network, say) can be reached, over http:// too (mockserver.WithPrivateWebhookURLs). With
	// RefuseLoopback set, loopback and unspecified addresses stay refused.
	AllowPrivate bool
	// RefuseLoopback refuses loopback destinations too (127.0.0.0/8, ::1, localhost names):
	// for a mock shared over a network, whose users must not reach services on its host.
	RefuseLoopback bool
	// Resolve looks a host name up (default net.DefaultResolver), both when a URL is checked
	// and when a delivery connects; tests inject their own.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)

	// dial connects to one checked address (default: a net.Dialer whose Control checks the
	// socket's address once more); tests stub it to see what is dialed.
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// lookupTimeout bounds the name lookup of URL validation; a name that does not resolve is
// accepted (the dial guard still applies at every connection).
const lookupTimeout = 2 * time.Second

// Names of the ranges the guard treats specially; special returns them.
const (
	rangeLoopback    = "loopback"
	rangeUnspecified = "unspecified"
)

type namedRange struct {
	prefix netip.Prefix
	name   string
}

// refusedV4 are the IPv4 ranges that are not public unicast destinations (RFC 6890 and the
// registries it set up). Broadcast comes before the reserved block that contains it, so the
// more precise name wins.
var refusedV4 = []namedRange{
	{netip.MustParsePrefix("0.0.0.0/32"), rangeUnspecified}, // connects to this host on Linux
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), rangeLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"}, // cloud metadata services live here
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"}, // RFC 6890: not forwarded
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

// refusedV6 are IPv6 ranges inside or around global unicast that are not public destinations.
// Everything outside 2000::/3 that carries no IPv4 address is refused as reserved.
var refusedV6 = []namedRange{
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
}

var globalUnicast = netip.MustParsePrefix("2000::/3")

// embedding is an IPv6 form that carries IPv4 addresses: the packet reaches them through a
// translator or tunnel, so the address is judged by the IPv4 ones.
type embedding struct {
	prefix netip.Prefix
	name   string
	// ipv4 extracts the carried addresses; ok false refuses the address outright.
	ipv4 func(b [16]byte) (v4 []netip.Addr, ok bool)
}

func last32(b [16]byte) ([]netip.Addr, bool) {
	return []netip.Addr{netip.AddrFrom4([4]byte(b[12:16]))}, true
}

var localNAT64 = netip.MustParsePrefix("64:ff9b:1::/96")

var embeddings = []embedding{
	// ::ffff:a.b.c.d is the IPv4 host itself; special unmaps it before getting here.
	{netip.MustParsePrefix("::/96"), "IPv4-compatible", last32},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated (SIIT)", last32},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64", last32},
	// Local-use NAT64 (RFC 8215) may use any RFC 6052 prefix length, each placing the IPv4
	// address elsewhere. Only the /96 form right after the prefix, 64:ff9b:1::a.b.c.d, reads
	// the same under every length (the others see 0.0.0.0/8 there); the rest is refused.
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64", func(b [16]byte) ([]netip.Addr, bool) {
		if !localNAT64.Contains(netip.AddrFrom16(b)) {
			return nil, false
		}
		return last32(b)
	}},
	// 6to4 (RFC 3056): 2002:aabb:ccdd::/48 is the site behind a.b.c.d.
	{netip.MustParsePrefix("2002::/16"), "6to4", func(b [16]byte) ([]netip.Addr, bool) {
		return []netip.Addr{netip.AddrFrom4([4]byte(b[2:6]))}, true
	}},
	// Teredo (RFC 4380): the server's IPv4 in bits 32–63, the client's in the last 32 bits,
	// inverted.
	{netip.MustParsePrefix("2001::/32"), "Teredo", func(b [16]byte) ([]netip.Addr, bool) {
		client := [4]byte(b[12:16])
		for i := range client {
			client[i] ^= 0xff
		}
		return []netip.Addr{netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4(client)}, true
	}},
}

// special names the range of ip that is not a public destination, or returns "" for a public
// address. An IPv6 address carrying an IPv4 one is judged by it; an IPv4 loopback address
// reached that way is not this machine's, so it is named "<form> of loopback", not loopback.
func special(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	if ip.Is4() {
		for _, r := range refusedV4 {
			if r.prefix.Contains(ip) {
				return r.name
			}
		}
		return ""
	}
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip == netip.IPv6Unspecified():
		return rangeUnspecified
	case ip == netip.IPv6Loopback():
		return rangeLoopback
	}
	for _, e := range embeddings {
		if !e.prefix.Contains(ip) {
			continue
		}
		v4s, ok := e.ipv4(ip.As16())
		if !ok {
			return e.name
		}
		for _, v4 := range v4s {
			if r := special(v4); r != "" {
				return e.name + " of " + r
			}
		}
		return ""
	}
	for _, r := range refusedV6 {
		if r.prefix.Contains(ip) {
			return r.name
		}
	}
	if !globalUnicast.Contains(ip) {
		return "reserved"
	}
	return ""
}

// Allows reports whether the policy lets deliveries connect to ip.
func (p *Policy) Allows(ip netip.Addr) bool {
	switch special(ip) {
	case "":
		return true
	case rangeLoopback:
		return !p.RefuseLoopback
	case rangeUnspecified:
		return p.AllowPrivate && !p.RefuseLoopback // connecting to it reaches this host
	}
	return p.AllowPrivate
}

// Blocked reports whether ip is refused by the default policy: private, link-local, reserved
// or otherwise internal, directly or carried in IPv6. Loopback is not blocked: tests and local
// receivers use it.
func Blocked(ip netip.Addr) bool { return !(&Policy{}).Allows(ip) }

// CheckURL validates an endpoint URL. It returns the protocol's field error code and a detail
// that never quotes the URL, or "" when the URL is acceptable.
func (p *Policy) CheckURL(ctx context.Context, raw string) (code, detail string) {
	const (
		notHTTPS = "must use https:// (http:// is allowed only to loopback hosts)"
		internal = "must not point to a private, link-local or reserved address"
		loopback = "must not point to a loopback address: this server is reachable from the network (-loopback-webhooks allows it)"
	)
	if len(raw) > MaxURLLength {
		return "too_long", "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return "invalid_format", "must be an absolute https:// URL"
	}
	if u.User != nil {
		// Credentials in a URL would be stored and shown back with it; receivers authenticate
		// deliveries by their signature instead.
		return "invalid_value", "user info (user:password@) is not allowed; receivers verify the signature instead"
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		switch r := special(ip); {
		case r == rangeLoopback && p.RefuseLoopback:
			return "invalid_value", loopback
		case r == rangeLoopback:
			return "", ""
		case !p.Allows(ip):
			return "invalid_value", internal
		case u.Scheme == "http" && r == "":
			return "invalid_value", notHTTPS
		}
		return "", ""
	}
	if wire.IsLoopbackHost(host) {
		if p.RefuseLoopback {
			return "invalid_value", loopback
		}
		return "", ""
	}
	if u.Scheme == "http" && !p.AllowPrivate {
		return "invalid_value", notHTTPS
	}
	if p.AllowPrivate && !p.RefuseLoopback {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := p.resolve(ctx, host)
	if err != nil {
		return "", "" // unresolvable now: the dial guard decides at delivery time
	}
	for _, a := range addrs {
		if !p.Allows(a) {
			return "invalid_value", "must not resolve to a private, link-local, loopback or reserved address"
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

// Errors of the dial guard; classify turns them into error classes.
var (
	errBlockedAddress = errors.New("webhook: destination address not allowed")
	errNoSuchHost     = errors.New("webhook: the host name did not resolve")
)

// dialContext is the DialContext of deliveries. It resolves the host once, refuses the
// connection when any of its addresses is refused, and dials the checked addresses themselves:
// the address connected to is the address checked, so a name rebound between registration (or
// between two lookups) and connect cannot reach a refused address. Resolver messages are not
// passed on: they name hosts and servers.
func (p *Policy) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, errBlockedAddress
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = p.resolve(ctx, host); err != nil || len(addrs) == 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errNoSuchHost
	}
	for _, a := range addrs {
		if !p.Allows(a) {
			return nil, errBlockedAddress
		}
	}
	dial := p.dial
	if dial == nil {
		dial = (&net.Dialer{Control: p.control}).DialContext
	}
	var firstErr error
	for _, a := range addrs {
		c, err := dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// control is the net.Dialer.Control of deliveries: the last check, on the socket's own
// address, in case anything between dialContext and the socket changed it.
func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	if p.AllowPrivate && !p.RefuseLoopback {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !p.Allows(ap.Addr()) {
		return errBlockedAddress
	}
	return nil
}
