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

// tlsSetup is what -tls makes and where its files go.
type tlsSetup struct {
	certOut string   // -tls-cert-out: the certificate chain ("": a fresh private directory)
	caOut   string   // -tls-ca-out: the CA alone ("": not written)
	hosts   []string // -tls-hosts: names and addresses besides loopback, checked (checkTLSHost)
}

// newSelfSignedTLS is -tls: a configuration with a fresh CA and a leaf it signs (see
// selfSignedTLS), whose chain is written to the path the user named (-tls-cert-out) or, when
// none, to cert.pem in a fresh private directory (0700) under the temp directory. It returns the
// path written.
func newSelfSignedTLS(s tlsSetup) (*tls.Config, string, error) {
	path := s.certOut
	if path == "" {
		// Never a predictable name in a shared directory: another user could plant a link there.
		dir, err := os.MkdirTemp("", "medspa-mock-")
		if err != nil {
			return nil, "", err
		}
		path = filepath.Join(dir, "cert.pem")
	}
	cfg, err := selfSignedTLS(path, s.caOut, s.hosts)
	return cfg, path, err
}

// selfSignedTLS makes a TLS 1.3-only configuration with a fresh CA (ECDSA P-256, 30 days) and
// a leaf it signs for 127.0.0.1, ::1, localhost and hosts (DNS names or IP addresses). It
// writes the chain (leaf, then CA; PEM, no key) to certPath and, when caPath is not empty, the
// CA alone to caPath, so clients — in other containers too — trust the CA (see
// writeCertificate). The keys never leave memory; the CA's signs nothing else.
func selfSignedTLS(certPath, caPath string, hosts []string) (*tls.Config, error) {
	now := time.Now()
	caKey, caDER, err := newCert(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "medspa-mock CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}, nil, nil)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "medspa-mock"},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(30 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	leafKey, leafDER, err := newCert(leaf, ca, caKey)
	if err != nil {
		return nil, err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := writeCertificate(certPath, append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}), caPEM...)); err != nil {
		return nil, err
	}
	if caPath != "" {
		if err := writeCertificate(caPath, caPEM); err != nil {
			return nil, fmt.Errorf("-tls-ca-out: %w", err)
		}
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		MaxVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER, caDER}, PrivateKey: leafKey}},
	}, nil
}

// newCert makes a key and a certificate from tmpl (a random serial) signed by parent's key
// (nil parent: self-signed).
func newCert(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120)); err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	return key, der, err
}

// writeCertificate writes data to path without ever following a link there: it refuses a path
// that is a symbolic link (or anything but a regular file), writes a new file created with
// O_EXCL in the same directory, and renames it over path. A rename replaces a link planted after
// the check instead of writing through it. The file is made readable by all (0644): it holds
// public certificates only, never a key, for clients in other containers and users to trust.
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
		err = f.Chmod(0o644)
	}
	if err == nil {
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
