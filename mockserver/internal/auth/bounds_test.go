package auth

import (
	"testing"
	"time"
)

// TestOAuthPurgedAtExpiry: codes leave memory CodeGrace after they expire, token families
// FamilyGrace after their last token expired, by the sweep or by a lookup, each on its client's
// clock; until then an expired access token is still known (token_expired).
func TestOAuthPurgedAtExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	o := NewOAuth()
	a := newClient(o, "cli_a")
	clock := func(d time.Duration) func(*OAuthClient) time.Time {
		return func(*OAuthClient) time.Time { return now.Add(d) }
	}
	var access []string
	for range 100 {
		v := o.NewCode(Code{ClientID: "cli_a", RedirectURI: "https://app.example/cb", Challenge: "ch", ExpiresAt: now.Add(10 * time.Minute)})
		grant, ok := o.RedeemCode(v, "cli_a", "https://app.example/cb", "ch", now)
		if !ok {
			t.Fatal("redeem")
		}
		access = append(access, o.Issue(a, grant, nil, now, time.Hour, 24*time.Hour, true).Access)
		o.NewCode(Code{ClientID: "cli_a", ExpiresAt: now.Add(10 * time.Minute)}) // never redeemed
	}
	cc := o.Issue(a, nil, nil, now, time.Hour, 0, false) // client credentials: a family of one token
	if c, tok, fam := o.Counts(); c != 200 || tok != 201 || fam != 101 {
		t.Fatalf("before: %d codes, %d tokens, %d families", c, tok, fam)
	}
	o.Sweep(clock(10*time.Minute + CodeGrace))
	if c, tok, fam := o.Counts(); c != 0 || tok != 201 || fam != 101 {
		t.Fatalf("after the codes' expiry: %d codes, %d tokens, %d families", c, tok, fam)
	}
	// Long expired, within its family's grace: still known as expired.
	if _, st := o.Access(access[0], clock(FamilyGrace)); st != TokenExpired {
		t.Fatalf("expired access token of a live family: state %d", st)
	}
	// Past the client-credentials family's grace, a lookup purges it.
	if _, st := o.Access(cc.Access, clock(time.Hour+FamilyGrace)); st != TokenUnknown {
		t.Fatalf("access token of a long-expired family: state %d", st)
	}
	if _, tok, fam := o.Counts(); tok != 200 || fam != 100 {
		t.Fatalf("a lookup did not purge the family it found long expired: %d tokens, %d families", tok, fam)
	}
	o.Sweep(clock(24*time.Hour + FamilyGrace - time.Second))
	if _, tok, fam := o.Counts(); tok != 200 || fam != 100 {
		t.Fatalf("purged before the families' grace ended: %d tokens, %d families", tok, fam)
	}
	o.Sweep(clock(24*time.Hour + FamilyGrace))
	if c, tok, fam := o.Counts(); c != 0 || tok != 0 || fam != 0 {
		t.Fatalf("after the families' grace: %d codes, %d tokens, %d families", c, tok, fam)
	}
}

// TestOAuthBoundsPerClient: families, codes and a family's tokens are bounded.
func TestOAuthBoundsPerClient(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	at := func(*OAuthClient) time.Time { return now }
	o := NewOAuth()
	o.MaxFamilies, o.MaxCodes = 5, 3
	a, b := newClient(o, "cli_a"), newClient(o, "cli_b")
	var pairs []Issued
	for range 8 {
		pairs = append(pairs, o.Issue(a, nil, nil, now, time.Hour, 24*time.Hour, true))
	}
	other := o.Issue(b, nil, nil, now, time.Hour, 24*time.Hour, true)
	if _, tok, fam := o.Counts(); fam != 6 || tok != 12 {
		t.Fatalf("%d families, %d tokens; want 5 of a and 1 of b", fam, tok)
	}
	for i, p := range pairs {
		_, st := o.Access(p.Access, at)
		if want := map[bool]TokenState{true: TokenUnknown, false: TokenValid}[i < 3]; st != want {
			t.Errorf("family %d: access state %d, want %d (the oldest are revoked)", i, st, want)
		}
	}
	if _, st := o.Access(other.Access, at); st != TokenValid {
		t.Error("another client's family was revoked")
	}
	var codes []string
	for range 5 {
		codes = append(codes, o.NewCode(Code{ClientID: "cli_a", RedirectURI: "r", Challenge: "c", ExpiresAt: now.Add(time.Minute)}))
	}
	if c, _, _ := o.Counts(); c != 3 {
		t.Fatalf("%d codes, want 3", c)
	}
	if _, ok := o.RedeemCode(codes[0], "cli_a", "r", "c", now); ok {
		t.Error("a code past the bound was redeemed")
	}
	if _, ok := o.RedeemCode(codes[4], "cli_a", "r", "c", now); !ok {
		t.Error("the newest code was forgotten")
	}
	// A family remembers at most MaxFamilyTokens: refreshing on and on keeps it bounded, and
	// the newest refresh token still rotates.
	p := pairs[7]
	for range 3 * MaxFamilyTokens {
		next, res := o.Refresh(p.Refresh, a, nil, now, time.Hour, 24*time.Hour)
		if res != RefreshOK {
			t.Fatalf("refresh: %d", res)
		}
		p = next
	}
	if _, tok, _ := o.Counts(); tok > 12-2+MaxFamilyTokens {
		t.Fatalf("%d tokens after %d refreshes", tok, 3*MaxFamilyTokens)
	}
	if _, st := o.Access(p.Access, at); st != TokenValid {
		t.Error("the newest access token of a long family is gone")
	}
}
