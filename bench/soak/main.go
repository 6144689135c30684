// Command soak drives the SDK against the mock server on 127.0.0.1 while the server's fault
// controls break a share of the writes (503 and 429 with Retry-After, connections dropped before
// and after the server commits, 2 s delays), then checks the books: every intended record exists
// exactly once, money and stock reconcile, every webhook event arrived, the audit chain verifies.
//
//	go run ./bench/soak -n 2000 -rate 0.2
//
// It exits 1 when a check fails. Loopback only; bounded by -n and -timeout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	var cfg Config
	flag.IntVar(&cfg.Writes, "n", 2000, "write requests the workload intends (rounded to whole units)")
	flag.Float64Var(&cfg.Rate, "rate", 0.2, "share of writes that get a fault, 0–1")
	flag.IntVar(&cfg.Workers, "workers", 8, "concurrent workers")
	flag.DurationVar(&cfg.Delay, "delay", 2*time.Second, "the delay fault")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "give up after this long")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the fault choices")
	flag.Parse()
	r, err := Run(context.Background(), cfg, os.Stderr)
	if r != nil {
		r.Print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// Print writes the figures.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "units                 %d (%d writes, %d workers, fault rate %.2f)\n", r.Units, r.IntendedWrites, r.Workers, r.Rate)
	fmt.Fprintf(w, "requests              %d (as the server saw them)\n", r.Requests)
	fmt.Fprintf(w, "faults injected       %d (armed %d: %v)\n", r.FaultsInjected, r.FaultsArmed, r.FaultKinds)
	fmt.Fprintf(w, "retries               %d\n", r.Retries)
	fmt.Fprintf(w, "client errors         %d\n", r.ClientErrors)
	fmt.Fprintf(w, "duplicates            %d\n", r.Duplicates)
	fmt.Fprintf(w, "lost writes           %d\n", r.LostWrites)
	fmt.Fprintf(w, "money                 %d invoices, %d payments, %d cents paid: %s\n", r.Invoices, r.Payments, r.Paid, okText(r.MoneyOK))
	fmt.Fprintf(w, "stock                 %d products, %d adjustments: %s\n", r.Products, r.Adjustments, okText(r.StockOK))
	fmt.Fprintf(w, "webhook events        %d emitted, %d delivered (%d deliveries incl. repeats): %s\n", r.Events, r.EventsDelivered, r.Deliveries, okText(r.Events == r.EventsDelivered))
	fmt.Fprintf(w, "audit chain           %d events: %s\n", r.AuditEvents, okText(r.AuditOK))
	fmt.Fprintf(w, "elapsed               %s\n", r.Elapsed.Round(time.Millisecond))
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISMATCH"
}
