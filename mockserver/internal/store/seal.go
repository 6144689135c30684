package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// Sealer encrypts PHI with AES-256-GCM (a fresh random nonce per write) and derives blind
// indexes (HMAC-SHA256) for exact-match lookups without opening records.
type Sealer struct {
	aead     cipher.AEAD
	indexKey []byte
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
	return &Sealer{aead: aead, indexKey: ik.Sum(nil)}
}

// Seal encrypts plaintext: nonce || ciphertext || tag.
func (s *Sealer) Seal(plaintext []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	_, _ = crand.Read(nonce)
	return s.aead.Seal(nonce, nonce, plaintext, nil)
}

// Open decrypts what Seal produced.
func (s *Sealer) Open(sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("store: sealed value too short")
	}
	return s.aead.Open(nil, sealed[:n], sealed[n:], nil)
}

// SealText seals free text (notes: PHI); "" is nothing to keep (nil).
func (s *Sealer) SealText(v string) []byte {
	if v == "" {
		return nil
	}
	return s.Seal([]byte(v))
}

// OpenText opens what SealText sealed: "" for nil, or for a value that does not open.
func (s *Sealer) OpenText(sealed []byte) string {
	if sealed == nil {
		return ""
	}
	b, err := s.Open(sealed)
	if err != nil {
		return ""
	}
	return string(b)
}

// Index returns the blind index of a case-insensitive value.
func (s *Sealer) Index(v string) string {
	m := hmac.New(sha256.New, s.indexKey)
	m.Write([]byte(strings.ToLower(strings.TrimSpace(v))))
	return hex.EncodeToString(m.Sum(nil))
}
