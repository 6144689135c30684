package webhooks_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

// The Standard Webhooks specification's published test vector.
const (
	vecSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vecID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vecTS     = 1614265330
	vecBody   = `{"test": 2432232314}`
	vecSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

var vecTime = time.Unix(vecTS, 0)

func at(t time.Time) webhooks.VerifyOption { return webhooks.WithNow(func() time.Time { return t }) }

func vecHeader() http.Header {
	h := http.Header{}
	h.Set("webhook-id", vecID)
	h.Set("webhook-timestamp", strconv.Itoa(vecTS))
	h.Set("webhook-signature", vecSig)
	return h
}

func TestStandardWebhooksVector(t *testing.T) {
	t.Parallel()
	sig, err := webhooks.Sign(vecSecret, vecID, vecTime, []byte(vecBody))
	if err != nil || sig != vecSig {
		t.Fatalf("Sign = %q, %v; want %q", sig, err, vecSig)
	}
	if err := webhooks.VerifySignature(vecSecret, vecHeader(), []byte(vecBody), at(vecTime)); err != nil {
		t.Fatalf("VerifySignature: %v", err)
	}
	// The vector's body is not an event, so full verification must get past
	// the signature and then refuse the payload.
	if _, err := webhooks.Verify(vecSecret, vecHeader(), []byte(vecBody), at(vecTime)); !errors.Is(err, webhooks.ErrInvalidPayload) {
		t.Fatalf("Verify err = %v; want ErrInvalidPayload", err)
	}
	// The reference libraries accept the secret without its prefix too.
	bare := strings.TrimPrefix(vecSecret, "whsec_")
	if err := webhooks.VerifySignature(bare, vecHeader(), []byte(vecBody), at(vecTime)); err != nil {
		t.Fatalf("VerifySignature with bare secret: %v", err)
	}
}

func TestSignHeaders(t *testing.T) {
	t.Parallel()
	h, err := webhooks.SignHeaders(vecSecret, vecID, vecTime, []byte(vecBody))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Webhook-Id":        vecID,
		"Webhook-Timestamp": strconv.Itoa(vecTS),
		"Webhook-Signature": vecSig,
		"Content-Type":      "application/json",
	}
	if len(h) != len(want) {
		t.Errorf("got %d headers, want %d: %v", len(h), len(want), h)
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if _, err := webhooks.SignHeaders("whsec_!!", vecID, vecTime, nil); !errors.Is(err, webhooks.ErrInvalidSecret) {
		t.Errorf("SignHeaders with bad secret: %v", err)
	}
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	a, b := webhooks.NewSecret(), webhooks.NewSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	for _, s := range []string{a, b} {
		rest, ok := strings.CutPrefix(s, "whsec_")
		key, err := base64.StdEncoding.DecodeString(rest)
		if !ok || err != nil || len(key) != 24 {
			t.Errorf("NewSecret() = %q: want whsec_ + base64 of 24 bytes", s)
		}
		if _, err := webhooks.Sign(s, "msg", vecTime, nil); err != nil {
			t.Errorf("Sign with NewSecret: %v", err)
		}
	}
}

// signed returns headers for body at ts, with the signature header replaced
// by sig when sig is not empty.
func signed(t *testing.T, secret, id string, ts time.Time, body []byte) http.Header {
	t.Helper()
	h, err := webhooks.SignHeaders(secret, id, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestVerifySentinels(t *testing.T) {
	t.Parallel()
	secret := webhooks.NewSecret()
	other := webhooks.NewSecret()
	now := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	body := mustMarshal(t, sampleEvents()[0])
	good := func() http.Header { return signed(t, secret, "evt_1", now, body) }
	with := func(k, v string) http.Header { h := good(); h.Set(k, v); return h }
	without := func(k string) http.Header { h := good(); h.Del(k); return h }

	tests := []struct {
		name   string
		secret string
		header http.Header
		body   []byte
		want   error // nil: Verify succeeds
	}{
		{"valid", secret, good(), body, nil},
		{"empty secret", "", good(), body, webhooks.ErrInvalidSecret},
		{"prefix only", "whsec_", good(), body, webhooks.ErrInvalidSecret},
		{"secret not base64", "whsec_***", good(), body, webhooks.ErrInvalidSecret},
		{"no headers", secret, http.Header{}, body, webhooks.ErrMissingHeaders},
		{"no id", secret, without("webhook-id"), body, webhooks.ErrMissingHeaders},
		{"no timestamp", secret, without("webhook-timestamp"), body, webhooks.ErrMissingHeaders},
		{"no signature", secret, without("webhook-signature"), body, webhooks.ErrMissingHeaders},
		{"empty signature", secret, with("webhook-signature", ""), body, webhooks.ErrMissingHeaders},
		{"timestamp not a number", secret, with("webhook-timestamp", "soon"), body, webhooks.ErrInvalidTimestamp},
		{"timestamp signed", secret, with("webhook-timestamp", "+"+strconv.FormatInt(now.Unix(), 10)), body, webhooks.ErrInvalidTimestamp},
		{"timestamp fractional", secret, with("webhook-timestamp", strconv.FormatInt(now.Unix(), 10)+".0"), body, webhooks.ErrInvalidTimestamp},
		{"timestamp overflow", secret, with("webhook-timestamp", "99999999999999999999"), body, webhooks.ErrInvalidTimestamp},
		{"too old", secret, signed(t, secret, "evt_1", now.Add(-time.Hour), body), body, webhooks.ErrTimestampTooOld},
		{"too new", secret, signed(t, secret, "evt_1", now.Add(time.Hour), body), body, webhooks.ErrTimestampTooNew},
		{"far future", secret, with("webhook-timestamp", "9223372036854775807"), body, webhooks.ErrTimestampTooNew},
		{"zero timestamp", secret, with("webhook-timestamp", "0"), body, webhooks.ErrTimestampTooOld},
		{"wrong secret", other, good(), body, webhooks.ErrSignatureMismatch},
		{"tampered body", secret, good(), append([]byte(" "), body...), webhooks.ErrSignatureMismatch},
		{"tampered id", secret, with("webhook-id", "evt_2"), body, webhooks.ErrSignatureMismatch},
		{"tampered timestamp", secret, with("webhook-timestamp", strconv.FormatInt(now.Unix()+1, 10)), body, webhooks.ErrSignatureMismatch},
		{"no version", secret, with("webhook-signature", strings.TrimPrefix(good().Get("webhook-signature"), "v1,")), body, webhooks.ErrSignatureMismatch},
		{"v2 only", secret, with("webhook-signature", "v2,"+strings.TrimPrefix(good().Get("webhook-signature"), "v1,")), body, webhooks.ErrSignatureMismatch},
		{"signature not base64", secret, with("webhook-signature", "v1,***"), body, webhooks.ErrSignatureMismatch},
		{"truncated signature", secret, with("webhook-signature", good().Get("webhook-signature")[:20]), body, webhooks.ErrSignatureMismatch},
		{"empty body", secret, signed(t, secret, "evt_1", now, nil), nil, webhooks.ErrInvalidPayload},
		{"body not JSON", secret, signed(t, secret, "evt_1", now, []byte("hello")), []byte("hello"), webhooks.ErrInvalidPayload},
		{"body not event", secret, signed(t, secret, "evt_1", now, []byte(`{"id":"evt_1"}`)), []byte(`{"id":"evt_1"}`), webhooks.ErrInvalidPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := webhooks.Verify(tt.secret, tt.header, tt.body, at(now))
			if tt.want == nil {
				if err != nil || e == nil {
					t.Fatalf("Verify = %v, %v; want an event", e, err)
				}
				return
			}
			if !errors.Is(err, tt.want) || e != nil {
				t.Fatalf("Verify = %v, %v; want %v", e, err, tt.want)
			}
			// VerifySignature agrees on everything but the payload.
			sigErr := webhooks.VerifySignature(tt.secret, tt.header, tt.body, at(now))
			if tt.want == webhooks.ErrInvalidPayload {
				if sigErr != nil {
					t.Fatalf("VerifySignature = %v; want nil", sigErr)
				}
			} else if !errors.Is(sigErr, tt.want) {
				t.Fatalf("VerifySignature = %v; want %v", sigErr, tt.want)
			}
		})
	}
}

func TestVerifyRotation(t *testing.T) {
	t.Parallel()
	oldSecret, newSecret := webhooks.NewSecret(), webhooks.NewSecret()
	now := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	body := mustMarshal(t, sampleEvents()[0])
	sigOld, _ := webhooks.Sign(oldSecret, "evt_1", now, body)
	sigNew, _ := webhooks.Sign(newSecret, "evt_1", now, body)
	v2 := "v2," + strings.TrimPrefix(sigNew, "v1,") // right bytes, unknown version

	tests := []struct {
		name, sigs string
		ok         bool
	}{
		{"old then new", sigOld + " " + sigNew, true},
		{"garbage then new", "v1,AAAA " + sigNew, true},
		{"v2 ignored then new", v2 + " " + sigNew, true},
		{"extra spaces", "  " + sigOld + "   " + sigNew + " ", true},
		{"v2 alone", v2, false},
		{"old alone", sigOld, false},
		{"comma-less", "v1 " + strings.TrimPrefix(sigNew, "v1,"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := signed(t, newSecret, "evt_1", now, body)
			h.Set("webhook-signature", tt.sigs)
			err := webhooks.VerifySignature(newSecret, h, body, at(now))
			if tt.ok != (err == nil) {
				t.Fatalf("VerifySignature = %v; want ok=%v", err, tt.ok)
			}
			if !tt.ok && !errors.Is(err, webhooks.ErrSignatureMismatch) {
				t.Fatalf("err = %v; want ErrSignatureMismatch", err)
			}
		})
	}
}

func TestVerifyTolerance(t *testing.T) {
	t.Parallel()
	secret := webhooks.NewSecret()
	sent := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	body := mustMarshal(t, sampleEvents()[0])
	h := signed(t, secret, "evt_1", sent, body)

	tests := []struct {
		name string
		now  time.Time
		opts []webhooks.VerifyOption
		want error
	}{
		{"same second", sent, nil, nil},
		{"exactly 5m later", sent.Add(5 * time.Minute), nil, nil},
		{"5m and a fraction later", sent.Add(5*time.Minute + 999*time.Millisecond), nil, nil},
		{"5m1s later", sent.Add(5*time.Minute + time.Second), nil, webhooks.ErrTimestampTooOld},
		{"exactly 5m earlier", sent.Add(-5 * time.Minute), nil, nil},
		{"5m1s earlier", sent.Add(-5*time.Minute - time.Second), nil, webhooks.ErrTimestampTooNew},
		{"custom 1m ok", sent.Add(time.Minute), []webhooks.VerifyOption{webhooks.WithTolerance(time.Minute)}, nil},
		{"custom 1m old", sent.Add(61 * time.Second), []webhooks.VerifyOption{webhooks.WithTolerance(time.Minute)}, webhooks.ErrTimestampTooOld},
		{"custom 1m new", sent.Add(-61 * time.Second), []webhooks.VerifyOption{webhooks.WithTolerance(time.Minute)}, webhooks.ErrTimestampTooNew},
		{"zero tolerance same second", sent, []webhooks.VerifyOption{webhooks.WithTolerance(0)}, nil},
		{"zero tolerance 1s", sent.Add(time.Second), []webhooks.VerifyOption{webhooks.WithTolerance(0)}, webhooks.ErrTimestampTooOld},
		{"moved mock clock a day ahead", sent.Add(24 * time.Hour), []webhooks.VerifyOption{webhooks.WithTolerance(48 * time.Hour)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]webhooks.VerifyOption{at(tt.now)}, tt.opts...)
			_, err := webhooks.Verify(secret, h, body, opts...)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("Verify = %v; want %v", err, tt.want)
			}
		})
	}
}

// TestVerifyErrorsDoNotQuotePayload guards the PHI rule: a rejected body must
// not reappear in the error text, which callers tend to log.
func TestVerifyErrorsDoNotQuotePayload(t *testing.T) {
	t.Parallel()
	secret := webhooks.NewSecret()
	now := time.Unix(vecTS, 0)
	for _, body := range []string{
		`{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":{"object":"patient","id":12345678}}`,
		`{"id":"evt_1","type":"patient.created","createdAt":"Jane Doe","data":{}}`,
		`{"id":"evt_1","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":"Jane Doe"}`,
		`Jane Doe`,
		`{"Jane Doe"`,
	} {
		_, err := webhooks.Verify(secret, signed(t, secret, "evt_1", now, []byte(body)), []byte(body), at(now))
		if !errors.Is(err, webhooks.ErrInvalidPayload) {
			t.Fatalf("Verify(%s) = %v; want ErrInvalidPayload", body, err)
		}
		if msg := err.Error(); strings.Contains(msg, "Jane") || strings.Contains(msg, "12345678") {
			t.Errorf("error quotes the payload: %q", msg)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	secret := webhooks.NewSecret()
	now := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	body, err := sampleEvents()[2].MarshalJSON() // an appointment event
	if err != nil {
		b.Fatal(err)
	}
	h, err := webhooks.SignHeaders(secret, "evt_1", now, body)
	if err != nil {
		b.Fatal(err)
	}
	opt := at(now)
	// Two parts so a regression can be placed: HMAC check alone, and the
	// full Verify with event decoding.
	b.Run("signature", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if err := webhooks.VerifySignature(secret, h, body, opt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := webhooks.Verify(secret, h, body, opt); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestShortSecretsRefused: a receiver refuses a secret whose key is shorter than 24 bytes (the
// API's secrets have 24 random bytes; a short one could be guessed), with ErrInvalidSecret,
// before looking at the delivery. Senders (Sign) are not the receiver's concern.
func TestShortSecretsRefused(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_763_820_180, 0)
	body := []byte(`{"id":"evt_1","type":"webhook.test","createdAt":"2025-11-22T14:03:00Z","data":{"object":"webhook"}}`)
	for _, n := range []int{1, 16, webhooks.MinSecretBytes - 1, webhooks.MinSecretBytes, 32} {
		secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", n)))
		h := signed(t, secret, "evt_1", now, body)
		ok := n >= webhooks.MinSecretBytes
		err := webhooks.VerifySignature(secret, h, body, at(now))
		if (err == nil) != ok || (!ok && !errors.Is(err, webhooks.ErrInvalidSecret)) {
			t.Errorf("VerifySignature with a %d-byte key: %v", n, err)
		}
		if !ok && !strings.Contains(err.Error(), "fewer than 24") {
			t.Errorf("the error does not say why: %v", err)
		}
		if _, err := webhooks.Verify(secret, h, body, at(now)); (err == nil) != ok || (!ok && !errors.Is(err, webhooks.ErrInvalidSecret)) {
			t.Errorf("Verify with a %d-byte key: %v", n, err)
		}
	}
}

// TestVerifyWithSecrets: a receiver holding several secrets (WithSecrets) accepts a delivery
// when any of its signatures matches any of them — the previous secret's alone, the new one's
// alone, both in either order — and nothing signed with a secret it does not hold. Empty
// settings are skipped; a malformed or short extra secret is ErrInvalidSecret, named by its
// place, never by what it holds.
func TestVerifyWithSecrets(t *testing.T) {
	t.Parallel()
	oldSecret, newSecret, stranger := webhooks.NewSecret(), webhooks.NewSecret(), webhooks.NewSecret()
	now := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	body := mustMarshal(t, sampleEvents()[0])
	sig := func(secret string) string {
		s, err := webhooks.Sign(secret, "evt_1", now, body)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name, sigs string
		ok         bool
	}{
		{"new then old (a delivery in the overlap)", sig(newSecret) + " " + sig(oldSecret), true},
		{"old then new", sig(oldSecret) + " " + sig(newSecret), true},
		{"old alone (signed before the rotation)", sig(oldSecret), true},
		{"new alone (after the overlap)", sig(newSecret), true},
		{"a stranger's", sig(stranger), false},
		{"a stranger's and garbage", sig(stranger) + " v1,AAAA v2," + strings.TrimPrefix(sig(oldSecret), "v1,"), false},
	}
	receivers := map[string][]webhooks.VerifyOption{
		"new, WithSecrets(old)":             {webhooks.WithSecrets(oldSecret)},
		"new, WithSecrets(\"\", old)":       {webhooks.WithSecrets("", oldSecret)},
		"new, WithSecrets() twice, adds up": {webhooks.WithSecrets(), webhooks.WithSecrets(oldSecret)},
	}
	for name, opts := range receivers {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				h := signed(t, newSecret, "evt_1", now, body)
				h.Set(webhooks.HeaderSignature, tt.sigs)
				opts := append([]webhooks.VerifyOption{at(now)}, opts...)
				err := webhooks.VerifySignature(newSecret, h, body, opts...)
				if tt.ok != (err == nil) || (!tt.ok && !errors.Is(err, webhooks.ErrSignatureMismatch)) {
					t.Fatalf("VerifySignature = %v; want ok=%v", err, tt.ok)
				}
				e, err := webhooks.Verify(newSecret, h, body, opts...)
				if tt.ok != (err == nil) || (tt.ok && e.ID != sampleEvents()[0].ID) {
					t.Fatalf("Verify = %+v, %v; want ok=%v", e, err, tt.ok)
				}
			})
		}
	}
	// Without WithSecrets, only the new secret's signature counts.
	h := signed(t, oldSecret, "evt_1", now, body)
	if err := webhooks.VerifySignature(newSecret, h, body, at(now)); !errors.Is(err, webhooks.ErrSignatureMismatch) {
		t.Errorf("a receiver without the previous secret: %v", err)
	}

	short := "whsec_" + base64.StdEncoding.EncodeToString([]byte("sixteen byte key"))
	for _, bad := range []string{"whsec_not base64!", short, "whsec_"} {
		err := webhooks.VerifySignature(newSecret, h, body, at(now), webhooks.WithSecrets(oldSecret, bad))
		if !errors.Is(err, webhooks.ErrInvalidSecret) || !strings.Contains(err.Error(), "secret 3 of 3") {
			t.Errorf("extra secret %q: %v, want ErrInvalidSecret naming secret 3 of 3", bad, err)
		}
		if strings.Contains(err.Error(), strings.TrimPrefix(bad, "whsec_")) && bad != "whsec_" {
			t.Errorf("the error quotes the secret: %v", err)
		}
		if _, err := webhooks.Verify(newSecret, h, body, at(now), webhooks.WithSecrets(bad)); !errors.Is(err, webhooks.ErrInvalidSecret) {
			t.Errorf("Verify with extra secret %q: %v", bad, err)
		}
	}
}
