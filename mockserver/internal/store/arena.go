package store

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept by
// BenchmarkFenceIdempotencyArena: the day of idempotency answers an account keeps lives in
// pointer-free chunks, so the garbage collector never scans it; plain entries (a []byte each)
// cost a scan of every entry at every GC cycle.

// arena holds byte strings back to back in chunks that contain no pointers.
type arena struct {
	chunks [][]byte
	size   int // bytes added
}

// arenaRef locates a value in an arena.
type arenaRef struct{ chunk, off, n uint32 }

const arenaChunk = 1 << 20

func (a *arena) add(b []byte) arenaRef {
	if len(b) == 0 {
		return arenaRef{}
	}
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < len(b) {
		a.chunks = append(a.chunks, make([]byte, 0, max(arenaChunk, len(b))))
		last++
	}
	c := a.chunks[last]
	ref := arenaRef{chunk: uint32(last), off: uint32(len(c)), n: uint32(len(b))}
	a.chunks[last] = append(c, b...)
	a.size += len(b)
	return ref
}

func (a *arena) get(r arenaRef) []byte {
	if r.n == 0 {
		return nil
	}
	return a.chunks[r.chunk][r.off : r.off+r.n : r.off+r.n]
}
