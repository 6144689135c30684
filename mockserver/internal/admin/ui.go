package admin

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// uiFiles are the inspector page's files: plain HTML, CSS and one dependency-free script, no
// build step (docs/mock-server.md "Inspector").
//
//go:embed ui
var uiFiles embed.FS

// uiCSP is the inspector page's Content-Security-Policy: only this origin's own files, no
// inline script or style, never framed (SECURITY.md).
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// uiPrefix is the inspector page's address.
const uiPrefix = "/__admin/ui/"

// isUIFile reports whether r asks for one of the inspector page's files: they hold no data, so
// a browser gets them without the admin token (which the page then asks for, and sends as a
// header on every admin call). Host and Origin are checked as for every admin request.
func isUIFile(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(strings.HasPrefix(r.URL.Path, uiPrefix) || r.URL.Path+"/" == uiPrefix) // /__admin/ui: the redirect to the page
}

// serveUI serves GET /__admin/ui/{file}: index.html for the directory.
func serveUI(rq *request) *httpcore.Answer {
	if rq.URL.Path+"/" == uiPrefix {
		ans := &httpcore.Answer{Status: http.StatusMovedPermanently, Header: http.Header{}}
		ans.Header.Set("Location", uiPrefix)
		return ans
	}
	name := rq.PathValue("file")
	if name == "" {
		name = "index.html"
	}
	b, err := fs.ReadFile(uiFiles, path.Join("ui", name))
	if err != nil || strings.Contains(name, "..") {
		return rq.problem(problem.NotFound("inspector file"))
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	ans := httpcore.New(http.StatusOK, ct, b)
	h := ans.Header
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	return ans
}
