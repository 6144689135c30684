package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// oauthError is an RFC 6749 §5.2 error body.
type oauthError struct {
	status int
	code   string
	desc   string
	basic  bool // invalid_client after HTTP Basic: WWW-Authenticate: Basic
}

func oauthErrorAnswer(e *oauthError) *answer {
	b, _ := json.Marshal(map[string]string{"error": e.code, "error_description": e.desc})
	ans := noStore(httpcore.New(e.status, "application/json", b))
	if e.basic {
		ans.Header.Set("WWW-Authenticate", `Basic realm="medspa"`)
	}
	return ans
}

// noStore marks an OAuth answer as not to be cached (RFC 6749 §5.1).
func noStore(ans *answer) *answer {
	ans.Header.Set("Cache-Control", "no-store")
	ans.Header.Set("Pragma", "no-cache")
	return ans
}

func badRequest(code, desc string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: code, desc: desc}
}

// serveOAuth serves /oauth/authorize, /oauth/token and /oauth/revoke. Every /oauth request of
// an address and tenant that failed client authentication too often this minute gets 429
// (oauth_guard.go).
func (a *API) serveOAuth(rq *request) *answer {
	var method string
	var serve func(*request, oauthForm) *answer
	switch rq.URL.Path {
	case "/oauth/authorize":
		method, serve = http.MethodGet, a.authorize
	case "/oauth/token":
		method, serve = http.MethodPost, a.token
	case "/oauth/revoke":
		method, serve = http.MethodPost, a.revoke
	}
	var form oauthForm
	switch {
	case serve == nil || rq.Method != method:
	case method == http.MethodGet:
		form.values, form.err = singleValues(rq.URL.Query())
	default:
		form.values, form.err = readForm(rq)
	}
	if left := a.guard.blocked(rq.addr, a.tenant(rq, form.values)); left > 0 {
		ans := oauthErrorAnswer(&oauthError{status: http.StatusTooManyRequests, code: "temporarily_unavailable",
			desc: "too many failed client authentications from this address; retry later"})
		ans.Header.Set("Retry-After", strconv.FormatInt(max(ceilSeconds(left), 1), 10))
		return ans
	}
	switch {
	case serve == nil:
		return rq.problem(problem.NotFound("route"))
	case rq.Method != method:
		return rq.problem(problem.New("method_not_allowed", rq.Method+" is not allowed here").
			WithHeader("Allow", method))
	case form.err != nil:
		return oauthErrorAnswer(form.err)
	}
	// Each endpoint writes (a code, tokens, a revocation): answered once durable.
	return a.awaitSync(rq, serve(rq, form))
}

// oauthForm is an OAuth request's parameters: the query of /oauth/authorize, the form body of
// /oauth/token and /oauth/revoke; err when they could not be read.
type oauthForm struct {
	values map[string]string
	err    *oauthError
}

// presentedClient is the client id a request presents: HTTP Basic's user (form-urlencoded,
// RFC 6749 §2.3.1), else the client_id parameter.
func presentedClient(rq *request, params map[string]string) string {
	if user, _, ok := rq.BasicAuth(); ok {
		if uid, err := url.QueryUnescape(user); err == nil {
			return uid
		}
	}
	return params["client_id"]
}

// tenant is the stuffing guard's tenant of a request: the client it presents when registered,
// else "" (made-up ids share one tenant, so they cannot multiply the guard's counters).
func (a *API) tenant(rq *request, params map[string]string) string {
	if c, ok := a.oauth.Client(presentedClient(rq, params)); ok {
		return guardTenant(c, presentedSecret(rq, params))
	}
	return ""
}

// guardTenant is a registered client's tenant for the stuffing guard: its id (the client's own
// string, not a piece of the request) and one of 256 buckets, by the first byte of the presented
// secret's SHA-256. Knowing a client id is then not enough to lock its owner out: failures with
// wrong secrets fill their own buckets, and the owner's secret is in its bucket, which the
// caller cannot aim at without knowing the secret (filling every bucket takes 256 times the
// limit in a minute).
func guardTenant(c *auth.OAuthClient, secret string) string {
	d := sha256.Sum256([]byte(secret))
	return c.Credential.ID + "/" + strconv.Itoa(int(d[0]))
}

// presentedSecret is the client secret a request presents (HTTP Basic or client_secret).
func presentedSecret(rq *request, params map[string]string) string {
	if _, pass, ok := rq.BasicAuth(); ok {
		if pw, err := url.QueryUnescape(pass); err == nil {
			return pw
		}
	}
	return params["client_secret"]
}

// singleValues returns the parameters as single values; a repeated one is invalid_request
// (RFC 6749 §3.1, §3.2).
func singleValues(v url.Values) (map[string]string, *oauthError) {
	out := make(map[string]string, len(v))
	for k, vs := range v {
		if len(vs) != 1 {
			return nil, badRequest("invalid_request", "parameter "+k+" is repeated")
		}
		out[k] = vs[0]
	}
	return out, nil
}

// parseScope splits a space-separated scope parameter; absent means def.
func parseScope(v string, present bool, def []string) []string {
	if !present {
		return slices.Clone(def)
	}
	return strings.Fields(v)
}

// authorize auto-approves a PKCE (S256) authorization request (RFC 6749 §4.1.1, RFC 7636).
// Errors about the client or redirect URI are answered here (400 JSON); every other error is
// sent to the redirect URI (RFC 6749 §4.1.2.1).
func (a *API) authorize(rq *request, form oauthForm) *answer {
	q := form.values
	c, ok := a.oauth.Client(q["client_id"])
	if !ok {
		return oauthErrorAnswer(badRequest("invalid_request", "client_id is missing or unknown"))
	}
	redirect, given := q["redirect_uri"]
	if !given && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !slices.Contains(c.RedirectURIs, redirect) {
		return oauthErrorAnswer(badRequest("invalid_request", "redirect_uri is missing or not registered for this client"))
	}
	target, _ := url.Parse(redirect) // registered URIs parse
	send := func(params map[string]string) *answer {
		v := target.Query()
		for k, x := range params {
			v.Set(k, x)
		}
		if st, ok := q["state"]; ok {
			v.Set("state", st)
		}
		u := *target
		u.RawQuery = v.Encode()
		ans := &answer{Status: http.StatusFound, Header: http.Header{}}
		ans.Header.Set("Location", u.String())
		ans.Header.Set("Cache-Control", "no-store")
		return ans
	}
	fail := func(code, desc string) *answer {
		return send(map[string]string{"error": code, "error_description": desc})
	}
	scope, hasScope := q["scope"]
	scopes := parseScope(scope, hasScope, c.Credential.Scopes)
	challenge := q["code_challenge"]
	switch {
	case q["response_type"] != "code":
		return fail("unsupported_response_type", "response_type must be code")
	case challenge == "":
		return fail("invalid_request", "code_challenge is required (PKCE)")
	case q["code_challenge_method"] != "S256":
		return fail("invalid_request", "code_challenge_method must be S256")
	case len(challenge) != 43 || strings.Trim(challenge, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "":
		return fail("invalid_request", "code_challenge must be base64url of a SHA-256 digest")
	case len(scopes) == 0 || !auth.Subset(scopes, c.Credential.Scopes):
		return fail("invalid_scope", "scope must be a non-empty subset of the client's scopes")
	default:
		now := a.accountNow(c.Credential.Account)
		code := a.oauth.NewCode(auth.Code{ClientID: c.Credential.ID, RedirectURI: q["redirect_uri"], Challenge: challenge,
			Scopes: scopes, ExpiresAt: now.Add(10 * time.Minute)})
		return send(map[string]string{"code": code})
	}
}

// readForm reads an application/x-www-form-urlencoded body.
func readForm(rq *request) (map[string]string, *oauthError) {
	mt, _, err := mime.ParseMediaType(rq.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	b, err := io.ReadAll(io.LimitReader(rq.Body, 64<<10+1))
	if err != nil || len(b) > 64<<10 {
		return nil, badRequest("invalid_request", "the body could not be read or is too large")
	}
	v, err := url.ParseQuery(string(b))
	if err != nil {
		return nil, badRequest("invalid_request", "the body is not form-urlencoded")
	}
	return singleValues(v)
}

// clientAuth authenticates the client by HTTP Basic (id and secret form-urlencoded, RFC 6749
// §2.3.1) or by client_id/client_secret form fields. Failures count towards the stuffing guard.
func (a *API) clientAuth(rq *request, form map[string]string) (*auth.OAuthClient, *oauthError) {
	id, secret := form["client_id"], form["client_secret"]
	_, hasFormSecret := form["client_secret"]
	user, pass, basic := rq.BasicAuth()
	if basic {
		uid, err1 := url.QueryUnescape(user)
		upw, err2 := url.QueryUnescape(pass)
		if err1 != nil || err2 != nil {
			basic = false
		} else {
			if hasFormSecret || (id != "" && id != uid) {
				return nil, badRequest("invalid_request", "use one client authentication method")
			}
			id, secret = uid, upw
		}
	}
	c, ok := a.oauth.Client(id)
	if !ok || !c.CheckSecret(secret) {
		tenant := ""
		if ok {
			tenant = guardTenant(c, secret)
		}
		a.guard.fail(rq.addr, tenant)
		return nil, &oauthError{status: http.StatusUnauthorized, code: "invalid_client",
			desc: "client authentication failed", basic: basic || rq.Header.Get("Authorization") != ""}
	}
	if rq.caller.cred == nil {
		rq.caller.cred = c.Credential // the journal files the request under the client's account
	}
	return c, nil
}

// tokenResponse is the RFC 6749 §5.1 success body.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// token serves the token endpoint (RFC 6749 §3.2): client_credentials, authorization_code
// (with PKCE) and refresh_token (with rotation and reuse detection).
func (a *API) token(rq *request, f oauthForm) *answer {
	form := f.values
	c, oe := a.clientAuth(rq, form)
	if oe != nil {
		return oauthErrorAnswer(oe)
	}
	now := a.accountNow(c.Credential.Account)
	scope, hasScope := form["scope"]
	var issued auth.Issued
	switch form["grant_type"] {
	case "client_credentials":
		scopes := parseScope(scope, hasScope, c.Credential.Scopes)
		if len(scopes) == 0 || !auth.Subset(scopes, c.Credential.Scopes) {
			return oauthErrorAnswer(badRequest("invalid_scope", "scope must be a non-empty subset of the client's scopes"))
		}
		issued = a.oauth.Issue(c, nil, scopes, now, a.accessTTL, a.refreshTTL, false)
	case "authorization_code":
		code, verifier := form["code"], form["code_verifier"]
		if code == "" || verifier == "" {
			return oauthErrorAnswer(badRequest("invalid_request", "code and code_verifier are required"))
		}
		sum := sha256.Sum256([]byte(verifier))
		challenge := base64.RawURLEncoding.EncodeToString(sum[:])
		grant, ok := a.oauth.RedeemCode(code, c.Credential.ID, form["redirect_uri"], challenge, now)
		if !ok {
			return oauthErrorAnswer(badRequest("invalid_grant", "the code is invalid, expired, used, or does not match the client, redirect_uri or code_verifier"))
		}
		issued = a.oauth.Issue(c, grant, grant.Scopes, now, a.accessTTL, a.refreshTTL, true)
	case "refresh_token":
		rt := form["refresh_token"]
		if rt == "" {
			return oauthErrorAnswer(badRequest("invalid_request", "refresh_token is required"))
		}
		var scopes []string
		if hasScope {
			scopes = strings.Fields(scope)
		}
		var res auth.RefreshResult
		issued, res = a.oauth.Refresh(rt, c, scopes, now, a.accessTTL, a.refreshTTL)
		switch res {
		case auth.RefreshInvalid:
			return oauthErrorAnswer(badRequest("invalid_grant", "the refresh token is invalid, expired or revoked"))
		case auth.RefreshBadScope:
			return oauthErrorAnswer(badRequest("invalid_scope", "scope must be a subset of the refresh token's"))
		}
	case "":
		return oauthErrorAnswer(badRequest("invalid_request", "grant_type is required"))
	default:
		return oauthErrorAnswer(badRequest("unsupported_grant_type", "grant_type must be client_credentials, authorization_code or refresh_token"))
	}
	b, _ := json.Marshal(tokenResponse{AccessToken: issued.Access, TokenType: "Bearer", ExpiresIn: int64(a.accessTTL / time.Second),
		RefreshToken: issued.Refresh, Scope: strings.Join(issued.Scopes, " ")})
	return noStore(httpcore.New(http.StatusOK, "application/json", b))
}

// revoke serves RFC 7009 revocation: 200 for any token, known or not. A client that presents
// credentials must authenticate, and then only revokes its own tokens; holding a token is
// otherwise enough to revoke it.
func (a *API) revoke(rq *request, f oauthForm) *answer {
	form := f.values
	var client *auth.OAuthClient
	if _, basic := rq.Header["Authorization"]; basic || form["client_id"] != "" {
		c, oe := a.clientAuth(rq, form)
		if oe != nil {
			return oauthErrorAnswer(oe)
		}
		client = c
	}
	if form["token"] == "" {
		return oauthErrorAnswer(badRequest("invalid_request", "token is required"))
	}
	a.oauth.Revoke(form["token"], client)
	ans := &answer{Status: http.StatusOK, Header: http.Header{}}
	ans.Header.Set("Cache-Control", "no-store")
	return ans
}
