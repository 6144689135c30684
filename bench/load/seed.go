package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// Seed shape: payments in the load run go to one of loadInvoices invoices, and the revenue
// report's account holds reportPayments payments spread over reportInvoices invoices. Invoice
// totals are far above what any run can pay, so payments never exhaust them.
const (
	loadInvoices   = 32
	reportInvoices = 100
	reportPayments = 100_000
	hugeUnitAmount = 1_000_000_000_000 // × quantity 10,000 = 10^16 minor units per invoice
	seedWorkers    = 8
)

// newSeedClient is an SDK client wired to srv in-process with the load key.
func newSeedClient(srv *mockserver.Server, key string) (*medspa.Client, error) {
	return medspa.New(medspa.WithAPIKey(key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()))
}

// parallel runs f(0..n-1) on seedWorkers goroutines and returns the first error.
func parallel(n int, f func(i int) error) error {
	var (
		mu   sync.Mutex
		ferr error
		wg   sync.WaitGroup
	)
	for w := range seedWorkers {
		wg.Go(func() {
			for i := w; i < n; i += seedWorkers {
				if err := f(i); err != nil {
					mu.Lock()
					if ferr == nil {
						ferr = fmt.Errorf("seed %d: %w", i, err)
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return ferr
}

// seedMock seeds srv through the SDK, in-process and in parallel, so every rule, the audit log
// and the PHI sealing run as they do for API traffic. The load account gets n patients,
// loadInvoices invoices and a product; a second account (its own key) gets the payments for
// the revenue report. It returns the ids and keys the scenarios need, and the
// seed time of each part.
func seedMock(srv *mockserver.Server, key, reportKey string, n, payments int) (map[string]string, error) {
	ctx := context.Background()
	info := map[string]string{}
	c, err := newSeedClient(srv, key)
	if err != nil {
		return nil, err
	}
	rc, err := newSeedClient(srv, reportKey)
	if err != nil {
		return nil, err
	}

	start := time.Now()
	first := make([]string, 1)
	if err := parallel(n, func(i int) error {
		p, _, err := c.Patients.Create(ctx, &patients.CreateParams{
			FirstName: "Seed", LastName: "Patient" + strconv.Itoa(i), Email: "seed" + strconv.Itoa(i) + "@example.com",
		})
		if err == nil && i == 0 {
			first[0] = p.ID
		}
		return err
	}); err != nil {
		return nil, err
	}
	info["patient"] = first[0]
	info["seed.patients"] = time.Since(start).Round(time.Millisecond).String()

	start = time.Now()
	invoices, err := seedInvoices(ctx, c, first[0], loadInvoices)
	if err != nil {
		return nil, err
	}
	info["invoices"] = strings.Join(invoices, ",")
	prod, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "LOAD-1", Name: "Load product", Category: inventory.CategoryConsumable, Price: 1000})
	if err != nil {
		return nil, err
	}
	info["product"] = prod.ID

	rp, _, err := rc.Patients.Create(ctx, &patients.CreateParams{FirstName: "Report", LastName: "Patient", Email: "report@example.com"})
	if err != nil {
		return nil, err
	}
	rinv, err := seedInvoices(ctx, rc, rp.ID, reportInvoices)
	if err != nil {
		return nil, err
	}
	if err := parallel(payments, func(i int) error {
		_, _, err := rc.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: rinv[i%len(rinv)], Amount: 100 + int64(i%100), Method: billing.MethodCash})
		return err
	}); err != nil {
		return nil, err
	}
	info["seed.billing"] = time.Since(start).Round(time.Millisecond).String()
	return info, nil
}

// seedInvoices creates n open invoices of 10^16 minor units each for the patient.
func seedInvoices(ctx context.Context, c *medspa.Client, patient string, n int) ([]string, error) {
	ids := make([]string, n)
	err := parallel(n, func(i int) error {
		inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
			PatientID: patient,
			LineItems: []billing.LineItemParams{{Description: "load", Quantity: 10_000, UnitAmount: medspa.Ptr[int64](hugeUnitAmount)}},
		})
		if err == nil {
			ids[i] = inv.ID
		}
		return err
	})
	return ids, err
}
