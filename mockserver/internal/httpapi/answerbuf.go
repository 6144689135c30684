package httpapi

import (
	"sync"

	"github.com/medspa/medspa-go/patients"
)

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept by
// BenchmarkFenceAnswerBuffers: self-encoded answers (encode.go) are appended to buffers from a
// pool, so a page of patients costs no allocation for its bytes.

// answerBuffers holds the buffers of self-encoded answers: an answer is written (copied) and
// then dead, so its buffer serves the next one.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// patientPages holds the slices list pages are opened into: like an answer's buffer, a page is
// dead once encoded (run), so its slice serves the next page instead of 20 patients' worth of
// zeroed memory per request for the collector. A fenced optimisation kept by
// BenchmarkFencePatientPages (BENCHMARKS.md).
var patientPages = sync.Pool{New: func() any { return new([]patients.Patient) }}

// patientAnswers holds the patients GET by id answers with, for the same reason: one patient's
// worth of memory (about 300 bytes, with pointers) per read less for the collector. A fenced
// optimisation kept by BenchmarkFencePatientPages ("one").
var patientAnswers = sync.Pool{New: func() any { return new(pooledPatient) }}

// releaser is an answer value holding pooled parts, given back by release once it is encoded.
type releaser interface{ release() }

// recycle returns an answer's buffer to the pool (buf nil: the answer was not pooled). Buffers
// grown past 64 KiB (a large page) are left to the collector rather than kept.
func recycle(buf *[]byte, body []byte) {
	if buf == nil || cap(body) > 64<<10 {
		return
	}
	*buf = body[:0]
	answerBuffers.Put(buf)
}
