package persist

import (
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// keyFile is the PHI key, 64 hex digits, unless given by the caller.
const keyFile = "phi.key"

// dirReadme is the directory's README (docs/mock-server.md "Data directory").
//
//go:embed datadir-README.txt
var dirReadme string

// OpenFile opens the data file of directory dir (creating both if needed; noSync: without fsync,
// for tests) and writes the directory's README unless it is there as it should be.
func OpenFile(dir string, noSync bool) (*durable.DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("persist: %w", err)
	}
	db, err := durable.OpenDB(filepath.Join(dir, durable.FileName), durable.Options{NoSync: noSync})
	if err != nil {
		return nil, fmt.Errorf("persist: %w", err)
	}
	readme := filepath.Join(dir, "README")
	if b, err := os.ReadFile(readme); err != nil || string(b) != dirReadme {
		if err := os.WriteFile(readme, []byte(dirReadme), 0o600); err != nil {
			return nil, errors.Join(fmt.Errorf("persist: %w", err), db.Close())
		}
	}
	return db, nil
}

// Key returns the PHI key of the data directory dir: given, when the caller has one (it is not
// written to the directory), else the one in DIR/phi.key, made (32 random bytes, mode 0600) on
// first use. Two servers starting on a new directory at once end up with the same key (the file
// is linked into place only if absent), though only one of them gets the directory.
func Key(dir string, given []byte) ([]byte, error) {
	if given != nil {
		return given, nil
	}
	path := filepath.Join(dir, keyFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = makeKey(dir, path)
	}
	if err != nil {
		return nil, fmt.Errorf("persist: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("persist: %s: not a 32-byte key in hex", path)
	}
	return key, nil
}

// makeKey makes the key file at path unless it exists, and returns its content: ours, or the
// one another server linked first.
func makeKey(dir, path string) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key) // it never fails
	tmp, err := os.CreateTemp(dir, keyFile+".new*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err = errors.Join(err, tmp.Sync(), tmp.Close()); err == nil {
		if err = os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
			err = nil
		}
	}
	if err = errors.Join(err, durable.SyncDir(dir)); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
