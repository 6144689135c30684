package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver"
)

// keySpecs is -api-key (and MEDSPA_MOCK_API_KEY): the values as given, read by knownKeys after
// the flags are parsed, so a malformed one is reported once, naming the flag, without echoing
// a secret. One value may hold several specs separated by blanks (the environment variable).
type keySpecs []string

func (k *keySpecs) String() string { return strings.Join(*k, " ") }

// Set appends each blank-separated spec of v.
func (k *keySpecs) Set(v string) error {
	*k = append(*k, strings.Fields(v)...)
	return nil
}

// knownKey is one key known before start: the bearer secret and what it may do.
type knownKey struct {
	key    string
	plan   string
	scopes []string
}

// keyScope is a scope of docs/protocol.md §5.
var keyScope = regexp.MustCompile(`^(\*|reports:read|(patients|appointments|billing|inventory|webhooks):(read|write))$`)

// knownKeys reads -api-key: each spec is
//
//	msk_test_<32 base62>[:plan=starter|professional|enterprise][:scopes=S1,S2,…]
//
// (default plan enterprise, scopes *), or @FILE naming a file with
// one spec a line (blank lines and lines starting with # are skipped). The first problem is
// returned, naming the spec by its position, never its secret.
func knownKeys(specs keySpecs) ([]knownKey, error) {
	var out []knownKey
	for i, spec := range specs {
		lines := []string{spec}
		where := fmt.Sprintf("-api-key #%d", i+1)
		if path, ok := strings.CutPrefix(spec, "@"); ok {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			lines = strings.Split(string(b), "\n")
		}
		for n, line := range lines {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if strings.HasPrefix(spec, "@") {
				where = fmt.Sprintf("-api-key %s line %d", spec, n+1)
			}
			k, err := parseKeySpec(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if slices.ContainsFunc(out, func(o knownKey) bool { return o.key == k.key }) {
				return nil, fmt.Errorf("%s: the same key is given twice", where)
			}
			out = append(out, k)
		}
	}
	return out, nil
}

// parseKeySpec reads one key spec (knownKeys has the syntax): the key, then fields split at
// the colons that start a name=value, so scopes=patients:read,billing:write is one field.
func parseKeySpec(spec string) (knownKey, error) {
	k := knownKey{plan: "enterprise", scopes: []string{"*"}}
	var parts []string // the key, then name=value fields; a scope's own colons stay in its field
	for i, tok := range strings.Split(spec, ":") {
		if i > 1 && !strings.Contains(tok, "=") {
			parts[len(parts)-1] += ":" + tok
			continue
		}
		parts = append(parts, tok)
	}
	k.key = parts[0]
	if !wire.IsAPIKey(k.key) {
		return k, errors.New("a key is msk_test_ followed by 32 letters and digits, then optional :plan=…:scopes=…")
	}
	seen := map[string]bool{}
	for _, p := range parts[1:] {
		name, value, ok := strings.Cut(p, "=")
		if !ok || seen[name] {
			return k, fmt.Errorf("%q is not plan=… or scopes=… (each at most once)", p)
		}
		seen[name] = true
		switch name {
		case "plan":
			if !slices.Contains([]string{"starter", "professional", "enterprise"}, value) {
				return k, fmt.Errorf("plan %q: must be starter, professional or enterprise", value)
			}
			k.plan = value
		case "scopes":
			k.scopes = strings.Split(value, ",")
			for _, s := range k.scopes {
				if !keyScope.MatchString(s) {
					return k, fmt.Errorf("scope %q: must be * or <area>:read|write (patients, appointments, billing, inventory, webhooks) or reports:read", s)
				}
			}
		default:
			return k, fmt.Errorf("%q is not plan=… or scopes=…", name+"=")
		}
	}
	return k, nil
}

// provisionKeys registers the known keys in the printed key's account (so they see its
// -fixtures). A key the server already knows — kept by the data directory from an earlier start — is
// left as it is: giving the same -api-key again is not an error.
func provisionKeys(srv *mockserver.Server, keys []knownKey, account string) error {
	for i, k := range keys {
		if _, ok := srv.APIKeyAccount(k.key); ok {
			continue
		}
		_, err := srv.CreateAPIKey(mockserver.APIKeyParams{Key: k.key, Plan: k.plan, Scopes: k.scopes, Account: account})
		if err != nil {
			return fmt.Errorf("-api-key #%d: %w", i+1, err)
		}
	}
	return nil
}
