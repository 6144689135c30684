package httpapi

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
)

// Bounds are the limits on what the API keeps for requests (RELIABILITY.md "Bounds",
// docs/protocol.md §13); a zero field is its default.
type Bounds struct {
	// JournalAccounts and JournalTotal bound the journal (controls.DefaultJournalAccounts,
	// controls.DefaultJournalTotal).
	JournalAccounts, JournalTotal int
	// NoncesPerCredential bounds each credential's signature nonces (DefaultNoncesPerCredential).
	NoncesPerCredential int
	// StuffingPairs bounds the (address, tenant) pairs the credential-stuffing guard counts in
	// a minute (DefaultStuffingPairs).
	StuffingPairs int
	// OAuthFamilies and OAuthCodes bound each OAuth client's token families and codes
	// (auth.DefaultMaxFamilies, auth.DefaultMaxCodes).
	OAuthFamilies, OAuthCodes int
	// ArmedFaults bounds the faults armed at once (controls.DefaultArmedFaults).
	ArmedFaults int
}

// SweepInterval is how often, in real time, the server sweeps what expires (Sweep).
const SweepInterval = 10 * time.Second

// Sweep drops what has expired, each on its account's clock: OAuth codes an hour past expiry
// and token families a week past their last token's, signature nonces past their 600 s window,
// idempotency keys past 24 h, rate-limit states at rest or of credentials that no longer exist,
// and the stuffing guard's finished minute. The server runs it every SweepInterval; lookups purge what they meet
// too, so Sweep only gives memory back sooner.
func (a *API) Sweep() {
	a.oauth.Sweep(func(c *auth.OAuthClient) time.Time { return a.accountNow(c.Credential.Account) })
	a.replays.sweep(a.accountNow)
	a.buckets.sweep(a.accountNow, a.credentialExists)
	for _, acct := range a.store.Accounts() {
		acct.SweepIdempotency()
	}
	a.guard.sweep()
}

// credentialExists reports whether an API key or OAuth client has the id.
func (a *API) credentialExists(id string) bool {
	if _, ok := a.keys.ByID(id); ok {
		return true
	}
	_, ok := a.oauth.Client(id)
	return ok
}

// Counts are the sizes of the structures the bounds and sweeps keep in check (tests).
type Counts struct {
	OAuthCodes, OAuthTokens, OAuthFamilies int
	NonceCaches, RateLimitStates           int
	StuffingPairs                          int
	JournalAccounts, JournalEntries        int
	ArmedFaults                            int
}

// Counts returns the sizes of the bounded structures.
func (a *API) Counts() Counts {
	var c Counts
	c.OAuthCodes, c.OAuthTokens, c.OAuthFamilies = a.oauth.Counts()
	c.NonceCaches = a.replays.size()
	a.buckets.byCredential.Range(func(any, any) bool { c.RateLimitStates++; return true })
	c.StuffingPairs = a.guard.size()
	c.JournalAccounts, c.JournalEntries = a.ctl.Journal.Counts()
	c.ArmedFaults = a.ctl.Faults.Size()
	return c
}
