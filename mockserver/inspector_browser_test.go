package mockserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// The inspector page's browser tests drive Debian's chromium, headless, through chromedp; axe-core
// checks every pane. .ci/install-test-deps installs both; these tests fail (never skip) when the
// browser cannot start or axe-core is missing.

// moduleRoot is the repository's root (this file's directory's parent).
func moduleRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Dir(filepath.Dir(file))
}

// axeSource is axe-core's script: MEDSPA_AXE_JS, or the one .ci/install-test-deps installs.
func axeSource(t *testing.T) string {
	path := os.Getenv("MEDSPA_AXE_JS")
	if path == "" {
		path = filepath.Join(moduleRoot(t), ".ci", "node", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("axe-core is missing (%v): run .ci/install-test-deps, or set MEDSPA_AXE_JS", err)
	}
	return string(b)
}

// browser starts a headless chromium for the test (MEDSPA_CHROMIUM, or chromium on PATH).
func browser(t *testing.T) context.Context {
	exe := os.Getenv("MEDSPA_CHROMIUM")
	if exe == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				exe = p
				break
			}
		}
	}
	if exe == "" {
		t.Fatal("no chromium on PATH: run .ci/install-test-deps (apt-get install chromium), or set MEDSPA_CHROMIUM")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 100*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("the browser did not start (%s): %v", exe, err)
	}
	return ctx
}

// run runs browser actions, failing the test with what was being done.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// until waits (up to 10 s) for a JavaScript condition on the page.
func until(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('main').innerText.slice(0, 2000)`))
		t.Fatalf("%s: %v\npage: %s", what, err, text)
	}
}

// eval evaluates a JavaScript expression on the page (awaiting a promise) and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %.80s: %v", expr, err)
	}
	return v
}

// tableHas is a condition: a row of the table contains every one of the texts.
func tableHas(table string, texts ...string) string {
	conds := make([]string, len(texts))
	for i, s := range texts {
		conds[i] = fmt.Sprintf("r.innerText.includes(%q)", s)
	}
	return fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).some((r) => %s)`, table+" tbody tr", strings.Join(conds, " && "))
}

func TestInspectorInBrowser(t *testing.T) {
	t.Parallel()
	axe := axeSource(t)
	env := testenv.New(t, nil)
	acct := env.Key.Account
	sdk := env.ClientFor(t, env.Key.Key, medspa.WithMaxRetries(0))
	bg := context.Background()
	ctx := browser(t)
	shots := os.Getenv("MEDSPA_SCREENSHOTS") != "" // regenerate docs/img/inspector-*.png

	run(t, ctx, "open the page",
		chromedp.Navigate(env.URL+"/__admin/ui/"),
		chromedp.WaitVisible(chromedp.CSS("#pane-requests")),
		chromedp.SetValue(chromedp.ID("account"), acct),
		chromedp.Click(chromedp.CSS("#account-form button")))
	until(t, ctx, "the stream", `document.querySelector('#live').textContent === 'live'`)

	// A request made with the SDK appears without reloading.
	if _, _, err := sdk.Patients.List(bg, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	until(t, ctx, "the SDK's request on the page", tableHas("#requests", "GET", "/api/v1/patients", "200"))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the request took %v to appear", d)
	}

	// A fault armed on the page fails the next SDK call and shows as used.
	run(t, ctx, "arm a fault",
		chromedp.Click(chromedp.ID("tab-faults")),
		chromedp.SetValue(chromedp.ID("fault-path"), "/api/v1/patients"),
		chromedp.SetValue(chromedp.ID("fault-status"), "503"),
		chromedp.Click(chromedp.CSS("#fault-form button[type=submit]")))
	until(t, ctx, "the armed fault", tableHas("#faults", "/api/v1/patients", "503"))
	var pe *client.Error
	if _, _, err := sdk.Patients.List(bg, nil); !errors.As(err, &pe) || pe.Status != 503 {
		t.Fatalf("the SDK call after the fault: %v", err)
	}
	until(t, ctx, "the fault shown as used", `(() => { const c = document.querySelector('#faults tbody tr').cells; return c[4].textContent === '0' && c[5].textContent === '1' && c[6].textContent !== '' })()`)
	until(t, ctx, "the faulted request", tableHas("#requests", "503", "status"))
	if shots {
		screenshot(t, ctx, "inspector-faults.png")
	}

	// A stub armed on the page answers the next call.
	const stubbed = "pat_000000000000000000000000000000aa"
	run(t, ctx, "arm a stub",
		chromedp.SetValue(chromedp.ID("stub-route"), "GET /api/v1/patients/{id}"),
		chromedp.SetValue(chromedp.ID("stub-body"), `{"id":"`+stubbed+`","firstName":"Stub","lastName":"Answer","email":"stub@example.invalid","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`),
		chromedp.Click(chromedp.CSS("#stub-form button[type=submit]")))
	until(t, ctx, "the armed stub", tableHas("#stubs", "GET /api/v1/patients/{id}"))
	p, _, err := sdk.Patients.Get(bg, stubbed)
	if err != nil || p.ID != stubbed {
		t.Fatalf("the stubbed call: %+v %v", p, err)
	}
	until(t, ctx, "the stubbed request", tableHas("#requests", "/api/v1/patients/"+stubbed, "stb_"))

	// A triggered event is delivered; its failed attempt retries when the page moves the clock;
	// resend adds an attempt.
	rc := newReceiver(t, 500)
	if _, _, err := sdk.Webhooks.Create(bg, &webhooks.CreateParams{URL: rc.URL, Events: []webhooks.EventType{webhooks.EventAll}}); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "freeze the clock",
		chromedp.Click(chromedp.ID("tab-clock")),
		chromedp.SetValue(chromedp.ID("clock-at"), "2026-06-01T09:00:00Z"),
		chromedp.Click(chromedp.CSS("#clock-set button[type=submit]")))
	until(t, ctx, "the frozen clock", `document.querySelector('#clock-frozen').textContent === '(frozen)'`)
	run(t, ctx, "trigger an event",
		chromedp.Click(chromedp.ID("tab-events")),
		chromedp.SetValue(chromedp.ID("event-type"), "product.created"),
		chromedp.Click(chromedp.CSS("#event-form button[type=submit]")))
	until(t, ctx, "the triggered event", tableHas("#triggered", "product.created", "prd_"))
	rc.wait(t, webhooks.EventProductCreated)
	run(t, ctx, "the deliveries", chromedp.Click(chromedp.ID("tab-deliveries")))
	until(t, ctx, "the failed attempt with its retry", tableHas("#deliveries", "failed", "500", "2026-06-01 09:00:05Z"))
	run(t, ctx, "advance the clock",
		chromedp.Click(chromedp.ID("tab-clock")),
		chromedp.SetValue(chromedp.ID("clock-by"), "1m"),
		chromedp.Click(chromedp.CSS("#clock-advance button[type=submit]")),
		chromedp.Click(chromedp.ID("tab-deliveries")))
	until(t, ctx, "the retry, delivered", tableHas("#deliveries", "delivered", "204"))
	if shots {
		screenshot(t, ctx, "inspector-deliveries.png")
	}
	before := eval[int](t, ctx, `document.querySelectorAll('#deliveries tbody tr').length`)
	// Clicked from inside the page, in one step: the live stream re-renders the table, and a
	// node found by one command may be gone when the next one clicks it.
	if !eval[bool](t, ctx, `(() => { const b = document.querySelector('#deliveries tbody tr button'); if (!b) return false; b.click(); return true; })()`) {
		t.Fatal("resend: no resend button in the deliveries table")
	}
	until(t, ctx, "the resent attempt", fmt.Sprintf(`document.querySelectorAll('#deliveries tbody tr').length === %d && %s`,
		before+1, tableHas("#deliveries", "(resend)", "delivered")))

	// A broken audit chain shows as broken, with its first bad event.
	if !mockserver.TamperAuditForTest(env.Server, acct, 0) {
		t.Fatal("no audit event to tamper with")
	}
	bad := env.Server.AuditLog(acct).FirstBroken
	run(t, ctx, "the audit pane", chromedp.Click(chromedp.ID("tab-audit")), chromedp.Click(chromedp.ID("audit-refresh")))
	until(t, ctx, "the broken chain", fmt.Sprintf(`document.querySelector('#audit-verdict').textContent.includes('Broken') &&
		document.querySelector('#audit-verdict').textContent.includes(%q) && document.querySelector('#audit tr.broken') !== null`, bad))

	// Accounts and keys: create, rotate, revoke.
	run(t, ctx, "create a key",
		chromedp.Click(chromedp.ID("tab-keys")),
		chromedp.Click(chromedp.CSS("#key-form button[type=submit]")))
	until(t, ctx, "the new key", `document.querySelector('#key-secret').textContent.includes('msk_test_') && `+tableHas("#keys", "key_"))
	run(t, ctx, "rotate it", chromedp.Click(chromedp.ID("key-rotate")))
	until(t, ctx, "the new secret", `document.querySelector('#key-secret').textContent.includes('New secret')`)
	run(t, ctx, "revoke it", chromedp.Click(chromedp.ID("key-revoke")))
	until(t, ctx, "revoked", `document.querySelector('#status').textContent.startsWith('Revoked key_')`)

	// axe-core finds no serious or critical violation on any pane.
	eval[bool](t, ctx, axe+"\n;true")
	for _, pane := range []string{"requests", "deliveries", "events", "audit", "clock", "faults", "keys"} {
		run(t, ctx, "the "+pane+" pane", chromedp.Click(chromedp.ID("tab-"+pane)), chromedp.Sleep(200*time.Millisecond))
		found := eval[[]string](t, ctx, `axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations
			.filter((v) => v.impact === 'serious' || v.impact === 'critical')
			.map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')))`)
		if len(found) > 0 {
			t.Errorf("axe on the %s pane: %v", pane, found)
		}
	}

	// Keyboard: arrow keys move between tabs.
	run(t, ctx, "keyboard", chromedp.Focus(chromedp.ID("tab-requests")), chromedp.KeyEvent(kb.ArrowRight))
	until(t, ctx, "the next tab selected", `document.querySelector('#tab-deliveries').getAttribute('aria-selected') === 'true'`)

	// Readable on a phone: nothing wider than the screen but the tables' own scroll regions.
	run(t, ctx, "a phone's screen", chromedp.EmulateViewport(390, 844), chromedp.Click(chromedp.ID("tab-requests")))
	until(t, ctx, "no page-wide horizontal scroll", `document.documentElement.scrollWidth <= 390`)
	if shots {
		screenshot(t, ctx, "inspector-phone.png")
	}
	run(t, ctx, "back to a laptop's screen", chromedp.EmulateViewport(1280, 800))
	if shots {
		screenshot(t, ctx, "inspector-requests.png")
	}

	// The page's headers: a strict CSP, nosniff.
	resp, err := http.Get(env.URL + "/__admin/ui/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("headers: %v", resp.Header)
	}

	// A page of another origin cannot drive the admin surface: its fetches are refused and
	// nothing is armed.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>other origin</title><script>
window.results = [];
const target = %q;
Promise.allSettled([
  fetch(target + '/__admin/faults', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"status":503,"times":1}'}).then((r) => 'json ' + r.status),
  fetch(target + '/__admin/faults', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"status":503,"times":1}'}).then((r) => 'simple ' + r.type),
  fetch(target + '/__admin/requests').then((r) => 'read ' + r.status),
]).then((rs) => { window.results = rs.map((r) => r.status + ' ' + (r.value || r.reason)); window.done = true; });
</script>`, env.URL)
	}))
	defer evil.Close()
	env.Server.ClearFaults()
	run(t, ctx, "the other origin's page", chromedp.Navigate(evil.URL))
	until(t, ctx, "the other origin's fetches", `window.done === true`)
	results := eval[[]string](t, ctx, `window.results`)
	if len(results) != 3 {
		t.Fatalf("the other origin's page: %v", results)
	}
	for _, r := range results {
		if strings.HasPrefix(r, "fulfilled json") || strings.HasPrefix(r, "fulfilled read") {
			t.Errorf("a cross-origin fetch was answered: %v", results)
		}
	}
	t.Logf("cross-origin fetches: %v", results)
	if armed := env.Server.Faults(""); len(armed) != 0 {
		t.Errorf("a cross-origin page armed a fault: %+v", armed)
	}
}

// screenshot saves the viewport as docs/img/<name> (MEDSPA_SCREENSHOTS=1 go test -run TestInspectorInBrowser).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	run(t, ctx, "settle before "+name, chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) > 200<<10 {
		t.Errorf("%s is %d bytes, over 200 KB", name, len(png))
	}
	if err := os.WriteFile(filepath.Join(moduleRoot(t), "docs", "img", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// With an admin token, the page asks for it once and sends it as a header: the journal and the
// live stream then work; without it, nothing is shown.
func TestInspectorWithAdminToken(t *testing.T) {
	t.Parallel()
	const token = "madm_browser_test_token"
	env := testenv.New(t, []mockserver.Option{mockserver.WithAdminToken(token)})
	ctx := browser(t)
	if _, _, err := env.Client.Patients.List(context.Background(), nil); err != nil { // in the journal before the page opens
		t.Fatal(err)
	}
	run(t, ctx, "open the page", chromedp.Navigate(env.URL+"/__admin/ui/"), chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.Sleep(300*time.Millisecond))
	if n := eval[int](t, ctx, `document.querySelectorAll('#requests tbody tr').length`); n != 0 {
		t.Fatalf("%d requests shown without the token", n)
	}
	run(t, ctx, "give the token",
		chromedp.SetValue(chromedp.ID("token"), token),
		chromedp.Click(chromedp.CSS("#token-form button")))
	until(t, ctx, "the stream with the token", `document.querySelector('#live').textContent === 'live' && document.querySelector('#token-form').hidden`)
	if got := eval[string](t, ctx, `sessionStorage.getItem('medspa.adminToken')`); got != token {
		t.Fatalf("token kept as %q", got)
	}
	until(t, ctx, "the journal with the token", tableHas("#requests", "GET", "/api/v1/patients", "200"))
	if _, _, err := env.Client.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Ada", LastName: "Live", Email: "ada@example.com"}); err != nil {
		t.Fatal(err)
	}
	until(t, ctx, "the live request on the page", tableHas("#requests", "POST", "/api/v1/patients", "201"))
	if page := eval[string](t, ctx, `document.body.innerText`); strings.Contains(page, "Ada") || strings.Contains(page, "ada@example.com") {
		t.Error("PHI on the page")
	}
}
