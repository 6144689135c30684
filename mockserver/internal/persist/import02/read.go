package import02

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Release 0.2 kept each log as files in a directory of its own: NNNNNNNNNNNNNNNN.snap (the
// newest snapshot) and NNNNNNNNNNNNNNNN.seg (segments, the first numbered like the snapshot),
// each a 16-byte header ("MSDL", version 1, kind) then frames: body length (uint32 LE), CRC-32C
// of the length bytes and the body (uint32 LE), body: a kind byte (1: records, 2: the
// snapshot's end), then records, each a uvarint length and its bytes. Only the last frame of
// the last segment can be torn by a crash.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Read02 calls fn for every record of the 0.2 log in dir — its snapshot's, then those of the
// segments after it — and reports whether dir held one.
func Read02(dir string, fn func(rec []byte) error) (bool, error) {
	snaps, _ := filepath.Glob(filepath.Join(dir, strings.Repeat("?", 16)+".snap"))
	segs, _ := filepath.Glob(filepath.Join(dir, strings.Repeat("?", 16)+".seg"))
	slices.Sort(snaps)
	slices.Sort(segs)
	first := ""
	if len(snaps) > 0 {
		snap := snaps[len(snaps)-1]
		first = strings.TrimSuffix(filepath.Base(snap), ".snap")
		if err := read02(snap, false, fn); err != nil {
			return true, err
		}
	}
	for i, seg := range segs {
		if filepath.Base(seg) < first { // covered by the snapshot
			continue
		}
		if err := read02(seg, i == len(segs)-1, fn); err != nil {
			return true, err
		}
	}
	return len(snaps)+len(segs) > 0, nil
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
