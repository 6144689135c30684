package persist

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Snapshots keeps named account snapshots (POST /__admin/snapshots) in the data directory: each
// in a file of DIR/snapshots named by the SHA-256 of its content (so a file never changes once
// written, and a log record naming it always means the same state), and the index of names in
// the log. Files that nothing names are removed when the server starts.
type Snapshots struct {
	e *Engine

	mu     sync.Mutex
	byName map[string]string // account + "\x00" + name → file
	// referenced are the files the log names besides the index (restored snapshots' states):
	// kept until a compaction drops those records.
	referenced map[string]bool
}

func newSnapshots(e *Engine) *Snapshots {
	return &Snapshots{e: e, byName: map[string]string{}, referenced: map[string]bool{}}
}

type snapName struct{ account, name, file string }

// Save keeps snap (an AccountSnapshot's JSON) as the account's snapshot called name, replacing
// an earlier one of that name. The file is durable when Save returns; the name is logged (Sync
// makes it durable).
func (s *Snapshots) Save(account, name string, snap []byte) error {
	file, err := s.Keep(snap)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock() // the index and its log in the same order
	s.byName[account+"\x00"+name] = file
	s.e.append(record{T: recSnapname, A: account, Name: name, File: file})
	return nil
}

// Keep writes snap (an AccountSnapshot's JSON) to a file of its own, durably, and returns the
// file's name: a state to import from (store.Account.ImportFrom) that the log then names
// rather than copies.
func (s *Snapshots) Keep(snap []byte) (string, error) {
	sum := sha256.Sum256(snap)
	file := hex.EncodeToString(sum[:]) + ".json"
	dir := filepath.Join(s.e.dir, snapshotsDir)
	path := filepath.Join(dir, file)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("persist: %w", err)
		}
		if err := WriteFileAtomic(path, snap); err != nil {
			return "", err
		}
	}
	s.mu.Lock()
	s.referenced[file] = true
	s.mu.Unlock()
	return file, nil
}

// Load returns the account's snapshot called name and the file holding it.
func (s *Snapshots) Load(account, name string) (snap []byte, file string, ok bool, err error) {
	s.mu.Lock()
	file, ok = s.byName[account+"\x00"+name]
	s.mu.Unlock()
	if !ok {
		return nil, "", false, nil
	}
	snap, err = s.readFile(file)
	return snap, file, err == nil, err
}

// readFile reads a snapshot file and checks it against its name.
func (s *Snapshots) readFile(file string) ([]byte, error) {
	if !validFile(file) {
		return nil, fmt.Errorf("persist: %q is not a snapshot file name", file)
	}
	path := filepath.Join(s.e.dir, snapshotsDir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("persist: %w", err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:])+".json" != file {
		return nil, fmt.Errorf("persist: %s is damaged (its content does not match its name)", path)
	}
	return b, nil
}

// read reads a snapshot file the log names (a restored snapshot), for the replay.
func (s *Snapshots) read(file string) (*AccountSnapshot, error) {
	b, err := s.readFile(file)
	if err != nil {
		return nil, err
	}
	var snap AccountSnapshot
	if err := json.Unmarshal(b, &snap); err != nil || snap.Format != SnapshotFormat {
		return nil, fmt.Errorf("persist: snapshot file %s: not a %s", file, SnapshotFormat)
	}
	s.mu.Lock()
	s.referenced[file] = true
	s.mu.Unlock()
	return &snap, nil
}

// restoreName applies a logged index record (file "": dropped).
func (s *Snapshots) restoreName(account, name, file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if file == "" {
		delete(s.byName, account+"\x00"+name)
		return
	}
	s.byName[account+"\x00"+name] = file
}

// names returns the index, sorted (a compaction's snapshot writes it).
func (s *Snapshots) names() []snapName {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]snapName, 0, len(s.byName))
	for k, f := range s.byName {
		account, name, _ := strings.Cut(k, "\x00")
		out = append(out, snapName{account, name, f})
	}
	slices.SortFunc(out, func(a, b snapName) int { return strings.Compare(a.account+"\x00"+a.name, b.account+"\x00"+b.name) })
	return out
}

// collect removes the snapshot files that neither the index nor the log names (replaced
// snapshots), after the replay.
func (s *Snapshots) collect() error {
	dir := filepath.Join(s.e.dir, snapshotsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("persist: %w", err)
	}
	s.mu.Lock()
	keep := maps.Clone(s.referenced)
	for _, f := range s.byName {
		keep[f] = true
	}
	s.mu.Unlock()
	for _, ent := range entries {
		if name := ent.Name(); validFile(name) && !keep[name] || strings.Contains(name, ".tmp") {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("persist: %w", err)
			}
		}
	}
	return nil
}

// validFile reports a snapshot file name: 64 hex digits and .json.
func validFile(name string) bool {
	h, ok := strings.CutSuffix(name, ".json")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
