package store

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// IDGen makes ids: prefix + "_" + 32 hex digits of a UUIDv7 (48-bit millisecond time, a 12-bit
// counter, random bits). Ids are strictly increasing in generation order (RFC 9562 §6.2, method
// 1), so records created in the same second keep their creation order. A seeded generator is
// reproducible.
type IDGen struct {
	mu     sync.Mutex
	rnd    *rand.ChaCha8
	lastMs uint64
	seq    uint16
	// secrets is the seeded source behind Rand (nil: crypto/rand).
	secrets *lockedReader
}

// NewIDGen returns a generator; seed 0 means a random seed.
func NewIDGen(seed uint64) *IDGen {
	var s [32]byte
	if seed == 0 {
		_, _ = crand.Read(s[:])
	} else {
		binary.LittleEndian.PutUint64(s[:], seed)
	}
	g := &IDGen{rnd: rand.NewChaCha8(s)}
	if seed != 0 {
		s[31] = 1 // a second stream, so secrets do not shift the ids
		g.secrets = &lockedReader{r: rand.NewChaCha8(s)}
	}
	return g
}

// lockedReader makes a ChaCha8 stream safe for concurrent use.
type lockedReader struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func (l *lockedReader) Read(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(b)
}

var cryptoReader = crand.Reader

// New returns an id for the time t.
func (g *IDGen) New(prefix string, t time.Time) string {
	var u [16]byte
	ms := uint64(max(t.UnixMilli(), 0))
	g.mu.Lock()
	_, _ = g.rnd.Read(u[8:])
	if ms > g.lastMs {
		g.lastMs, g.seq = ms, 0
	} else if g.seq++; g.seq > 0xfff {
		g.lastMs, g.seq = g.lastMs+1, 0
	}
	ms, seq := g.lastMs, g.seq
	g.mu.Unlock()
	u[6], u[7] = byte(seq>>8), byte(seq)
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // RFC 9562 variant
	var hx [32]byte
	hex.Encode(hx[:], u[:])
	var b strings.Builder // one allocation: the id itself
	b.Grow(len(prefix) + 1 + len(hx))
	b.WriteString(prefix)
	b.WriteByte('_')
	b.Write(hx[:])
	return b.String()
}
