package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
)

// caller is who a request's Authorization header says it is, resolved once (identify) for
// every step that needs to know: the journal and faults scope by the credential's account
// whatever its state, authenticate decides whether it may act.
type caller struct {
	// cred is the credential the header names: an API key, expired or not; the client of an
	// OAuth access token, expired or not (for a valid token, a copy carrying the token's
	// scopes). Nil when the header names none.
	cred  *auth.Credential
	state callerState
}

// callerState is what authenticate makes of a caller.
type callerState int

const (
	callerNone         callerState = iota // no Bearer credential, or a malformed header: 401
	callerUnknown                         // a secret that names no key: 401
	callerKeyExpired                      // an API key past its expiry: 401, audited as anonymous
	callerTokenUnknown                    // an unknown or revoked access token: 401 invalid_token
	callerTokenExpired                    // an expired access token: 401 token_expired, audited under the client
	callerValid
)

// identify resolves the request's credential (without checking it) and its caller's address.
func (a *API) identify(rq *request) {
	rq.caller = a.resolveCaller(rq.Request)
	rq.addr = a.clientAddr(rq.Request)
}

// resolveCaller is the one credential lookup: a Bearer API key or OAuth access token
// (docs/protocol.md §5). The header must be one value, "Bearer <secret>", the secret without
// blanks; when it is repeated, the first names the credential (for the journal) but the
// request is not authenticated.
func (a *API) resolveCaller(r *http.Request) caller {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return caller{}
	}
	secret, ok := bearerSecret(values[0])
	if !ok {
		return caller{}
	}
	c := a.credentialOf(secret)
	if len(values) != 1 {
		c.state = callerNone
	}
	return c
}

// bearerSecret reads an Authorization value "Bearer <secret>" (scheme in any case, the secret
// without blanks); false when it is not one.
func bearerSecret(v string) (string, bool) {
	scheme, secret, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" || strings.ContainsAny(secret, " \t") {
		return "", false
	}
	return secret, true
}

func (a *API) credentialOf(secret string) caller {
	if strings.HasPrefix(secret, "mat_") {
		t, state := a.oauth.Access(secret, func(c *auth.OAuthClient) time.Time { return a.accountNow(c.Credential.Account) })
		switch state {
		case auth.TokenValid:
			c := *t.Client.Credential // the client's id, account and plan; the token's scopes
			c.Scopes = t.Scopes
			return caller{cred: &c, state: callerValid}
		case auth.TokenExpired:
			return caller{cred: t.Client.Credential, state: callerTokenExpired}
		}
		return caller{state: callerTokenUnknown}
	}
	c, ok := a.keys.Lookup(secret, a.accountNow) // a secret a rotation replaced works until its grace period ends
	switch {
	case !ok:
		return caller{state: callerUnknown}
	case c.Expired(a.accountNow(c.Account)):
		return caller{cred: c, state: callerKeyExpired}
	}
	return caller{cred: c, state: callerValid}
}

// clientAddr is the caller's address: the peer, unless the peer is a trusted proxy
// (Options.TrustedProxies, docs/protocol.md §5 "IP allowlist", §14): then X-Forwarded-For is
// read from the right, each hop being what the proxy before it appended, skipping the hops that
// are trusted proxies themselves; the first hop that is not is the caller (earlier hops come
// from the client and could be forged to pass an allowlist). A hop that does not parse ends the
// walk at the last trusted address.
func (a *API) clientAddr(r *http.Request) netip.Addr {
	addr := peerAddr(r.RemoteAddr)
	if !a.trustedProxy(addr) {
		return addr
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop := parseHop(strings.TrimSpace(hops[i]))
		if !hop.IsValid() {
			break
		}
		addr = hop
		if !a.trustedProxy(addr) {
			break
		}
	}
	return addr
}

// trustedProxy reports whether addr is one of the trusted proxies.
func (a *API) trustedProxy(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	for _, p := range a.opts.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// parseHop reads one X-Forwarded-For hop: an address, or an address and port (as some proxies
// write it); the zero Addr when it is neither.
func parseHop(s string) netip.Addr {
	if ip, err := netip.ParseAddr(s); err == nil {
		return ip.Unmap()
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// peerAddr is the address of a RemoteAddr ("host:port", or a bare address in-process).
func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}
