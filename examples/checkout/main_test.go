package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	// 2 × 89.00 + 199.00 = 377.00; − 25.00 = 352.00; tax 8.25% = 29.04; total 381.04.
	for _, want := range []string{
		"subtotal 377.00 usd, discount 25.00 usd, tax 29.04 usd, total 381.04 usd",
		"serum on hand after the sale: 10",
		"card declined: insufficient_funds (failed payment pay_",
		"cash 100.00 usd: partially_paid, paid 100.00 usd, due 281.04 usd",
		"card 281.04 usd (visa •••• 4242): paid, paid 381.04 usd, due 0.00 usd",
		"further payments refused",
		"refund ref_", ": 89.00 usd to the card (requested_by_customer); card refunded 89.00 usd of 281.04 usd; invoice paid, refunded 89.00 usd",
		"refund over the 192.04 usd left refused",
		"refunds on the invoice: 1; serum on hand: 11",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
