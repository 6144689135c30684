package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
)

// Sealer encrypts PHI with AES-256-GCM (a fresh random nonce per write) and derives blind
// indexes (HMAC-SHA256) for exact-match lookups without opening records.
//
// Every sealed value is bound to where it lives (docs/protocol.md §11; issue 19): its
// associated data names the account, the record's kind and id, and the field, so a sealed
// value copied to another record, field or account does not open. Blind indexes use a key per
// account, derived from the server key with HKDF, so equal values in two accounts do not share
// an index value.
type Sealer struct {
	aead     cipher.AEAD
	key      []byte // the server key, for per-account derivations
	indexKey []byte // the server-level blind index key (KeyCheck)
}

// NewSealer returns a sealer for the 32-byte key, or a random key when key is nil.
func NewSealer(key []byte) *Sealer {
	if key == nil {
		key = make([]byte, 32)
		_, _ = crand.Read(key)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("store: PHI key must be 32 bytes") // a configuration error at start-up, never input
	}
	aead, _ := cipher.NewGCM(block)
	ik := hmac.New(sha256.New, key)
	ik.Write([]byte("medspa blind index"))
	return &Sealer{aead: aead, key: append([]byte(nil), key...), indexKey: ik.Sum(nil)}
}

// sealedAt names where a sealed value lives: its associated data.
type sealedAt struct {
	account, kind, id, field string
}

// ad is the associated data of a sealed value: a version tag, then the account, kind, id and
// field, each NUL-terminated (none of them contains NUL: ids are validated by shape, kinds and
// fields are the store's own names).
func (at sealedAt) ad(buf []byte) []byte {
	b := append(buf[:0], "medspa-mock/seal/2\x00"...)
	for _, s := range []string{at.account, at.kind, at.id, at.field} {
		b = append(append(b, s...), 0)
	}
	return b
}

// adBuffers hold associated data while a value is sealed or opened: a buffer handed to the
// AEAD (an interface) escapes, and one allocation per open would cost a list page 25. A fenced
// optimisation (BENCHMARKS.md "Fenced optimisations"), kept by BenchmarkFenceSealAD.
var adBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 160); return &b }}

// seal encrypts plaintext bound to at: nonce || ciphertext || tag.
func (s *Sealer) seal(plaintext []byte, at sealedAt) []byte {
	ad := adBuffers.Get().(*[]byte)
	defer adBuffers.Put(ad)
	*ad = at.ad(*ad)
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	_, _ = crand.Read(nonce)
	return s.aead.Seal(nonce, nonce, plaintext, *ad)
}

// open decrypts what seal produced for the same at; a value sealed for another place fails.
func (s *Sealer) open(sealed []byte, at sealedAt) ([]byte, error) { return s.openTo(nil, sealed, at) }

// openTo is open appending the plaintext to dst.
func (s *Sealer) openTo(dst, sealed []byte, at sealedAt) ([]byte, error) {
	ad := adBuffers.Get().(*[]byte)
	defer adBuffers.Put(ad)
	*ad = at.ad(*ad)
	return s.openADTo(dst, sealed, *ad)
}

// openUnbound opens a value sealed without associated data: only the migration of state
// written before the binding (medspa-mock-state/1) calls it.
func (s *Sealer) openUnbound(sealed []byte) ([]byte, error) { return s.openAD(sealed, nil) }

func (s *Sealer) openAD(sealed, ad []byte) ([]byte, error) { return s.openADTo(nil, sealed, ad) }

func (s *Sealer) openADTo(dst, sealed, ad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("store: sealed value too short")
	}
	return s.aead.Open(dst, sealed[:n], sealed[n:], ad)
}

// Index returns the server-level blind index of a case-insensitive value (KeyCheck).
func (s *Sealer) Index(v string) string { return blindIndex(s.indexKey, v) }

// accountIndexKey derives an account's blind index key: HKDF-SHA256 of the server key, with the
// account id in the info, so index values of one account say nothing about another's.
func (s *Sealer) accountIndexKey(account string) []byte {
	k, err := hkdf.Key(sha256.New, s.key, nil, "medspa-mock blind index\x00"+account, 32)
	if err != nil {
		panic("store: deriving a blind index key: " + err.Error()) // 32 bytes of SHA-256 HKDF cannot fail
	}
	return k
}

func blindIndex(key []byte, v string) string {
	x := blindIndexValue(key, v)
	return hex.EncodeToString(x[:])
}

// blindIndexValue is the blind index of a case-insensitive value under key.
func blindIndexValue(key []byte, v string) indexValue {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.ToLower(strings.TrimSpace(v))))
	var x indexValue
	m.Sum(x[:0])
	return x
}

// seal seals plaintext for the field of the account's record kind/id.
func (a *Account) seal(kind, id, field string, plaintext []byte) []byte {
	return a.store.sealer.seal(plaintext, sealedAt{a.ID, kind, id, field})
}

// open opens what seal sealed for the same field of the same record of the account.
func (a *Account) open(kind, id, field string, sealed []byte) ([]byte, error) {
	return a.store.sealer.open(sealed, sealedAt{a.ID, kind, id, field})
}

// index returns the account's blind index of a case-insensitive value.
func (a *Account) index(v string) indexValue { return blindIndexValue(a.indexKey, v) }

// sealText seals free text (notes: PHI) for the field of the account's record kind/id; "" is
// nothing to keep (nil).
func (a *Account) sealText(kind, id, field, v string) []byte {
	if v == "" {
		return nil
	}
	return a.seal(kind, id, field, []byte(v))
}

// openText opens what sealText sealed: "" for nil, or for a value that does not open.
func (a *Account) openText(kind, id, field string, sealed []byte) string {
	if sealed == nil {
		return ""
	}
	b, err := a.open(kind, id, field, sealed)
	if err != nil {
		return ""
	}
	return string(b)
}
