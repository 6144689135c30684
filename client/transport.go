package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/safetext"
	"github.com/medspa/medspa-go/internal/wire"
)

// Timeouts bound the stages of one attempt on the client's default transport. A zero field
// takes its DefaultTimeouts value; a negative one disables that timeout. They bound the stages
// where a server can stall a call, so that a call made with context.Background() ends; a whole
// call is bounded by its context.
type Timeouts struct {
	// Dial bounds opening the TCP connection.
	Dial time.Duration
	// TLSHandshake bounds the TLS handshake.
	TLSHandshake time.Duration
	// ResponseHeader bounds the wait for the response's headers once the request is sent.
	ResponseHeader time.Duration
	// Idle is how long an idle keep-alive connection is kept for reuse.
	Idle time.Duration
	// Body bounds reading the response's body once its headers arrived: a server that sends
	// headers and then stalls fails the call with an error that matches
	// os.ErrDeadlineExceeded.
	Body time.Duration
}

// DefaultTimeouts are the timeouts of the default transport.
var DefaultTimeouts = Timeouts{
	Dial:           10 * time.Second,
	TLSHandshake:   10 * time.Second,
	ResponseHeader: 60 * time.Second, // POST /webhooks/{id}/test alone may take 10 s
	Idle:           90 * time.Second,
	Body:           60 * time.Second,
}

// WithTimeouts overrides the default transport's timeouts (zero fields keep their defaults).
// It configures the client's transport (New only), and it does not apply to a client given
// with WithHTTPClient.
func WithTimeouts(t Timeouts) Option {
	return clientOption(func(c *config) { c.timeouts = t })
}

// effective returns t with zero fields set to the defaults and negative ones to 0 (none).
func (t Timeouts) effective() Timeouts {
	pick := func(v, def time.Duration) time.Duration {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	return Timeouts{
		Dial:           pick(t.Dial, DefaultTimeouts.Dial),
		TLSHandshake:   pick(t.TLSHandshake, DefaultTimeouts.TLSHandshake),
		ResponseHeader: pick(t.ResponseHeader, DefaultTimeouts.ResponseHeader),
		Idle:           pick(t.Idle, DefaultTimeouts.Idle),
		Body:           pick(t.Body, DefaultTimeouts.Body),
	}
}

// newTransport is http.DefaultTransport's settings with TLS 1.3 as the minimum, the
// timeouts t and the roots (nil: the system's).
func newTransport(t Timeouts, roots *x509.CertPool) *http.Transport {
	t = t.effective()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: t.Dial, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: roots}
	tr.TLSHandshakeTimeout = t.TLSHandshake
	tr.ResponseHeaderTimeout = t.ResponseHeader
	tr.IdleConnTimeout = t.Idle
	tr.MaxIdleConnsPerHost = 64
	return tr
}

// httpClient returns the *http.Client calls are sent with: the caller's (a copy, with the
// redirect rules in front of its own), or one over the default transport.
func httpClient(cfg *config) *http.Client {
	if cfg.httpClient == nil {
		return &http.Client{Transport: bodyTimeout(newTransport(cfg.timeouts, cfg.rootCAs), cfg.timeouts.effective().Body), CheckRedirect: checkRedirect(nil, cfg.plainHTTPHosts)}
	}
	hc := *cfg.httpClient
	hc.CheckRedirect = checkRedirect(cfg.httpClient.CheckRedirect, cfg.plainHTTPHosts)
	return &hc
}

// checkBaseURL refuses what would leak credentials or PHI: non-http(s) schemes and plain http
// to anything but a loopback host or one of plainHosts (WithInsecurePlainHTTPHost).
func checkBaseURL(raw string, plainHosts []string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("medspa: invalid base URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if plainHTTPAllowed(u.Hostname(), plainHosts) {
			return nil
		}
		return fmt.Errorf("medspa: refusing plain http to %s: only loopback hosts may use http "+
			"(use https, trusting a test server's CA with WithRootCAs or WithCAFile, "+
			"or allow this host on a test network with WithInsecurePlainHTTPHost)", safetext.Line(u.Hostname()))
	default:
		return fmt.Errorf("medspa: unsupported base URL scheme %q", u.Scheme)
	}
}

// plainHTTPAllowed reports whether plain http may go to host: a loopback host, or one the
// client was told (WithInsecurePlainHTTPHost).
func plainHTTPAllowed(host string, plainHosts []string) bool {
	return wire.IsLoopbackHost(host) || slices.Contains(plainHosts, strings.ToLower(strings.TrimSuffix(host, ".")))
}

// MaxRedirects is how many redirects one attempt follows.
const MaxRedirects = 5

// RedirectRule names the rule that stopped a redirect.
type RedirectRule string

// The redirect rules. Besides refusing, the client never forwards Authorization, Signature,
// Signature-Input, Content-Digest or Idempotency-Key to another origin (scheme, host, port):
// it drops them before following.
const (
	// RedirectTooMany: more than MaxRedirects redirects.
	RedirectTooMany RedirectRule = "more than 5 redirects"
	// RedirectInsecure: to plain http from https, or to plain http on a host that is not
	// loopback (the rule of the base URL).
	RedirectInsecure RedirectRule = "redirect to plain http"
	// RedirectCrossOriginBody: a 307 or 308 would send the request body to another origin.
	RedirectCrossOriginBody RedirectRule = "the body would go to another origin"
)

// RedirectError is a redirect the client refused to follow; the call fails with it, wrapped
// (in a *url.Error too), and is not retried. From and To are origins only
// (scheme://host:port), never paths or queries.
type RedirectError struct {
	Rule     RedirectRule
	From, To string
}

// Error names the rule and the two origins.
func (e *RedirectError) Error() string {
	return "medspa: redirect refused (" + string(e.Rule) + "): " + safetext.Line(e.From) + " → " + safetext.Line(e.To)
}

// crossOriginHeaders are never sent to an origin other than the call's.
var crossOriginHeaders = []string{"Authorization", "Signature", "Signature-Input", "Content-Digest", "Idempotency-Key"}

// checkRedirect is the SDK's redirect policy, run before next (the caller's CheckRedirect,
// if any). req is the next hop with the first request's headers already copied by net/http.
// plainHosts are the hosts besides loopback plain http may go to (WithInsecurePlainHTTPHost).
func checkRedirect(next func(*http.Request, []*http.Request) error, plainHosts []string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		prev, first := via[len(via)-1].URL, via[0].URL
		refuse := func(rule RedirectRule) error {
			return &RedirectError{Rule: rule, From: origin(prev), To: origin(req.URL)}
		}
		switch {
		case len(via) > MaxRedirects:
			return refuse(RedirectTooMany)
		case req.URL.Scheme == "http" && (prev.Scheme == "https" || !plainHTTPAllowed(req.URL.Hostname(), plainHosts)):
			return refuse(RedirectInsecure)
		}
		if origin(req.URL) != origin(first) {
			if req.Body != nil && req.Body != http.NoBody {
				return refuse(RedirectCrossOriginBody)
			}
			for _, h := range crossOriginHeaders {
				req.Header.Del(h)
			}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// origin is scheme://host:port, the port explicit.
func origin(u *url.URL) string {
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
