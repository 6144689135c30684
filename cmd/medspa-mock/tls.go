package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// newSelfSignedTLS is -tls: a self-signed configuration (see selfSignedTLS) whose certificate
// is written to the path the user named (-tls-cert-out) or, when none, to cert.pem in a fresh
// private directory (0700) under the temp directory. It returns the path written.
func newSelfSignedTLS(named string) (*tls.Config, string, error) {
	path := named
	if path == "" {
		// Never a predictable name in a shared directory: another user could plant a link there.
		dir, err := os.MkdirTemp("", "medspa-mock-")
		if err != nil {
			return nil, "", err
		}
		path = filepath.Join(dir, "cert.pem")
	}
	cfg, err := selfSignedTLS(path)
	return cfg, path, err
}

// selfSignedTLS makes a TLS 1.3-only configuration with a fresh self-signed ECDSA P-256
// certificate for 127.0.0.1, ::1 and localhost, and writes the certificate (PEM, no key) to
// certPath so clients can trust it (see writeCertificate). The key never leaves memory.
func selfSignedTLS(certPath string) (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "medspa-mock"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // self-signed: clients add it as a root
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	if err := writeCertificate(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})); err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		MaxVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
	}, nil
}

// writeCertificate writes data to path without ever following a link there: it refuses a path
// that is a symbolic link (or anything but a regular file), writes a new file created with
// O_EXCL and mode 0600 in the same directory, and renames it over path. A rename replaces a link
// planted after the check instead of writing through it.
func writeCertificate(path string, data []byte) (err error) {
	switch fi, err := os.Lstat(path); {
	case err == nil && fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("refusing to write the certificate through the symbolic link %s", path)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("refusing to write the certificate over %s: not a regular file", path)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".medspa-mock-cert-*") // O_EXCL, 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
