package httpapi

import (
	"cmp"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// Signature windows of docs/protocol.md §6.
const (
	signatureMaxSkew = 300 * time.Second
	nonceWindow      = 600 * time.Second
)

// signedRequest is a request whose signature verified: its response gets signed too.
type signedRequest struct {
	keyID     string
	key       []byte
	method    string
	targetURI string
}

// DefaultNoncesPerCredential bounds the nonces remembered per credential within the 600 s
// window (RELIABILITY.md "Bounds"): past it, the credential's new signed requests are refused
// as replays (fail closed) until older nonces leave the window.
const DefaultNoncesPerCredential = 100_000

// nonceCaches are the nonces each credential signed with recently, for replay detection. A
// credential's cache is dropped once the sweep finds it empty. The map's lock is held (shared)
// across a lookup and its cache's Seen, and alone by the sweep, so a cache the sweep drops can
// have no nonce on its way in.
type nonceCaches struct {
	capacity int // per credential (0: DefaultNoncesPerCredential)

	mu           sync.RWMutex
	byCredential map[string]*nonceCache
}

type nonceCache struct {
	account string // whose clock sweeps it
	*httpsig.ReplayCache
}

func (n *nonceCaches) seen(c *auth.Credential, nonce string, now time.Time) bool {
	n.mu.RLock()
	if rc := n.byCredential[c.ID]; rc != nil {
		defer n.mu.RUnlock()
		return rc.Seen(nonce, now)
	}
	n.mu.RUnlock()
	n.mu.Lock() // the credential's first nonce (since its cache was swept): create and record at once
	defer n.mu.Unlock()
	rc := n.byCredential[c.ID]
	if rc == nil {
		if n.byCredential == nil {
			n.byCredential = map[string]*nonceCache{}
		}
		rc = &nonceCache{account: c.Account,
			ReplayCache: httpsig.NewBoundedReplayCache(nonceWindow, cmp.Or(n.capacity, DefaultNoncesPerCredential))}
		n.byCredential[c.ID] = rc
	}
	return rc.Seen(nonce, now)
}

// sweep drops nonces past the window, on each credential's account clock, and the caches left
// empty.
func (n *nonceCaches) sweep(now func(account string) time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, rc := range n.byCredential {
		if rc.Sweep(now(rc.account)) == 0 {
			delete(n.byCredential, id)
		}
	}
}

// size is how many credentials have nonces remembered.
func (n *nonceCaches) size() int {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return len(n.byCredential)
}

// verifySignature checks the RFC 9421 signature (docs/protocol.md §6) of a request whose
// credential requires one, and of any request that carries one (a client that signs expects a
// signed answer it can trust): 401 invalid_signature, audited as a denial.
func (a *API) verifySignature(rq *request) *answer {
	if p := a.checkSignature(rq); p != nil {
		return a.deny(rq, p)
	}
	return nil
}

// signatureChecked reports whether verifySignature checks the request's signature: its
// credential requires one, or it carries one the credential can verify.
func signatureChecked(rq *request) bool {
	c := rq.cred
	present := len(rq.Header.Values("Signature")) > 0 || len(rq.Header.Values("Signature-Input")) > 0
	return c.SigningRequired || (present && len(c.SigningKey) > 0)
}

func (a *API) checkSignature(rq *request) *problem.Problem {
	c := rq.cred
	if !signatureChecked(rq) {
		return nil
	}
	invalid := func(detail string) *problem.Problem {
		return problem.New("invalid_signature", detail)
	}
	uri := httpsig.ServerTargetURI(rq.Request)
	signed := &signedRequest{keyID: c.ID, key: c.SigningKey, method: rq.Method, targetURI: uri}
	body := httpsig.BodyOf(rq.body)
	if rq.tooBig {
		body = *rq.bodyDigest // the whole body, hashed as it was read (readBody)
	}
	p, err := httpsig.VerifyRequestBody(rq.Request, body, uri, func(id string) ([]byte, bool) {
		return c.SigningKey, id == c.ID
	})
	if err != nil {
		switch {
		case errors.Is(err, httpsig.ErrMissingSignature):
			return invalid("the request must be signed (RFC 9421)")
		case errors.Is(err, httpsig.ErrMissingComponent):
			return invalid("the signature does not cover every required component")
		case errors.Is(err, httpsig.ErrDigestMismatch):
			return invalid("Content-Digest does not match the body")
		case errors.Is(err, httpsig.ErrUnknownKey):
			return invalid("the signature's keyid is not this credential's")
		default:
			return invalid("the signature does not verify")
		}
	}
	now := a.accountNow(c.Account)
	if p.Created.Sub(now).Abs() > signatureMaxSkew {
		return invalid("the signature's created time is more than 300 seconds from the server clock")
	}
	// The nonce cache lives in memory: a signature made before this process started could be
	// a replay of a request the previous process served. On the account clock, the start is now
	// less the real time since (the time a running clock read then), in the whole seconds of
	// created.
	if start := now.Add(-a.realNow().Sub(a.started)).Truncate(time.Second); p.Created.Before(start) {
		return invalid("the signature was made before the server started: sign the request again")
	}
	if a.replays.seen(c, p.Nonce, now) {
		return invalid("the signature's nonce was already used")
	}
	rq.signed = signed
	return nil
}

// signAnswer signs the answer to a signed request (docs/protocol.md §6): Content-Digest,
// Signature-Input and Signature over its status and body, bound to the request.
func (a *API) signAnswer(rq *request, ans *answer) *answer {
	sig := rq.signed
	if sig == nil || ans.Serve != nil || ans.Drop {
		return ans
	}
	if ans.Header == nil {
		ans.Header = http.Header{}
	}
	ans.Header.Set("X-Request-Id", rq.id) // covered by the signature
	httpsig.SignResponse(ans.Header, ans.Status, ans.Body, sig.method, sig.targetURI, sig.keyID, sig.key,
		a.accountNow(rq.cred.Account))
	return ans
}
