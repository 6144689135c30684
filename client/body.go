package client

import (
	"errors"
	"fmt"
	"io"
)

// ErrResponseTooLarge is returned (wrapped) when a response body is larger than the client's
// limit (WithMaxResponseBytes): the client stopped reading at the limit and returns none of it.
var ErrResponseTooLarge = errors.New("medspa: response body too large")

// readBody reads a whole response body, but never more than limit bytes: a body that is longer
// (or says so in Content-Length) is ErrResponseTooLarge after at most limit+1 bytes were read,
// and the buffer never grows past limit+1 bytes, whatever the server sends.
func readBody(r io.Reader, contentLength, limit int64) ([]byte, error) {
	if contentLength > limit {
		return nil, fmt.Errorf("%w: Content-Length %d over the limit of %d bytes", ErrResponseTooLarge, contentLength, limit)
	}
	size := int64(512)
	if contentLength >= 0 {
		size = contentLength + 1 // one more, to see the end without growing
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, fmt.Errorf("%w: over the limit of %d bytes", ErrResponseTooLarge, limit)
			}
			size := 2 * int64(cap(buf))
			if size >= limit {
				size = limit + 1 // rather than limit, then limit+1
			}
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > limit {
				return nil, fmt.Errorf("%w: over the limit of %d bytes", ErrResponseTooLarge, limit)
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
