// Package httpsig implements the MedSpa signing profile of HTTP Message
// Signatures (RFC 9421) with Content-Digest (RFC 9530), as fixed by docs/protocol.md §6.
// The SDK uses it to sign requests and verify responses; the mock server uses
// it to verify requests and sign responses, so both sides build the signature
// base with the same code.
//
// Profile: algorithm hmac-sha256, signature label sig1, secrets of the form
// mss_<base64url of 32 bytes>, body integrity by a sha-256 Content-Digest.
package httpsig

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Label is the signature label used in Signature-Input and Signature.
const Label = "sig1"

// Algorithm is the only signature algorithm of the profile.
const Algorithm = "hmac-sha256"

// Sentinel errors. Every error returned by the verification functions wraps
// exactly one of them, so callers can map failures with errors.Is.
var (
	// ErrMissingSignature: no Signature/Signature-Input header, or no sig1 member.
	ErrMissingSignature = errors.New("httpsig: missing signature")
	// ErrMalformed: a header or parameter does not parse or violates the profile.
	ErrMalformed = errors.New("httpsig: malformed signature header")
	// ErrMissingComponent: a required component is not covered, or a covered
	// component is absent from the message.
	ErrMissingComponent = errors.New("httpsig: missing component")
	// ErrUnknownKey: the keyid does not name a known key.
	ErrUnknownKey = errors.New("httpsig: unknown key")
	// ErrBadSignature: the HMAC does not match the signature base.
	ErrBadSignature = errors.New("httpsig: signature mismatch")
	// ErrDigestMismatch: Content-Digest does not match the body.
	ErrDigestMismatch = errors.New("httpsig: content digest mismatch")
	// ErrUnsupportedAlg: alg is absent or not hmac-sha256.
	ErrUnsupportedAlg = errors.New("httpsig: unsupported algorithm")
	// ErrStale: the signature's created time is more than MaxSkew from the
	// verifier's clock.
	ErrStale = errors.New("httpsig: signature too old or too new")
)

// MaxSkew is how far a signature's created time may be from the verifier's
// clock, in either direction (docs/protocol.md §6).
const MaxSkew = 300 * time.Second

// Covered component sets of the profile, as serialized component identifiers.
var (
	requestComponentsBody   = []string{`"@method"`, `"@target-uri"`, `"content-type"`, `"content-digest"`, `"authorization"`}
	requestComponentsNoBody = []string{`"@method"`, `"@target-uri"`, `"authorization"`}
	responseComponents      = []string{`"@status"`, `"content-digest"`, `"x-request-id"`, `"@method";req`, `"@target-uri";req`}
)

const (
	secretPrefix = "mss_"
	secretLen    = 32
	nonceLen     = 16  // random bytes in a generated nonce
	maxNonceLen  = 128 // characters accepted in a received nonce
)

var b64url = base64.RawURLEncoding

// ParseSecret decodes a signing secret "mss_<base64url of 32 bytes>" into
// the HMAC key. Padded and unpadded base64url are accepted; anything else,
// including a wrong length, is an error.
func ParseSecret(s string) ([]byte, error) {
	enc, ok := strings.CutPrefix(s, secretPrefix)
	if !ok {
		return nil, errors.New("httpsig: signing secret must start with " + secretPrefix)
	}
	dec := b64url.Strict()
	if strings.HasSuffix(enc, "=") {
		dec = base64.URLEncoding.Strict() // padded form: exactly one '=' for 32 bytes
	}
	key, err := dec.DecodeString(enc)
	if err != nil || len(key) != secretLen {
		return nil, fmt.Errorf("httpsig: signing secret must be %s<base64url of %d bytes>", secretPrefix, secretLen)
	}
	return key, nil
}

// NewSecret returns a fresh random signing secret in the mss_ format.
func NewSecret() string {
	return secretPrefix + b64url.EncodeToString(randomBytes(secretLen))
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	// crypto/rand.Read never returns an error on supported platforms (Go ≥1.24
	// crashes the program instead), so there is nothing to handle here.
	_, _ = rand.Read(b)
	return b
}

// Params are the signature parameters of a verified sig1 signature.
type Params struct {
	// Created is the signature creation time (the created parameter).
	Created time.Time
	// Nonce is the nonce parameter; empty on responses.
	Nonce string
	// KeyID is the keyid parameter; may be empty on responses.
	KeyID string
	// Alg is the alg parameter (always "hmac-sha256" after verification).
	Alg string
	// Components are the covered component identifiers in their serialized
	// form, in signed order, e.g. `"@method"` or `"@target-uri";req`.
	Components []string
}

// SignatureBase builds an RFC 9421 §2.5 signature base. components are the
// covered component identifiers in serialized form (`"date"`,
// `"@method";req`, `"example-dict";key="a"`) in Signature-Input order;
// signatureParams is the Signature-Input member value (everything after
// "label="); value returns a component's canonical value. The result is one
// `<identifier>: <value>` line per component followed by the
// "@signature-params" line, joined by LF with no trailing newline.
func SignatureBase(components []string, signatureParams string, value func(component string) (string, error)) (string, error) {
	var b strings.Builder
	for i, c := range components {
		if c == `"@signature-params"` {
			return "", malformedf("@signature-params cannot be a covered component")
		}
		for _, prev := range components[:i] {
			if prev == c {
				return "", malformedf("component %s covered twice", c)
			}
		}
		v, err := value(c)
		if err != nil {
			return "", err
		}
		// A line break inside a value would let one component forge another
		// line of the base.
		if strings.ContainsAny(v, "\r\n") || strings.ContainsAny(c, "\r\n") {
			return "", malformedf("component %s contains a line break", c)
		}
		b.WriteString(c)
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	if strings.ContainsAny(signatureParams, "\r\n") {
		return "", malformedf("signature parameters contain a line break")
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(signatureParams)
	return b.String(), nil
}

// component is a parsed covered component identifier.
type component struct {
	id     string // serialized identifier as it appears in the base
	name   string
	req    bool   // ;req — taken from the request a response answers
	key    string // ;key="…" — one member of a dictionary header field
	hasKey bool
}

// message supplies component values for one side of an exchange.
type message struct {
	method    string
	targetURI string
	status    int // 0 for requests
	header    http.Header
	request   *message // the request a response answers; nil for requests
}

func (m *message) value(c component) (string, error) {
	src := m
	if c.req {
		if m.request == nil {
			return "", malformedf("component %s: ;req on a request", c.id)
		}
		src = m.request
	}
	if strings.HasPrefix(c.name, "@") {
		if c.hasKey {
			return "", malformedf("component %s: key parameter on a derived component", c.id)
		}
		return src.derived(c)
	}
	if src.header == nil {
		return "", fmt.Errorf("%w: %s (no header fields available)", ErrMissingComponent, c.id)
	}
	vals := src.header.Values(c.name)
	if len(vals) == 0 {
		return "", fmt.Errorf("%w: header %s absent", ErrMissingComponent, c.name)
	}
	v := headerValue(vals)
	if !c.hasKey {
		return v, nil
	}
	d, err := parseDictionary(v)
	if err != nil {
		return "", err
	}
	mem, ok := lookupMember(d, c.key)
	if !ok {
		return "", fmt.Errorf("%w: %s has no member %q", ErrMissingComponent, c.name, c.key)
	}
	out, err := appendMemberValue(nil, mem)
	return string(out), err
}

// headerValue combines field lines per RFC 9421 §2.1: each value trimmed of
// leading and trailing whitespace, multiple values joined by ", ".
func headerValue(vals []string) string {
	if len(vals) == 1 {
		return strings.Trim(vals[0], " \t")
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strings.Trim(v, " \t")
	}
	return strings.Join(parts, ", ")
}

func (m *message) derived(c component) (string, error) {
	// On a response only @status is its own; request-derived components
	// need ;req, which value already resolved to the request message.
	if (m.status != 0) != (c.name == "@status") {
		return "", malformedf("derived component %s does not apply to this message", c.id)
	}
	switch c.name {
	case "@method":
		return m.method, nil
	case "@target-uri":
		return m.targetURI, nil
	case "@status":
		if m.status < 100 || m.status > 999 {
			return "", malformedf("status %d is not a 3-digit code", m.status)
		}
		return strconv.Itoa(m.status), nil
	case "@authority", "@scheme", "@path", "@query":
		u, err := url.Parse(m.targetURI)
		if err != nil || !u.IsAbs() {
			return "", malformedf("target URI %q is not absolute", m.targetURI)
		}
		switch c.name {
		case "@authority":
			return authority(u), nil
		case "@scheme":
			return strings.ToLower(u.Scheme), nil
		case "@path":
			if p := u.EscapedPath(); p != "" {
				return p, nil
			}
			return "/", nil
		default:
			return "?" + u.RawQuery, nil
		}
	}
	return "", malformedf("unsupported derived component %s", c.id)
}

// authority is the lowercased host with the scheme's default port removed
// (RFC 9421 §2.2.3).
func authority(u *url.URL) string {
	host := strings.ToLower(u.Host)
	switch port := u.Port(); {
	case port == "443" && strings.EqualFold(u.Scheme, "https"),
		port == "80" && strings.EqualFold(u.Scheme, "http"):
		host = strings.TrimSuffix(host, ":"+port)
	}
	return host
}

// parseComponents validates the items of a Signature-Input inner list.
func parseComponents(items []item) ([]component, error) {
	out := make([]component, 0, len(items))
	for _, it := range items {
		if it.bare.kind != kindString {
			return nil, malformedf("component identifier is not a string")
		}
		c := component{name: it.bare.str}
		if !validComponentName(c.name) {
			return nil, malformedf("invalid component name %q", c.name)
		}
		for _, p := range it.params {
			switch {
			case p.key == "req" && p.isTrue():
				c.req = true
			case p.key == "key" && p.value.kind == kindString:
				c.key, c.hasKey = p.value.str, true
			default:
				// sf, bs, tr, name and extensions change how a value is
				// computed; the profile needs none of them, so refusing is
				// safer than signing something we compute differently.
				return nil, malformedf("unsupported component parameter %q", p.key)
			}
		}
		id, err := appendItem(nil, it)
		if err != nil {
			return nil, err
		}
		c.id = string(id)
		out = append(out, c)
	}
	return out, nil
}

// validComponentName accepts lowercase field names and @-derived names.
// RFC 9421 requires lowercase identifiers; refusing others avoids two
// spellings of one component.
func validComponentName(s string) bool {
	name := strings.TrimPrefix(s, "@")
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isTChar(c) || (c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// signature is a parsed sig1 pair from Signature-Input and Signature.
type signature struct {
	components []component
	params     Params
	hasCreated bool
	serialized string // canonical Signature-Input member value
	mac        []byte
}

// findSignature extracts and parses the sig1 member of Signature-Input and
// Signature. Other labels are ignored, as RFC 9421 allows several signatures.
func findSignature(h http.Header) (*signature, error) {
	inVals, sigVals := h.Values("Signature-Input"), h.Values("Signature")
	if len(inVals) == 0 || len(sigVals) == 0 {
		return nil, fmt.Errorf("%w: Signature-Input or Signature header absent", ErrMissingSignature)
	}
	in, err := parseDictionary(headerValue(inVals))
	if err != nil {
		return nil, fmt.Errorf("parsing the Signature-Input header: %w", err)
	}
	sigs, err := parseDictionary(headerValue(sigVals))
	if err != nil {
		return nil, fmt.Errorf("parsing the Signature header: %w", err)
	}
	im, ok1 := lookupMember(in, Label)
	sm, ok2 := lookupMember(sigs, Label)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%w: no %s member", ErrMissingSignature, Label)
	}
	if !im.isList {
		return nil, malformedf("Signature-Input %s is not an inner list", Label)
	}
	if sm.isList || sm.item.bare.kind != kindBytes {
		return nil, malformedf("Signature %s is not a byte sequence", Label)
	}
	s := &signature{mac: sm.item.bare.bytes}
	if s.components, err = parseComponents(im.list); err != nil {
		return nil, err
	}
	for _, c := range s.components {
		s.params.Components = append(s.params.Components, c.id)
	}
	for _, p := range im.params {
		var wantKind itemKind
		switch p.key {
		case "created", "expires":
			wantKind = kindInteger
		case "nonce", "keyid", "alg", "tag":
			wantKind = kindString
		default:
			continue // unknown parameters are signed but otherwise ignored
		}
		if p.value.kind != wantKind {
			return nil, malformedf("signature parameter %s has the wrong type", p.key)
		}
		switch p.key {
		case "created":
			s.params.Created, s.hasCreated = time.Unix(p.value.num, 0), true
		case "nonce":
			s.params.Nonce = p.value.str
		case "keyid":
			s.params.KeyID = p.value.str
		case "alg":
			s.params.Alg = p.value.str
		}
	}
	ser, err := appendInnerList(nil, im.list, im.params)
	if err != nil {
		return nil, err
	}
	s.serialized = string(ser)
	return s, nil
}

// checkProfile enforces the parameters and covered components every profile
// signature must have.
func (s *signature) checkProfile(required []string) error {
	if s.params.Alg != Algorithm {
		return fmt.Errorf("%w: alg %q", ErrUnsupportedAlg, s.params.Alg)
	}
	if !s.hasCreated {
		return malformedf("created parameter absent")
	}
	for _, r := range required {
		found := false
		for _, c := range s.params.Components {
			if c == r {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%w: %s not covered", ErrMissingComponent, r)
		}
	}
	return nil
}

// verifyMAC rebuilds the signature base from m and compares HMACs in
// constant time.
func (s *signature) verifyMAC(m *message, key []byte) error {
	base, err := s.base(m)
	if err != nil {
		return err
	}
	if !hmac.Equal(s.mac, mac(key, base)) {
		return ErrBadSignature
	}
	return nil
}

func (s *signature) base(m *message) (string, error) {
	byID := make(map[string]component, len(s.components))
	for _, c := range s.components {
		byID[c.id] = c
	}
	return SignatureBase(s.params.Components, s.serialized, func(id string) (string, error) {
		return m.value(byID[id])
	})
}

func mac(key []byte, base string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(base))
	return h.Sum(nil)
}

// sign computes the signature for components with the given parameters on
// m and returns the Signature-Input and Signature member values.
func sign(m *message, components []string, params []param, key []byte) (input, sig string, err error) {
	if len(key) == 0 {
		return "", "", errors.New("httpsig: empty signing key")
	}
	items := make([]item, len(components))
	comps := make([]component, len(components))
	for i, id := range components {
		// The profile's identifiers are constants; parse them so signing and
		// verification share one code path for component values.
		p := sfParser{s: id}
		it, err := p.parseItem()
		if err != nil {
			return "", "", err
		}
		items[i] = it
		cs, err := parseComponents([]item{it})
		if err != nil {
			return "", "", err
		}
		comps[i] = cs[0]
	}
	ser, err := appendInnerList(nil, items, params)
	if err != nil {
		return "", "", err
	}
	s := &signature{components: comps, serialized: string(ser)}
	for _, c := range comps {
		s.params.Components = append(s.params.Components, c.id)
	}
	base, err := s.base(m)
	if err != nil {
		return "", "", err
	}
	return string(ser), ":" + base64.StdEncoding.EncodeToString(mac(key, base)) + ":", nil
}

func signatureParams(created time.Time, nonce, keyID string) []param {
	ps := []param{{key: "created", value: bareItem{kind: kindInteger, num: created.Unix()}}}
	if nonce != "" {
		ps = append(ps, param{key: "nonce", value: bareItem{kind: kindString, str: nonce}})
	}
	if keyID != "" {
		ps = append(ps, param{key: "keyid", value: bareItem{kind: kindString, str: keyID}})
	}
	return append(ps, param{key: "alg", value: bareItem{kind: kindString, str: Algorithm}})
}

// TargetURI is the @target-uri of a request as its client sends it: the
// absolute URL without the parts that never reach the server (user info,
// fragment), so both ends agree on it. ServerTargetURI is the server's side.
func TargetURI(u *url.URL) (string, error) {
	if u == nil || !u.IsAbs() || u.Host == "" {
		return "", malformedf("request URL must be absolute")
	}
	c := *u
	c.User, c.Fragment, c.RawFragment = nil, "", ""
	return c.String(), nil
}

// ServerTargetURI rebuilds, on the server, the @target-uri the client used:
// scheme (TLS → https), Host and the request target as received (or the
// absolute-form target itself).
func ServerTargetURI(r *http.Request) string {
	if r.RequestURI != "" && !strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI // absolute-form request target
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	uri := r.RequestURI
	if uri == "" {
		uri = r.URL.RequestURI()
	}
	return scheme + "://" + r.Host + uri
}

// SignRequest signs req for the profile. It sets Content-Digest when body is
// non-empty (and removes a stale one otherwise, since the covered set depends
// on it), then Signature-Input and Signature for label sig1 with a fresh
// nonce. Call it after Authorization and Content-Type are set and again on
// every retry. The target URI is req.URL without user info and fragment.
func SignRequest(req *http.Request, body []byte, keyID string, key []byte, created time.Time) error {
	uri, err := TargetURI(req.URL)
	if err != nil {
		return err
	}
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	comps := requestComponentsNoBody
	if len(body) > 0 {
		req.Header.Set("Content-Digest", ContentDigest(body))
		comps = requestComponentsBody
	} else {
		req.Header.Del("Content-Digest")
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet // net/http's meaning of an empty method
	}
	m := &message{method: method, targetURI: uri, header: req.Header}
	nonce := b64url.EncodeToString(randomBytes(nonceLen))
	input, sig, err := sign(m, comps, signatureParams(created, nonce, keyID), key)
	if err != nil {
		return err
	}
	req.Header.Set("Signature-Input", Label+"="+input)
	req.Header.Set("Signature", Label+"="+sig)
	return nil
}

// VerifyRequest verifies the sig1 signature of a request against the
// profile: alg hmac-sha256, created, nonce and keyid present, the body
// variant of the covered set when body is non-empty or Content-Digest is
// present, the HMAC under keyFor(keyid), then the body digest. targetURI is
// the URI as the client used it (a server rebuilds it from scheme, Host and
// RequestURI). Clock window and replay checks are left to the caller, using
// the returned Params (call ReplayCache.Seen only after success, so that
// unauthenticated traffic cannot fill the cache).
func VerifyRequest(req *http.Request, body []byte, targetURI string, keyFor func(keyID string) ([]byte, bool)) (Params, error) {
	return VerifyRequestBody(req, BodyOf(body), targetURI, keyFor)
}

// VerifyRequestBody is VerifyRequest for a body known by its length and SHA-256 (a body the
// verifier streamed through a hash instead of keeping it): the same checks, as strictly.
func VerifyRequestBody(req *http.Request, body Body, targetURI string, keyFor func(keyID string) ([]byte, bool)) (Params, error) {
	s, err := findSignature(req.Header)
	if err != nil {
		return Params{}, err
	}
	required := requestComponentsNoBody
	hasDigest := len(req.Header.Values("Content-Digest")) > 0
	if body.Len > 0 || hasDigest {
		required = requestComponentsBody
	}
	if err := s.checkProfile(required); err != nil {
		return Params{}, err
	}
	if n := len(s.params.Nonce); n < b64url.EncodedLen(nonceLen) || n > maxNonceLen {
		return Params{}, malformedf("nonce must have %d to %d characters", b64url.EncodedLen(nonceLen), maxNonceLen)
	}
	if s.params.KeyID == "" {
		return Params{}, malformedf("keyid parameter absent")
	}
	key, ok := keyFor(s.params.KeyID)
	if !ok || len(key) == 0 {
		return Params{}, fmt.Errorf("%w: %q", ErrUnknownKey, s.params.KeyID)
	}
	m := &message{method: req.Method, targetURI: targetURI, header: req.Header}
	if err := s.verifyMAC(m, key); err != nil {
		return Params{}, err
	}
	// The digest is checked after the HMAC: the HMAC authenticates the
	// Content-Digest header, the digest then binds the body to it.
	if body.Len > 0 || hasDigest {
		if err := verifyContentDigestSum(headerValue(req.Header.Values("Content-Digest")), body.SHA256); err != nil {
			return Params{}, err
		}
	}
	return s.params, nil
}

// SignResponse signs a response bound to its request: it sets Content-Digest
// (also for an empty body, since the digest is always covered), then
// Signature-Input and Signature covering @status, content-digest,
// x-request-id and the request's @method and @target-uri. h must already
// carry X-Request-Id. If the response cannot be signed (no X-Request-Id,
// empty key, non-printable keyID) the signature headers are removed, so the
// client rejects the response rather than trusting it.
func SignResponse(h http.Header, status int, body []byte, reqMethod, reqTargetURI, keyID string, key []byte, created time.Time) {
	h.Set("Content-Digest", ContentDigest(body))
	m := &message{status: status, header: h, request: &message{method: reqMethod, targetURI: reqTargetURI}}
	input, sig, err := sign(m, responseComponents, signatureParams(created, "", keyID), key)
	if err != nil {
		h.Del("Signature-Input")
		h.Del("Signature")
		return
	}
	h.Set("Signature-Input", Label+"="+input)
	h.Set("Signature", Label+"="+sig)
}

// VerifyResponse verifies the sig1 signature of a response to the request
// made with reqMethod and reqTargetURI: alg, created, the response covered
// set, the HMAC under key and the body digest. The keyid is not consulted,
// because the client knows the one key it signs with. It does not judge how
// old the signature is; VerifyResponseAt does.
func VerifyResponse(status int, h http.Header, body []byte, reqMethod, reqTargetURI string, key []byte) error {
	_, err := verifyResponse(status, h, body, reqMethod, reqTargetURI, key)
	return err
}

// VerifyResponseAt is VerifyResponse that also refuses a signature whose
// created parameter is more than MaxSkew from now (the client's clock), so
// that a captured answer cannot be replayed later. Such a signature is
// ErrStale.
func VerifyResponseAt(status int, h http.Header, body []byte, reqMethod, reqTargetURI string, key []byte, now time.Time) error {
	p, err := verifyResponse(status, h, body, reqMethod, reqTargetURI, key)
	if err != nil {
		return err
	}
	if skew := p.Created.Sub(now); skew > MaxSkew || skew < -MaxSkew {
		return fmt.Errorf("%w: created %d s from now", ErrStale, int64(skew/time.Second))
	}
	return nil
}

func verifyResponse(status int, h http.Header, body []byte, reqMethod, reqTargetURI string, key []byte) (Params, error) {
	s, err := findSignature(h)
	if err != nil {
		return Params{}, err
	}
	if err := s.checkProfile(responseComponents); err != nil {
		return Params{}, err
	}
	if len(key) == 0 {
		return Params{}, fmt.Errorf("%w: empty key", ErrUnknownKey)
	}
	m := &message{status: status, header: h, request: &message{method: reqMethod, targetURI: reqTargetURI}}
	if err := s.verifyMAC(m, key); err != nil {
		return Params{}, err
	}
	if err := VerifyContentDigest(headerValue(h.Values("Content-Digest")), body); err != nil {
		return Params{}, err
	}
	return s.params, nil
}
