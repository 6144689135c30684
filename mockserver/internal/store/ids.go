package store

import (
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// IDGen makes ids: prefix + "_" + 32 hex digits of a UUIDv7 (48-bit millisecond time, a 12-bit
// counter, random bits). Ids are strictly increasing in generation order (RFC 9562 §6.2, method
// 1), so records created in the same second keep their creation order. A seeded generator is
// reproducible; its secrets (Rand) are not, unless PredictableSecrets.
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
	return &IDGen{rnd: rand.NewChaCha8(s)}
}

// PredictableSecrets draws the generator's secrets (Rand) from a stream derived from seed
// instead of crypto/rand, so that a seeded server hands out the same secrets run after run:
// for tests that compare whole answers only (anyone who knows the seed knows every secret).
func (g *IDGen) PredictableSecrets(seed uint64) {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	s[31] = 1 // a second stream, so secrets do not shift the ids
	g.secrets = &lockedReader{r: rand.NewChaCha8(s)}
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

// MarshalBinary saves the generator's state, so a restarted server continues the sequence
// instead of repeating it.
func (g *IDGen) MarshalBinary() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := idGenState{LastMs: g.lastMs, Seq: g.seq}
	var err error
	if st.Rand, err = g.rnd.MarshalBinary(); err != nil {
		return nil, err
	}
	if g.secrets != nil {
		g.secrets.mu.Lock()
		st.Secrets, err = g.secrets.r.MarshalBinary()
		g.secrets.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(st)
}

// UnmarshalBinary restores what MarshalBinary saved.
func (g *IDGen) UnmarshalBinary(b []byte) error {
	var st idGenState
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.rnd.UnmarshalBinary(st.Rand); err != nil {
		return err
	}
	if g.secrets != nil && st.Secrets != nil {
		g.secrets.mu.Lock()
		err := g.secrets.r.UnmarshalBinary(st.Secrets)
		g.secrets.mu.Unlock()
		if err != nil {
			return err
		}
	}
	g.lastMs, g.seq = st.LastMs, st.Seq
	return nil
}

type idGenState struct {
	Rand    []byte `json:"rand"`
	Secrets []byte `json:"secrets,omitempty"`
	LastMs  uint64 `json:"lastMs"`
	Seq     uint16 `json:"seq"`
}

// Observe moves the generator past an id it made before (read back from a data directory's
// log), so the ids it makes next sort after it, even on a frozen clock. Ids of another shape
// are ignored.
func (g *IDGen) Observe(id string) {
	i := strings.LastIndexByte(id, '_')
	var u [16]byte
	if i < 0 || len(id)-i-1 != 2*len(u) {
		return
	}
	if _, err := hex.Decode(u[:], []byte(id[i+1:])); err != nil {
		return
	}
	ms := uint64(u[0])<<40 | uint64(u[1])<<32 | uint64(u[2])<<24 | uint64(u[3])<<16 | uint64(u[4])<<8 | uint64(u[5])
	seq := uint16(u[6]&0x0f)<<8 | uint16(u[7])
	g.mu.Lock()
	if ms > g.lastMs || (ms == g.lastMs && seq > g.seq) {
		g.lastMs, g.seq = ms, seq
	}
	g.mu.Unlock()
}

// Reseed mixes salt into the generator's random streams. A seeded server that restarts after
// a crash continues from its last saved state, which it may already have drawn from since:
// reseeding with what the log replayed keeps it from handing out the same secrets again,
// and keeps it reproducible (the same log, the same stream).
func (g *IDGen) Reseed(salt []byte) {
	mix := func(r *rand.ChaCha8, domain string) *rand.ChaCha8 {
		st, _ := r.MarshalBinary()
		h := sha256.New()
		h.Write([]byte(domain))
		h.Write(st)
		h.Write(salt)
		var seed [32]byte
		h.Sum(seed[:0])
		return rand.NewChaCha8(seed)
	}
	g.mu.Lock()
	g.rnd = mix(g.rnd, "ids")
	g.mu.Unlock()
	if g.secrets != nil {
		g.secrets.mu.Lock()
		g.secrets.r = mix(g.secrets.r, "secrets")
		g.secrets.mu.Unlock()
	}
}
