package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/medspa/medspa-go/mockserver"
)

// The binary's files in the data directory (the rest is the server's: docs/mock-server.md).
const (
	apiKeyFile = "api-key" // the key printed at start: printed again after a restart
	phiKeyFile = "phi.key" // the PHI key (the server reads it; a migration writes it)
	v1Format   = "medspa-mock-state/1"
	migrating  = ".migrating" // suffix of the directory a migration builds
	v1Backup   = ".v1.bak"    // suffix the migrated single file is kept under
	v1Audit    = ".d"         // suffix of the directory the single file's audit files were in
)

// printedKey is the key the binary prints at start.
type printedKey struct {
	Key     string `json:"key"`
	Account string `json:"account"`
}

// startKey returns the key to print: with a data directory, the one printed before, if it still
// authenticates (a restart mints no key); else a new one (plan enterprise, scope *), in the
// account of the one before if there was one (else in account, "" for a fresh one), kept for the
// next start. fresh says the server holds no state yet (fixtures load into such a server only).
func startKey(srv *mockserver.Server, dir, account string) (k printedKey, fresh bool, err error) {
	fresh, k.Account = true, account
	if dir != "" {
		_, st, _ := srv.DataDir()
		fresh = st.Fresh
		b, err := os.ReadFile(filepath.Join(dir, apiKeyFile))
		switch {
		case err == nil:
			if jerr := json.Unmarshal(b, &k); jerr != nil {
				return k, false, fmt.Errorf("-data %s: %s is damaged", dir, apiKeyFile)
			}
			if account, ok := srv.APIKeyAccount(k.Key); ok && account == k.Account {
				return k, fresh, nil
			}
		case !errors.Is(err, fs.ErrNotExist):
			return k, false, err
		}
	}
	made, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, Account: k.Account})
	if err != nil {
		return k, false, err
	}
	k = printedKey{Key: made.Key, Account: made.Account}
	if dir != "" {
		b, _ := json.Marshal(k)
		if err := writeAtomic(filepath.Join(dir, apiKeyFile), append(b, '\n')); err != nil {
			return k, false, err
		}
	}
	return k, fresh, nil
}

// checkData is -check: it verifies the data directory (mockserver.CheckDataDir).
func checkData(dir string, stdout io.Writer) error {
	if dir == "" {
		return errors.New("-check: give the data directory with -data")
	}
	if err := mockserver.CheckDataDir(dir); err != nil {
		return fmt.Errorf("-check: %s is damaged: %w", dir, err)
	}
	fmt.Fprintf(stdout, "%s: ok\n", dir)
	return nil
}

// v1Data says a -data file of the single-file format was migrated, and where it was kept.
type v1Data struct{ backup string }

// migrateV1 turns a -data file of the single-file format (medspa-mock-state/1, with its PHI key
// in <data>.key unless -phi-key gives it, and its audit files in <data>.d/audit/ if it had
// them) into a data directory at the same path: the audit files are copied into
// <data>.migrating, the state is loaded into a server on it — sealed values sealed again,
// bound to their account, record and field; blind indexes per account — and a key is made for
// the file's account. Then the file moves aside to <data>.v1.bak (its key file to
// <data>.v1.bak.key), the directory takes its place, and <data>.d goes. A migration cut short
// redoes itself (before the file moved) or finishes (after). It returns nil when there was
// nothing to migrate.
func migrateV1(c *config, opts []mockserver.Option) (*v1Data, error) {
	path, work, backup := c.data, c.data+migrating, c.data+v1Backup
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		if _, werr := os.Stat(work); werr == nil {
			if _, berr := os.Stat(backup); berr == nil { // cut short between the two renames
				if err := os.Rename(work, path); err != nil {
					return nil, err
				}
				return &v1Data{backup}, syncParent(path)
			}
			if err := os.RemoveAll(work); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, errors.New("neither a data directory nor a -data file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Account string          `json:"account"`
		State   json.RawMessage `json:"state"`
	}
	var format struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &f); err != nil || json.Unmarshal(f.State, &format) != nil || format.Format != v1Format {
		return nil, fmt.Errorf("a file that is not a -data file of the %s format", v1Format)
	}
	if err := os.RemoveAll(work); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	if audit := path + v1Audit + "/audit"; dirExists(audit) { // the chains go on where they were
		if err := copyTree(filepath.Join(work, "audit"), audit); err != nil {
			return nil, fmt.Errorf("copying the audit files of %s: %w", path, err)
		}
	}
	if c.phiKey == "" { // the file's key moves into the directory
		kb, err := os.ReadFile(path + ".key")
		if err != nil {
			return nil, fmt.Errorf("the PHI key of the -data file: %w (or give -phi-key)", err)
		}
		key, err := decodeKey(strings.TrimSpace(string(kb)))
		if err != nil {
			return nil, fmt.Errorf("%s.key: %w", path, err)
		}
		if err := writeAtomic(filepath.Join(work, phiKeyFile), []byte(hex.EncodeToString(key)+"\n")); err != nil {
			return nil, err
		}
	}
	srv, err := mockserver.New(append(opts[:len(opts):len(opts)], mockserver.WithDataDir(work))...)
	if err != nil {
		return nil, err
	}
	err = srv.LoadState(bytes.NewReader(f.State))
	if err == nil {
		_, _, err = startKey(srv, work, f.Account)
	}
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Rename(path, backup); err != nil {
		return nil, err
	}
	if err := os.Rename(path+".key", backup+".key"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.Rename(work, path); err != nil {
		return nil, err
	}
	if err := syncParent(path); err != nil {
		return nil, err
	}
	return &v1Data{backup}, os.RemoveAll(path + v1Audit) // copied: the directory has them
}

// copyTree copies the directory tree src to dst (directories 0700, files 0600, the LOCK files
// of the logs left out: each server makes its own).
func copyTree(dst, src string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case d.Name() == "LOCK":
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if err == nil {
			err = f.Sync() // durable before the originals go
		}
		return errors.Join(err, f.Close())
	})
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// writeAtomic writes a file whole or not at all (mode 0600): a temporary file in the same
// directory, synced, then renamed into place.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncParent(path)
}

// syncParent makes the directory entry of path durable (a rename, a new file).
func syncParent(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && runtime.GOOS != "windows" { // Windows cannot sync a directory
		return err
	}
	return nil
}
