// Command load measures the mock server's full stack against the physical limit of a minimal
// net/http handler, in one run, on loopback only, in bounded time.
//
//	go run ./bench/load -duration 10s -c 32
//
// It starts two child processes of itself: the mock server (every feature on: auth, scopes, rate
// limiting with an unlimited custom plan, audit, PHI sealing, journal; with -data DIR, a data
// directory in a fresh directory under DIR, removed at the end) seeded with data, and a
// baseline handler serving the same JSON from a plain map behind a mutex. It drives both with the
// same client and prints requests/s, p50/p99 latency and the ratio ours/baseline per scenario,
// plus the mock server's RSS at rest (after seeding) and after the runs.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

func main() {
	serve := flag.String("serve", "", "internal: run as the child server (mock or baseline)")
	duration := flag.Duration("duration", 2*time.Second, "measuring time per scenario and server")
	conc := flag.Int("c", 32, "concurrent connections")
	patients := flag.Int("patients", 100_000, "patients seeded before the runs")
	only := flag.String("only", "", "comma list of scenarios to run (default all)")
	payments := flag.Int("payments", reportPayments, "internal: payments the child seeds for the revenue report")
	flag.StringVar(&dataDir, "data", "", "run the mock with a data directory: a fresh one under this directory (writes answer once durable)")
	flag.Parse()
	if *serve != "" {
		if err := runServer(*serve, *patients, *payments); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := runDriver(*duration, *conc, *patients, *only); err != nil {
		log.Fatal(err)
	}
}

// dataDir, with -data, is where the mock child makes its data directory.
var dataDir string

// child is a server process started by the driver.
type child struct {
	stopOnce sync.Once
	cmd      *exec.Cmd
	base     string
	info     map[string]string // key=value lines the child printed before "ready"
}

func startChild(kind string, patients, payments int) (*child, error) {
	cmd := exec.Command(os.Args[0], "-serve", kind, "-patients", fmt.Sprint(patients), "-payments", fmt.Sprint(payments), "-data", dataDir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, info: map[string]string{}}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if line == "ready" {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			c.base = c.info["base"]
			return c, nil
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			c.info[k] = v
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("%s server exited before it was ready", kind)
}

func (c *child) stop() { c.stopOnce.Do(c.terminate) }

func (c *child) terminate() {
	_ = c.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
	}
}

// rssMiB reads the resident set size of a process from /proc (Linux).
func rssMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			_, _ = fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}

// scenario is one kind of request, built per iteration from the child's seed info.
type scenario struct {
	name string
	// key names the info entry holding the credential to send ("key" when empty).
	key string
	// request returns method, path and body for iteration i against a server.
	request func(info map[string]string, i int) (string, string, string)
}

var scenarios = []scenario{
	{name: "get by id", request: func(info map[string]string, i int) (string, string, string) {
		return "GET", "/api/v1/patients/" + info["patient"], ""
	}},
	{name: "list page 1", request: func(map[string]string, int) (string, string, string) {
		return "GET", "/api/v1/patients?page=1&perPage=25", ""
	}},
	{name: "list page 400", request: func(map[string]string, int) (string, string, string) {
		return "GET", "/api/v1/patients?page=400&perPage=25", ""
	}},
	{name: "create patient", request: func(_ map[string]string, i int) (string, string, string) {
		return "POST", "/api/v1/patients", fmt.Sprintf(`{"firstName":"Load","lastName":"Test%d","email":"load%d@example.com"}`, i, i)
	}},
	{name: "create payment", request: func(info map[string]string, i int) (string, string, string) {
		invoices := strings.Split(info["invoices"], ",")
		return "POST", "/api/v1/payments", fmt.Sprintf(`{"invoiceId":%q,"amount":%d,"method":"cash"}`, invoices[i%len(invoices)], 100+i%100)
	}},
	{name: "inventory adjust", request: func(info map[string]string, _ int) (string, string, string) {
		return "POST", "/api/v1/inventory/adjust", fmt.Sprintf(`{"productId":%q,"delta":1,"reason":"received"}`, info["product"])
	}},
	{name: "revenue report", key: "reportKey", request: func(map[string]string, int) (string, string, string) {
		return "GET", "/api/v1/reports/revenue", ""
	}},
}

// result is one scenario against one server.
type result struct {
	requests, errors int64
	rps              float64
	p50, p99         time.Duration
}

func drive(ctx context.Context, base string, sc scenario, info map[string]string, conc int, d time.Duration) result {
	key := info["key"]
	if sc.key != "" {
		key = info[sc.key]
	}
	tr := &http.Transport{MaxIdleConns: conc, MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var seq, errs atomic.Int64
	lat := make([][]time.Duration, conc)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				i := int(seq.Add(1))
				method, path, body := sc.request(info, i)
				var rd io.Reader
				if body != "" {
					rd = strings.NewReader(body)
				}
				req, _ := http.NewRequestWithContext(ctx, method, base+path, rd)
				req.Header.Set("Authorization", "Bearer "+key)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				start := time.Now()
				resp, err := hc.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode >= 300 {
						err = errors.New(resp.Status)
					}
				}
				lat[w] = append(lat[w], time.Since(start))
				if err != nil {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{requests: int64(len(all)), errors: errs.Load()}
	if len(all) > 0 {
		r.rps = float64(len(all)) / d.Seconds()
		r.p50 = all[len(all)/2]
		r.p99 = all[len(all)*99/100]
	}
	return r
}

func runDriver(d time.Duration, conc, patients int, only string) error {
	ctx := context.Background()
	start := time.Now()
	// The baseline builds its map while the mock seeds.
	var (
		base    *child
		baseErr error
		wg      sync.WaitGroup
	)
	wg.Go(func() { base, baseErr = startChild("baseline", patients, reportPayments) })
	mock, err := startChild("mock", patients, reportPayments)
	wg.Wait()
	if base != nil {
		defer base.stop()
	}
	if err != nil {
		return err
	}
	defer mock.stop()
	if baseErr != nil {
		return baseErr
	}
	fmt.Printf("seeded the mock in-process in %s (%d patients: %s; %d invoices and %d payments: %s); servers up after %s\n",
		mock.info["seeded"], patients, mock.info["seed.patients"], loadInvoices+reportInvoices, reportPayments, mock.info["seed.billing"], time.Since(start).Round(time.Millisecond))
	if r := mock.info["restarted"]; r != "" {
		fmt.Printf("with a data directory: the seeded mock restarted on it in %s\n", r)
	}
	fmt.Printf("RSS at rest: mock %s MiB empty, %.1f MiB seeded; baseline %.1f MiB seeded\n", mock.info["rss.empty"], rssMiB(mock.cmd.Process.Pid), rssMiB(base.cmd.Process.Pid))

	getRSS := -1.0
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tserver\treq/s\tp50\tp99\terrors\tours/baseline\t\n")
	for _, sc := range scenarios {
		if only != "" && !slices.Contains(strings.Split(only, ","), sc.name) {
			continue
		}
		rb := drive(ctx, base.base, sc, base.info, conc, d)
		rm := drive(ctx, mock.base, sc, mock.info, conc, d)
		ratio := 0.0
		if rb.rps > 0 {
			ratio = rm.rps / rb.rps
		}
		fmt.Fprintf(tw, "%s\tbaseline\t%.0f\t%s\t%s\t%d\t\t\n", sc.name, rb.rps, rb.p50.Round(time.Microsecond), rb.p99.Round(time.Microsecond), rb.errors)
		fmt.Fprintf(tw, "%s\tmock\t%.0f\t%s\t%s\t%d\t%.2f\t\n", sc.name, rm.rps, rm.p50.Round(time.Microsecond), rm.p99.Round(time.Microsecond), rm.errors, ratio)
		if sc.name == "get by id" {
			getRSS = rssMiB(mock.cmd.Process.Pid)
		}
	}
	_ = tw.Flush()
	// Single-connection latency of the hottest path.
	r1 := drive(ctx, mock.base, scenarios[0], mock.info, 1, d)
	fmt.Printf("get by id at c=1: p50 %s, p99 %s (%.0f req/s)\n", r1.p50.Round(time.Microsecond), r1.p99.Round(time.Microsecond), r1.rps)
	if only == "" || slices.Contains(strings.Split(only, ","), "revenue report") {
		rr := drive(ctx, mock.base, scenarios[len(scenarios)-1], mock.info, 1, min(d, 3*time.Second))
		fmt.Printf("revenue report over %d payments at c=1: p50 %s, p99 %s\n", reportPayments, rr.p50.Round(time.Microsecond), rr.p99.Round(time.Microsecond))
	}
	fmt.Printf("RSS after the get run: mock %.1f MiB; after all runs: %.1f MiB\n", getRSS, rssMiB(mock.cmd.Process.Pid))
	mock.stop()
	base.stop()
	if err := freshGetRun(ctx, conc, d); err != nil {
		return err
	}
	fmt.Printf("total time %s\n", time.Since(start).Round(time.Second))
	return nil
}

// freshGetRun measures what serving costs in memory apart from the seed: a mock seeded with
// one patient, its RSS at rest, then after a get run as long as the others.
func freshGetRun(ctx context.Context, conc int, d time.Duration) error {
	m, err := startChild("mock", 1, 0)
	if err != nil {
		return err
	}
	defer m.stop()
	rest := rssMiB(m.cmd.Process.Pid)
	r := drive(ctx, m.base, scenarios[0], m.info, conc, d)
	fmt.Printf("fresh mock (1 patient): RSS %.1f MiB at rest, %.1f MiB after %d gets (%.0f req/s)\n", rest, rssMiB(m.cmd.Process.Pid), r.requests, r.rps)
	return nil
}

// printInfo writes the lines the driver reads before "ready".
func printInfo(kv map[string]string) {
	for k, v := range kv {
		fmt.Printf("%s=%s\n", k, v)
	}
	fmt.Println("ready")
}

// mustJSON marshals v or exits: the child's inputs are fixed.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	return b
}
