package httpsig

import (
	"bytes"
	"net/http"
	"testing"
)

func BenchmarkSignRequest(b *testing.B) {
	body := bytes.Repeat([]byte(`{"firstName":"Ada"},`), 50) // ~1 KiB
	req, _ := http.NewRequest("POST", "https://api.medspa.dev/api/v1/patients", nil)
	req.Header.Set("Authorization", "Bearer msk_test_abcdefghijklmnopqrstuvwxyz012345")
	req.Header.Set("Content-Type", "application/json")
	b.ReportAllocs()
	for b.Loop() {
		if err := SignRequest(req, body, testKeyID, testKey, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyRequest(b *testing.B) {
	const uri = "https://api.medspa.dev/api/v1/patients"
	body := bytes.Repeat([]byte(`{"firstName":"Ada"},`), 50)
	req := newSignedRequest(b, "POST", uri, body)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := VerifyRequest(req, body, uri, keyFor); err != nil {
			b.Fatal(err)
		}
	}
}
