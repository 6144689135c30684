package mockserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// WithCORSOrigins lets web pages served from these exact origins ("http://localhost:5173",
// scheme://host[:port], no path) call /api/v1 from a browser: their preflights are answered
// without credentials, and /api/v1 answers carry Access-Control-Allow-Origin. Never the admin
// surface, /oauth or anything else. None by default; New refuses an origin CheckCORSOrigin
// refuses.
func WithCORSOrigins(origins ...string) Option {
	return func(o *options) { o.corsOrigins = append(o.corsOrigins, origins...) }
}

// CheckCORSOrigin says what is wrong with origin as a CORS origin, or nil: it must be exactly
// what a browser sends in Origin — http or https, a host, an optional port, nothing else (no
// path, query, user, wildcard or "null").
func CheckCORSOrigin(origin string) error {
	u, err := url.Parse(origin)
	switch {
	case err != nil || origin == "" || origin == "null" || strings.Contains(origin, "*"):
		return fmt.Errorf("origin %q: not scheme://host[:port]", origin)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("origin %q: the scheme must be http or https", origin)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("origin %q: no host", origin)
	case u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(origin, "?") || strings.HasSuffix(origin, "#"):
		return fmt.Errorf("origin %q: an origin is scheme://host[:port] only (no path, query or user)", origin)
	case origin != strings.ToLower(u.Scheme)+"://"+u.Host || u.Host != strings.ToLower(u.Host):
		return fmt.Errorf("origin %q: write it as browsers send it, in lower case", origin)
	}
	return nil
}

// DataDirWritable says whether the server can keep what it acknowledges in the data directory
// dir: it is created if missing, and a file is created, synced and removed in it. A read-only
// volume, or one the server's user may not write, fails with the reason. The error does not name
// dir: GET /readyz answers it to callers without credentials (the log names it).
func DataDirWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the data directory is not writable: %w", unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, ".ready-*")
	if err != nil {
		return fmt.Errorf("the data directory is not writable: %w", unwrapPath(err))
	}
	err = f.Sync()
	err = errors.Join(err, f.Close(), os.Remove(f.Name()))
	if err != nil {
		return fmt.Errorf("the data directory is not writable: %w", unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the *PathError's own path (the message names the directory once).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readiness is GET /readyz's check: without a data directory, always ready (the state is
// loaded once New returns); with one, DataDirWritable at most once a second. A change of answer
// is logged.
func readiness(dir string, logger *slog.Logger) func() error {
	if dir == "" {
		return nil
	}
	var (
		mu      sync.Mutex
		checked time.Time
		last    error
	)
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(checked) < time.Second {
			return last
		}
		err := DataDirWritable(dir)
		if logger != nil && (err == nil) != (last == nil) {
			if err != nil {
				logger.Warn("not ready", "dir", dir, "reason", err.Error())
			} else {
				logger.Info("ready")
			}
		}
		checked, last = time.Now(), err
		return err
	}
}

// NotReadyHandler is what a binary serves when it cannot start a server that keeps what it
// acknowledges (a read-only data directory: DataDirWritable): GET /healthz is 200, GET /readyz
// 503 with reason, and every other request 503 service_unavailable — nothing is accepted that
// would be lost.
func NotReadyHandler(reason error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpcore.ServeHealth(w, r, func() error { return reason }) {
			return
		}
		problem.Write(w, "", problem.New("service_unavailable", "the server is not ready: "+reason.Error()))
	})
}
