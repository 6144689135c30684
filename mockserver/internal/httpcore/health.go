package httpcore

import (
	"encoding/json"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// ServeHealth answers GET (or HEAD) /healthz — 200 {"status":"ok"} while the process serves —
// and /readyz — 200 {"status":"ready"} when ready returns nil (nil ready: always), else 503
// {"status":"not_ready","reason":…} — and reports whether r was one of them. Another method
// is 405.
func ServeHealth(w http.ResponseWriter, r *http.Request, ready func() error) bool {
	ans := Health(r, ready)
	if ans == nil {
		return false
	}
	Write(w, r, ans)
	return true
}

// Health is the answer of /healthz or /readyz (ServeHealth), or nil for another path.
func Health(r *http.Request, ready func() error) *Answer {
	if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
		return nil
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return Problem("", problem.New("method_not_allowed", r.Method+" is not allowed here").WithHeader("Allow", "GET, HEAD"))
	}
	status, body := http.StatusOK, map[string]string{"status": "ok"}
	if r.URL.Path == "/readyz" {
		body["status"] = "ready"
		if ready != nil {
			if err := ready(); err != nil {
				status, body = http.StatusServiceUnavailable, map[string]string{"status": "not_ready", "reason": err.Error()}
			}
		}
	}
	b, _ := json.Marshal(body)
	ans := New(status, "application/json", append(b, '\n'))
	ans.Header.Set("Cache-Control", "no-store")
	return ans
}
