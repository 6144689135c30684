package wire

import (
	"net/netip"
	"strings"
)

// IsLoopbackHost reports whether host (a URL's Hostname(): no port, no brackets) names the
// local machine: "localhost", a name under ".localhost" (RFC 6761), or a loopback address
// (127.0.0.0/8, ::1, and 127/8 mapped into IPv6). Both sides use it: the SDK allows plain http
// only to such hosts, the mock allows http:// webhook receivers only there.
func IsLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback()
}

// IsAPIKey reports whether s has the shape of a test API key: msk_test_ and 32 base62
// characters (docs/protocol.md §5). The mock registers only such keys.
func IsAPIKey(s string) bool {
	rest, ok := strings.CutPrefix(s, "msk_test_")
	if !ok || len(rest) != 32 {
		return false
	}
	for _, c := range []byte(rest) {
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}
