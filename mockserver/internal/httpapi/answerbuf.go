package httpapi

import "sync"

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept by
// BenchmarkFenceAnswerBuffers: self-encoded answers (encode.go) are appended to buffers from a
// pool, so a page of patients costs no allocation for its bytes.

// answerBuffers holds the buffers of self-encoded answers: an answer is written (copied) and
// then dead, so its buffer serves the next one.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// recycle returns an answer's buffer to the pool (buf nil: the answer was not pooled). Buffers
// grown past 64 KiB (a large page) are left to the collector rather than kept.
func recycle(buf *[]byte, body []byte) {
	if buf == nil || cap(body) > 64<<10 {
		return
	}
	*buf = body[:0]
	answerBuffers.Put(buf)
}
