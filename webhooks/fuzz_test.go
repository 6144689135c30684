package webhooks_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

var sentinelErrs = []error{
	webhooks.ErrMissingHeaders, webhooks.ErrInvalidSecret, webhooks.ErrSignatureMismatch,
	webhooks.ErrTimestampTooOld, webhooks.ErrTimestampTooNew, webhooks.ErrInvalidTimestamp,
	webhooks.ErrInvalidPayload,
}

func isSentinel(err error) bool {
	for _, s := range sentinelErrs {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzVerify feeds arbitrary headers and bodies to Verify. Random signatures
// almost never match, so when resign is set the input is signed properly
// first: that drives arbitrary bodies into the event decoder too. Verify must
// never panic, must fail only with sentinels, and must agree with
// VerifySignature. Seeds live in testdata/fuzz/FuzzVerify as well.
func FuzzVerify(f *testing.F) {
	f.Add(vecID, strconv.Itoa(vecTS), vecSig, []byte(vecBody), false)
	for _, e := range sampleEvents() {
		f.Add(e.ID, strconv.Itoa(vecTS), "", mustMarshal(f, e), true)
	}
	f.Add("evt_1", "1614265330", "v1,AAAA v2,BBBB", []byte(`{"id":"evt_1","type":"x.y","createdAt":"2026-11-22T14:03:00Z","data":{}}`), true)
	f.Add("", "", "", []byte(nil), false)
	f.Add("evt_1", "-1", "v1,", []byte(`{"data":null}`), false)
	f.Add("evt_1", "1614265330", "v1,===", []byte(`{"id":"evt_1","type":"appointment.created","createdAt":"2026-11-22T14:03:00Z","data":{"startAt":"x"}}`), true)

	now := time.Unix(vecTS, 0)
	clock := webhooks.WithNow(func() time.Time { return now })
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte, resign bool) {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		if resign {
			good, err := webhooks.Sign(vecSecret, id, now, body)
			if err != nil {
				t.Fatal(err)
			}
			h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
			h.Set("webhook-signature", sig+" "+good)
		}
		e, err := webhooks.Verify(vecSecret, h, body, clock)
		sigErr := webhooks.VerifySignature(vecSecret, h, body, clock)
		switch {
		case err == nil:
			if e == nil || e.Data == nil || e.ID == "" || e.Type == "" {
				t.Fatalf("Verify accepted an incomplete event: %#v", e)
			}
			if sigErr != nil {
				t.Fatalf("Verify ok but VerifySignature = %v", sigErr)
			}
		case !isSentinel(err):
			t.Fatalf("non-sentinel error %T: %v", err, err)
		case e != nil:
			t.Fatalf("event returned with error %v", err)
		case errors.Is(err, webhooks.ErrInvalidPayload):
			if sigErr != nil {
				t.Fatalf("payload error but VerifySignature = %v", sigErr)
			}
		case !errors.Is(err, sigErr) && !errors.Is(sigErr, err):
			t.Fatalf("Verify = %v, VerifySignature = %v", err, sigErr)
		}
		if resign && err != nil && !errors.Is(err, webhooks.ErrInvalidPayload) && id != "" {
			t.Fatalf("properly signed delivery rejected: %v", err)
		}
		// An accepted event of a known type re-encodes and decodes to the same
		// typed data, so the mock and receivers can't drift apart.
		if err == nil && e.Type.Valid() && e.Type != webhooks.EventAll {
			b, merr := json.Marshal(e)
			if merr != nil {
				t.Fatalf("re-marshal: %v", merr)
			}
			var again webhooks.Event
			if uerr := json.Unmarshal(b, &again); uerr != nil {
				t.Fatalf("decode of re-marshaled event: %v\n%s", uerr, b)
			}
		}
	})
}
