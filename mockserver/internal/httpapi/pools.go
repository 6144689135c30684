package httpapi

import (
	"sync"

	"github.com/medspa/medspa-go/patients"
)

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept for its outside gain: a
// list page's patients and every self-encoded answer's bytes come from pools, so a page costs
// the collector no 13 KB (the list's ratio to the bare server was about 0.1 lower without them,
// issue 28). Both are zeroed before they go back: no PHI sits in a pool after an answer.

// pageSlices hold the slices a list page's patients are opened into, until the page is encoded.
var pageSlices = sync.Pool{New: func() any { return new([]patients.Patient) }}

// answerBuffers hold the bytes of self-encoded answers (jsonAppender), until they are written.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooled bounds what the pools keep: a larger buffer (a long page) is left to the collector.
const maxPooled = 64 << 10

// recycle gives an answer's pooled bytes back, zeroed, once the answer is on the wire.
func recycle(ans *answer) {
	if ans.Pooled == nil || cap(ans.Body) > maxPooled {
		return
	}
	b := ans.Body[:cap(ans.Body)]
	clear(b)
	*ans.Pooled = b[:0]
	answerBuffers.Put(ans.Pooled)
	ans.Pooled, ans.Body = nil, nil
}

// releasePage gives a page's slice back, its patients zeroed, once the page is encoded.
func releasePage(page *[]patients.Patient, items []patients.Patient) {
	if cap(items) > maxPooled {
		return
	}
	items = items[:cap(items)]
	clear(items)
	*page = items[:0]
	pageSlices.Put(page)
}
