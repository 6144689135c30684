package wire_test

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/wire"
)

// plainWellFormedID is WellFormedID as it was before its table: four comparisons a digit.
func plainWellFormedID(s string) bool {
	i := 0
	for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i++
	}
	if i < 3 || i > 4 || len(s) != i+1+wire.IDHexLen || s[i] != '_' {
		return false
	}
	for _, c := range []byte(s[i+1:]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// plainDecodeID is DecodeID as the audit log did it: the shape checked, then the digits decoded.
func plainDecodeID(s string) (string, [16]byte, bool) {
	var raw [16]byte
	if !plainWellFormedID(s) {
		return "", raw, false
	}
	prefix, digits, _ := strings.Cut(s, "_")
	if _, err := hex.Decode(raw[:], []byte(digits)); err != nil {
		return "", raw, false
	}
	return prefix, raw, true
}

// TestDecodeIDIsPlain holds WellFormedID and DecodeID to the plain checks, for every byte at
// every place of a well-formed id, and for random strings near the shape.
func TestDecodeIDIsPlain(t *testing.T) {
	t.Parallel()
	ids := []string{"", "_", "pat_", "pat_0193a1b2c3d4e5f60718293a4b5c6d7e", "acct_0193a1b2c3d4e5f60718293a4b5c6d7e",
		"ab_0193a1b2c3d4e5f60718293a4b5c6d7e", "abcde_0193a1b2c3d4e5f60718293a4b5c6d7e", "pat_0193A1B2C3D4E5F60718293A4B5C6D7E",
		"pat_0193a1b2c3d4e5f60718293a4b5c6d7", "pat_0193a1b2c3d4e5f60718293a4b5c6d7e0"}
	for _, base := range []string{"pat_0193a1b2c3d4e5f60718293a4b5c6d7e", "acct_ffffffffffffffffffffffffffffffff"} {
		for i := range len(base) {
			for c := range 256 {
				ids = append(ids, base[:i]+string([]byte{byte(c)})+base[i+1:])
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "0123456789abcdefgxyzABCF_-\x00\xff"
	for range 20000 {
		b := make([]byte, 34+rng.IntN(5))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		ids = append(ids, string(b))
	}
	for _, s := range ids {
		if got, want := wire.WellFormedID(s), plainWellFormedID(s); got != want {
			t.Fatalf("WellFormedID(%q) = %v, plain %v", s, got, want)
		}
		p, raw, ok := wire.DecodeID(s)
		pp, praw, pok := plainDecodeID(s)
		if p != pp || raw != praw || ok != pok {
			t.Fatalf("DecodeID(%q) = %q %x %v, plain %q %x %v", s, p, raw, ok, pp, praw, pok)
		}
	}
}
