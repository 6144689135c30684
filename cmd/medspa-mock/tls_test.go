package main

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
)

// TestTLSCertRefusesSymlink: a link planted where -tls-cert-out points is refused, and neither
// its target nor the link changes (issue 19: -tls wrote through a link in a shared directory).
func TestTLSCertRefusesSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link to a file": victim, "dangling link": filepath.Join(dir, "created-through-link")} {
		link := filepath.Join(dir, name+".pem")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if _, _, err := newSelfSignedTLS(tlsSetup{certOut: link}); err == nil {
			t.Fatalf("%s: the certificate was written", name)
		}
		if got, err := os.Readlink(link); err != nil || got != target {
			t.Fatalf("%s: the link changed: %q, %v", name, got, err)
		}
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me" {
		t.Fatalf("the link's target was written: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "created-through-link")); !os.IsNotExist(err) {
		t.Fatalf("a file was created through the dangling link: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("left-over files: %v", entries)
	}
}

// TestTLSCertPrivateDir: without -tls-cert-out the certificate goes to a fresh directory only
// its owner can enter, in a file only its owner can read; each run gets its own.
func TestTLSCertPrivateDir(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	_, first, err := newSelfSignedTLS(tlsSetup{})
	if err != nil {
		t.Fatal(err)
	}
	_, second, err := newSelfSignedTLS(tlsSetup{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(first) == filepath.Dir(second) || filepath.Dir(filepath.Dir(first)) != os.Getenv("TMPDIR") {
		t.Fatalf("certificates at %s and %s", first, second)
	}
	dirInfo, err := os.Lstat(filepath.Dir(first))
	if err != nil || !dirInfo.IsDir() || dirInfo.Mode().Perm() != 0o700 {
		t.Fatalf("directory %v, %v; want a 0700 directory", dirInfo.Mode(), err)
	}
	assertCertFile(t, first)
}

// TestTLSCertReplacesFile: a regular file at the named path is replaced (a rerun with the same
// -tls-cert-out works), with mode 0644: a certificate is public, and clients running as other
// users (another container's) must read it.
func TestTLSCertReplacesFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := newSelfSignedTLS(tlsSetup{certOut: path}); err != nil {
		t.Fatal(err)
	}
	assertCertFile(t, path)
	if _, _, err := newSelfSignedTLS(tlsSetup{certOut: filepath.Dir(path)}); err == nil {
		t.Fatal("wrote over a directory")
	}
}

func assertCertFile(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Fatalf("%s: %v, %v; want a regular 0644 file", path, fi.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatalf("%s holds no PEM", path)
	}
	if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		t.Fatal(err)
	}
}
