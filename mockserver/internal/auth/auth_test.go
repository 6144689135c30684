package auth

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestAllows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scopes []string
		scope  string
		want   bool
	}{
		{[]string{"*"}, "billing:write", true},
		{[]string{"patients:read"}, "patients:read", true},
		{[]string{"patients:write"}, "patients:read", true}, // write implies read
		{[]string{"patients:read"}, "patients:write", false},
		{[]string{"patients:write"}, "billing:read", false},
		{[]string{"reports:read"}, "reports:read", true},
		{nil, "patients:read", false},
		{[]string{"patients"}, "patients:read", false},
		{[]string{"patients:write"}, "patients", false},
	} {
		c := &Credential{Scopes: tc.scopes}
		if got := c.Allows(tc.scope); got != tc.want {
			t.Errorf("%v allows %q: %t, want %t", tc.scopes, tc.scope, got, tc.want)
		}
	}
}

func TestAllowsIP(t *testing.T) {
	t.Parallel()
	list := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("192.0.2.7/32")}
	for _, tc := range []struct {
		allowed []netip.Prefix
		addr    string
		want    bool
	}{
		{nil, "203.0.113.1", true}, // no list: every address
		{list, "10.1.2.3", true},
		{list, "::ffff:10.1.2.3", true}, // IPv4-mapped IPv6 is the IPv4 address
		{list, "11.0.0.1", false},
		{list, "2001:db8::1", true},
		{list, "2001:db9::1", false},
		{list, "192.0.2.7", true},
		{list, "192.0.2.8", false},
	} {
		c := &Credential{AllowedIPs: tc.allowed}
		if got := c.AllowsIP(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("%v allows %s: %t, want %t", tc.allowed, tc.addr, got, tc.want)
		}
	}
	if (&Credential{AllowedIPs: list}).AllowsIP(netip.Addr{}) {
		t.Error("an unknown address passes an allowlist")
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	c := &Credential{ID: "key_1", Account: "acct_1", Plan: Plans["starter"], Scopes: []string{"*"}, SigningKey: []byte("k")}
	r.Add("msk_test_secret", c)
	if got, ok := r.Lookup("msk_test_secret", anyTime); !ok || got != c {
		t.Fatal("lookup by secret")
	}
	if _, ok := r.Lookup("msk_test_other", anyTime); ok {
		t.Fatal("an unknown secret resolves")
	}
	if got, ok := r.ByID("key_1"); !ok || got != c {
		t.Fatal("lookup by id")
	}
	b, err := r.Export()
	if err != nil || bytes.Contains(b, []byte("msk_test_secret")) {
		t.Fatalf("export holds the secret (or failed: %v): %s", err, b)
	}
	other := NewRegistry()
	if err := other.Import(b); err != nil {
		t.Fatal(err)
	}
	if got, ok := other.Lookup("msk_test_secret", anyTime); !ok || got.ID != "key_1" || got.Account != "acct_1" || string(got.SigningKey) != "k" {
		t.Fatalf("imported: %+v %t", got, ok)
	}
	for _, bad := range []string{`{`, `[{"secretSha256":"zz","credential":{}}]`, `[{"secretSha256":"` + strings.Repeat("0", 64) + `"}]`} {
		fresh := NewRegistry()
		if err := fresh.Import([]byte(bad)); err == nil {
			t.Errorf("%s imported", bad)
		}
		if _, ok := fresh.ByID("key_1"); ok {
			t.Errorf("%s: a failed import added credentials", bad)
		}
	}
	r.Remove("msk_test_secret")
	if _, ok := r.Lookup("msk_test_secret", anyTime); ok {
		t.Fatal("a removed secret resolves")
	}
}

// anyTime is a clock for lookups of secrets that never retire.
func anyTime(string) time.Time { return time.Time{} }

// TestRegistryRotateRevoke: a rotation adds a secret and retires the old one at the given time
// (on the credential's account clock), never leaving more than two; a revocation forgets the
// credential and every secret; both survive Export and Import.
func TestRegistryRotateRevoke(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var clock time.Time
	var asked []string
	now := func(account string) time.Time { asked = append(asked, account); return clock }
	works := func(r *Registry, bearer string) bool { _, ok := r.Lookup(bearer, now); return ok }

	r := NewRegistry()
	c := &Credential{ID: "key_1", Account: "acct_1", SigningSecret: "mss_x"}
	r.Add("s1", c)
	r.Add("other", &Credential{ID: "key_2", Account: "acct_2"})
	if got, ok := r.Rotate("key_1", "s2", t0.Add(time.Minute), time.Time{}); !ok || got != c {
		t.Fatalf("rotate: %v %t", got, ok)
	}
	clock = t0
	if !works(r, "s1") || !works(r, "s2") {
		t.Fatal("both secrets must work in the grace period")
	}
	if len(asked) != 1 || asked[0] != "acct_1" {
		t.Fatalf("the grace period was judged on accounts %q, want the key's (once, for the old secret)", asked)
	}
	clock = t0.Add(time.Minute)
	if works(r, "s1") || !works(r, "s2") {
		t.Fatal("the old secret must stop at its retirement, the new one go on")
	}
	// Persisted, the retiring secret keeps its time.
	clock = t0
	b, err := r.Export()
	if err != nil || bytes.Contains(b, []byte(`"s1"`)) || bytes.Contains(b, []byte(`"s2"`)) {
		t.Fatalf("export: %v %s", err, b)
	}
	back := NewRegistry()
	if err := back.Import(b); err != nil {
		t.Fatal(err)
	}
	if !works(back, "s1") || !works(back, "s2") || !works(back, "other") {
		t.Fatal("imported secrets")
	}
	k1, _ := back.Lookup("s1", now)
	k2, _ := back.Lookup("s2", now)
	if k1 != k2 || k1.SigningSecret != "mss_x" {
		t.Fatal("the two secrets of one key must share one credential after import")
	}
	if b2, _ := back.Export(); !bytes.Equal(b, b2) {
		t.Fatalf("export after import differs:\n%s\n%s", b, b2)
	}
	// Rotating again within the grace period ends the old secret at once: at most two work.
	r.Rotate("key_1", "s3", t0.Add(time.Hour), time.Time{})
	if works(r, "s1") || !works(r, "s2") || !works(r, "s3") {
		t.Fatal("after a second rotation only the last two secrets work")
	}
	// No grace: the old secret stops at once.
	r.Rotate("key_1", "s4", time.Time{}, time.Time{})
	if works(r, "s2") || works(r, "s3") || !works(r, "s4") {
		t.Fatal("a rotation without grace")
	}
	if _, ok := r.Rotate("key_9", "x", time.Time{}, time.Time{}); ok {
		t.Fatal("rotated an unknown key")
	}
	// Revocation: every secret of the key, not the others; twice is false.
	r.Rotate("key_1", "s5", t0.Add(time.Hour), time.Time{})
	if !r.Revoke("key_1") || works(r, "s4") || works(r, "s5") || !works(r, "other") {
		t.Fatal("revoke")
	}
	if _, ok := r.ByID("key_1"); ok || r.Revoke("key_1") {
		t.Fatal("revoked twice")
	}
	if _, err := r.Export(); err != nil {
		t.Fatal(err)
	}
}

// RandomBase62From draws n characters of the alphabet, skipping bytes ≥ 248 (no modulo bias).
func TestRandomBase62From(t *testing.T) {
	t.Parallel()
	src := bytes.NewReader(append(bytes.Repeat([]byte{255, 248}, 4), bytes.Repeat([]byte{0, 61, 62, 247}, 8)...))
	// 255 and 248 are skipped; 0 → '0', 61 → 'z', 62 → '0' (62 % 62), 247 → 'z' (247 % 62 = 61).
	if got := RandomBase62From(src, 8); got != "0z0z0z0z" {
		t.Errorf("RandomBase62From = %q, want 0z0z0z0z", got)
	}
	s := RandomBase62(1000)
	if len(s) != 1000 || strings.Trim(s, base62) != "" {
		t.Errorf("RandomBase62: %d characters, not all base62", len(s))
	}
}

func TestSubset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		want, have []string
		ok         bool
	}{
		{nil, nil, true}, {[]string{"a"}, []string{"a", "b"}, true}, {[]string{"a", "c"}, []string{"a", "b"}, false}, {[]string{"a"}, nil, false},
	} {
		if got := Subset(tc.want, tc.have); got != tc.ok {
			t.Errorf("Subset(%v, %v) = %t", tc.want, tc.have, got)
		}
	}
}

func newClient(o *OAuth, id string) *OAuthClient {
	return o.AddClient(&Credential{ID: id, Account: "acct_" + id, Scopes: []string{"patients:read", "patients:write"}}, "secret-"+id, []string{"https://app.example/cb"})
}

func TestAuthorizationCodes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	o := NewOAuth()
	c := newClient(o, "cli_a")
	newClient(o, "cli_b")
	if !c.CheckSecret("secret-cli_a") || c.CheckSecret("secret-cli_b") {
		t.Fatal("CheckSecret")
	}
	code := func() string {
		return o.NewCode(Code{ClientID: "cli_a", RedirectURI: "https://app.example/cb", Challenge: "ch", Scopes: []string{"patients:read"}, ExpiresAt: now.Add(10 * time.Minute)})
	}
	for _, tc := range []struct {
		name                        string
		client, redirect, challenge string
		at                          time.Time
		ok                          bool
	}{
		{"valid", "cli_a", "https://app.example/cb", "ch", now, true},
		{"another client", "cli_b", "https://app.example/cb", "ch", now, false},
		{"another redirect", "cli_a", "https://evil.example/cb", "ch", now, false},
		{"wrong verifier", "cli_a", "https://app.example/cb", "other", now, false},
		{"expired", "cli_a", "https://app.example/cb", "ch", now.Add(10 * time.Minute), false},
	} {
		v := code()
		if _, ok := o.RedeemCode(v, tc.client, tc.redirect, tc.challenge, tc.at); ok != tc.ok {
			t.Errorf("%s: redeemed %t, want %t", tc.name, ok, tc.ok)
		}
		if tc.client == "cli_a" {
			if _, ok := o.RedeemCode(v, "cli_a", "https://app.example/cb", "ch", now); ok {
				t.Errorf("%s: the code redeemed twice", tc.name)
			}
		}
	}
	// A replayed code revokes what was issued from it.
	v := code()
	grant, ok := o.RedeemCode(v, "cli_a", "https://app.example/cb", "ch", now)
	if !ok {
		t.Fatal("redeem")
	}
	issued := o.Issue(c, grant, grant.Scopes, now, time.Hour, 24*time.Hour, true)
	if _, st := o.Access(issued.Access, func(*OAuthClient) time.Time { return now }); st != TokenValid {
		t.Fatal("access token not valid")
	}
	o.RedeemCode(v, "cli_a", "https://app.example/cb", "ch", now)
	if _, st := o.Access(issued.Access, func(*OAuthClient) time.Time { return now }); st != TokenUnknown {
		t.Fatal("a replayed code left its tokens alive")
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
	at := func(d time.Duration) func(*OAuthClient) time.Time {
		return func(*OAuthClient) time.Time { return now.Add(d) }
	}
	o := NewOAuth()
	a, b := newClient(o, "cli_a"), newClient(o, "cli_b")
	cc := o.Issue(a, nil, []string{"patients:read"}, now, time.Hour, 24*time.Hour, false)
	if cc.Refresh != "" || !strings.HasPrefix(cc.Access, "mat_") {
		t.Fatalf("client credentials: %+v", cc)
	}
	for _, tc := range []struct {
		d    time.Duration
		want TokenState
	}{{0, TokenValid}, {time.Hour - time.Second, TokenValid}, {time.Hour, TokenExpired}} {
		if tok, st := o.Access(cc.Access, at(tc.d)); st != tc.want || (st != TokenUnknown && tok.Client != a) {
			t.Errorf("after %v: state %d, want %d", tc.d, st, tc.want)
		}
	}
	if _, st := o.Access("mat_unknown", at(0)); st != TokenUnknown {
		t.Error("an unknown token resolves")
	}
	pair := o.Issue(a, nil, []string{"patients:read", "patients:write"}, now, time.Hour, 24*time.Hour, true)
	if _, st := o.Access(pair.Refresh, at(0)); st != TokenUnknown {
		t.Error("a refresh token is accepted as an access token")
	}
	for _, tc := range []struct {
		name   string
		client *OAuthClient
		scopes []string
		when   time.Duration
		want   RefreshResult
	}{
		{"another client", b, nil, 0, RefreshInvalid},
		{"wider scope", a, []string{"billing:read"}, 0, RefreshBadScope},
		{"expired", a, nil, 24 * time.Hour, RefreshInvalid},
	} {
		if _, res := o.Refresh(pair.Refresh, tc.client, tc.scopes, now.Add(tc.when), time.Hour, 24*time.Hour); res != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, res, tc.want)
		}
	}
	next, res := o.Refresh(pair.Refresh, a, []string{"patients:read"}, now, time.Hour, 24*time.Hour)
	if res != RefreshOK || next.Refresh == pair.Refresh || len(next.Scopes) != 1 {
		t.Fatalf("rotation: %+v %d", next, res)
	}
	if _, st := o.Access(pair.Access, at(0)); st != TokenValid {
		t.Error("a normal refresh ended the previous access token early")
	}
	// Reuse of the rotated refresh token revokes the whole family.
	if _, res := o.Refresh(pair.Refresh, a, nil, now, time.Hour, 24*time.Hour); res != RefreshInvalid {
		t.Fatal("a rotated refresh token was accepted")
	}
	for _, tok := range []string{pair.Access, next.Access} {
		if _, st := o.Access(tok, at(0)); st != TokenUnknown {
			t.Error("reuse detection left a token of the family alive")
		}
	}
	// Revocation: only the client's own tokens; an access token alone; a refresh token its family.
	p2 := o.Issue(a, nil, []string{"patients:read"}, now, time.Hour, 24*time.Hour, true)
	o.Revoke(p2.Access, b)
	if _, st := o.Access(p2.Access, at(0)); st != TokenValid {
		t.Error("another client revoked the token")
	}
	o.Revoke(p2.Access, a)
	if _, st := o.Access(p2.Access, at(0)); st != TokenUnknown {
		t.Error("revoked access token still valid")
	}
	if _, res := o.Refresh(p2.Refresh, a, nil, now, time.Hour, 24*time.Hour); res != RefreshOK {
		t.Error("revoking an access token ended its refresh token")
	}
	p3 := o.Issue(a, nil, []string{"patients:read"}, now, time.Hour, 24*time.Hour, true)
	o.Revoke(p3.Refresh, nil)
	if _, st := o.Access(p3.Access, at(0)); st != TokenUnknown {
		t.Error("revoking a refresh token left its family's access token alive")
	}
	o.Revoke("mrt_unknown", nil) // ignored
}

func TestExportClients(t *testing.T) {
	t.Parallel()
	o := NewOAuth()
	newClient(o, "cli_a")
	b, err := o.ExportClients()
	if err != nil || bytes.Contains(b, []byte("secret-cli_a")) {
		t.Fatalf("export holds the secret (or failed: %v): %s", err, b)
	}
	other := NewOAuth()
	if err := other.ImportClients(b); err != nil {
		t.Fatal(err)
	}
	c, ok := other.Client("cli_a")
	if !ok || !c.CheckSecret("secret-cli_a") || c.Credential.Account != "acct_cli_a" || len(c.RedirectURIs) != 1 {
		t.Fatalf("imported: %+v %t", c, ok)
	}
	if err := other.ImportClients([]byte(`[{"secretSha256":"x"}]`)); err == nil {
		t.Error("a malformed client imported")
	}
}
