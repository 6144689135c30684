package client

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// bodyTimeout bounds reading each response body of rt to d (Timeouts.Body; 0: unbounded).
func bodyTimeout(rt http.RoundTripper, d time.Duration) http.RoundTripper {
	if d <= 0 {
		return rt
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.Body == nil || resp.Body == http.NoBody {
			return resp, err
		}
		b := &timedBody{body: resp.Body, d: d}
		b.timer = time.AfterFunc(d, func() {
			b.expired.Store(true)
			_ = b.body.Close() // unblocks a Read waiting for a stalled server
		})
		resp.Body = b
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// timedBody is a response body that is closed when its time is up.
type timedBody struct {
	body    io.ReadCloser
	d       time.Duration
	timer   *time.Timer
	expired atomic.Bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err != nil && err != io.EOF && b.expired.Load() {
		err = fmt.Errorf("the response body did not arrive within %v (Timeouts.Body): %w", b.d, os.ErrDeadlineExceeded)
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.timer.Stop()
	return b.body.Close()
}
