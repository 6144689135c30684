package client

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/medspa/medspa-go/internal/safetext"
)

// check refuses, at New, a configuration whose first call could only fail, with one line that
// names the fix: an invalid option, no credential, a base URL that is not the host (or not
// allowed), an Idempotency-Key for every call.
func (c *config) check() error {
	if c.err != nil {
		return c.err
	}
	if c.rootCAs != nil && c.httpClient != nil {
		return errors.New("medspa: WithRootCAs and WithCAFile configure the SDK's own transport: with WithHTTPClient, trust the CA in your client's transport instead")
	}
	if c.apiKey == "" && c.tokenSource == nil && c.oauth == nil {
		return errors.New("medspa: no credentials: set MEDSPA_API_KEY or pass medspa.WithAPIKey(key) to New " +
			"(or, for OAuth, WithClientCredentials, WithOAuth2 or WithTokenSource)")
	}
	if err := checkBaseURL(c.baseURL, c.plainHTTPHosts); err != nil {
		return err
	}
	if err := checkBasePath(c.baseURL); err != nil {
		return err
	}
	if c.idempotencyKey != nil {
		return errors.New("medspa: WithIdempotencyKey names one call's key: give it to that call, not to New")
	}
	return nil
}

// checkBasePath refuses a base URL whose path holds the API's /api/v1: every path the SDK
// sends begins with /api/v1, so such a base (copied from a server URL in the docs, say) would
// send /api/v1/api/v1/… and every call would fail with 404 route not found. Other path
// prefixes — a gateway that mounts the API under /medspa or /v1 — are allowed: they may be
// right, and only the server can tell.
func checkBasePath(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("medspa: invalid base URL")
	}
	p := strings.TrimRight(u.EscapedPath(), "/")
	i := strings.Index(p+"/", "/api/v1/")
	if i < 0 {
		return nil
	}
	host := u.Scheme + "://" + u.Host + p[:i]
	return fmt.Errorf("medspa: base URL %s (WithBaseURL or MEDSPA_BASE_URL) includes the API path /api/v1: give the host only, %s (the SDK adds /api/v1 to every call)",
		safetext.Line(host+p[i:]), safetext.Line(host))
}
