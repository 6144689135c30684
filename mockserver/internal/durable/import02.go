package durable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Release 0.2 kept a log as files in its directory: NNNNNNNNNNNNNNNN.snap (the newest snapshot)
// and NNNNNNNNNNNNNNNN.seg (segments, the first numbered like the snapshot), each a 16-byte
// header ("MSDL", version 1, kind) then frames: body length (uint32 LE), CRC-32C of the length
// bytes and the body (uint32 LE), body: a kind byte (1: records, 2: the snapshot's end), then
// records, each a uvarint length and its bytes. Only the last frame of the last segment can be
// torn by a crash. import02 reads such a directory into a new file and moves the old files
// into v0.2-backup/.

// BackupDir is where Open moves a 0.2 log's files after importing them.
const BackupDir = "v0.2-backup"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// import02 imports the 0.2 log in dir, if there is one, into b (a new log's bucket, in the
// transaction that makes it); it returns the files it read.
func import02(b *bolt.Bucket, dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var snaps, segs []string
	for _, e := range entries {
		switch n := e.Name(); {
		case len(n) == 21 && strings.HasSuffix(n, ".snap"):
			snaps = append(snaps, n)
		case len(n) == 20 && strings.HasSuffix(n, ".seg"):
			segs = append(segs, n)
		}
	}
	slices.Sort(snaps)
	slices.Sort(segs)
	m := b.Bucket(bMeta)
	var first uint64 // the snapshot's sequence: the segments before it are covered
	if len(snaps) > 0 {
		name := snaps[len(snaps)-1]
		first, _ = strconv.ParseUint(name[:16], 16, 64)
		sb, err := b.CreateBucket([]byte("snapshot-imported"))
		if err != nil {
			return nil, err
		}
		n := uint64(0)
		if err := read02(filepath.Join(dir, name), false, func(rec []byte) error { n++; return sb.Put(key(n), rec) }); err != nil {
			return nil, err
		}
		if err := m.Put(kSnapshot, []byte("snapshot-imported")); err != nil {
			return nil, err
		}
		if err := m.Put(kCut, key(1)); err != nil {
			return nil, err
		}
	}
	lg, seq, last := b.Bucket(bLog), uint64(0), []byte(nil)
	for i, name := range segs {
		if s, _ := strconv.ParseUint(name[:16], 16, 64); s < first {
			continue
		}
		err := read02(filepath.Join(dir, name), i == len(segs)-1, func(rec []byte) error {
			seq++
			last = rec
			return lg.Put(key(seq), rec)
		})
		if err != nil {
			return nil, err
		}
	}
	if last != nil {
		if err := m.Put(kHead, append(key(seq), sumOf(last)...)); err != nil {
			return nil, err
		}
	}
	return append(snaps, segs...), nil
}

// backup02 moves the imported files (and the 0.2 log's LOCK) into dir/v0.2-backup/ and returns
// that directory.
func backup02(dir string, files []string) (string, error) {
	backup := filepath.Join(dir, BackupDir)
	if err := os.MkdirAll(backup, 0o700); err != nil {
		return "", err
	}
	for _, n := range append(files, "LOCK") {
		if err := os.Rename(filepath.Join(dir, n), filepath.Join(backup, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	if err := SyncDir(backup); err != nil {
		return "", err
	}
	return backup, SyncDir(dir)
}

// read02 calls fn for each record of a 0.2 segment or snapshot file; tail says a torn last frame
// is the end (the last segment), not damage.
func read02(path string, tail bool, fn func(rec []byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(b) < 16 || string(b[:4]) != "MSDL" || b[4] != 1 {
		return fmt.Errorf("%s: not a 0.2 log file", path)
	}
	for p := b[16:]; len(p) > 0; {
		n := 0
		if len(p) >= 8 {
			n = int(binary.LittleEndian.Uint32(p))
		}
		if len(p) < 8 || n == 0 || n > len(p)-8 ||
			crc32.Update(crc32.Checksum(p[:4], castagnoli), castagnoli, p[8:8+n]) != binary.LittleEndian.Uint32(p[4:8]) {
			if tail {
				return nil
			}
			return fmt.Errorf("%s: damaged at offset %d", path, len(b)-len(p))
		}
		body := p[8 : 8+n]
		p = p[8+n:]
		if body[0] != 1 { // the snapshot's end
			continue
		}
		for r := body[1:]; len(r) > 0; {
			l, k := binary.Uvarint(r)
			if k <= 0 || l > uint64(len(r)-k) {
				return fmt.Errorf("%s: a malformed frame", path)
			}
			if err := fn(r[k : k+int(l)]); err != nil {
				return err
			}
			r = r[k+int(l):]
		}
	}
	return nil
}
