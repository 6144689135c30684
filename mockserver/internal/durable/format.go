package durable

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
)

// On-disk format. Every file (segment or snapshot) starts with a 16-byte header:
//
//	"MSDL" | version (1 byte) | kind ('S' segment, 'P' snapshot) | 2 zero bytes | sequence (uint64 LE)
//
// then frames:
//
//	body length (uint32 LE) | CRC-32C of the 4 length bytes and the body (uint32 LE) | body
//
// A body is one kind byte, then for bodyRecords the records, each as uvarint length + bytes, or for
// bodySnapshotEnd the uvarint count of records in the snapshot (the last frame of a snapshot).
//
// A segment frame is one group commit: everything the flusher wrote with one write and one fsync.
// Since the next write starts only after that fsync returned, a crash can damage only the last
// frame of the last segment; a bad frame followed by a good one is damage to synced data.
const (
	headerSize      = 16
	frameHeaderSize = 8
	formatVersion   = 1

	kindSegment  = 'S'
	kindSnapshot = 'P'

	bodyRecords     = 1
	bodySnapshotEnd = 2

	// MaxRecordSize bounds one record, or one AppendBatch with its length prefixes (1–10 bytes
	// per record). A frame body is never larger than MaxRecordSize+1, so a reader never needs
	// more memory than that, whatever the log size.
	MaxRecordSize = 64 << 20
	maxFrameBody  = MaxRecordSize + 1

	// groupLimit is the body size past which a pending frame takes no more appends; later ones
	// start the next frame (written by the next write+fsync).
	groupLimit = 1 << 20
)

var (
	magic      = [4]byte{'M', 'S', 'D', 'L'}
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

func segmentName(seq uint64) string  { return fmt.Sprintf("%016x.seg", seq) }
func snapshotName(seq uint64) string { return fmt.Sprintf("%016x.snap", seq) }

// parseName returns the sequence number of a segment or snapshot file name with that suffix.
func parseName(name, suffix string) (uint64, bool) {
	if len(name) != 16+len(suffix) || name[16:] != suffix {
		return 0, false
	}
	seq, err := strconv.ParseUint(name[:16], 16, 64)
	if err != nil || seq == 0 || fmt.Sprintf("%016x", seq) != name[:16] {
		return 0, false
	}
	return seq, true
}

func appendHeader(b []byte, kind byte, seq uint64) []byte {
	b = append(b, magic[:]...)
	b = append(b, formatVersion, kind, 0, 0)
	return binary.LittleEndian.AppendUint64(b, seq)
}

// checkHeader returns why h is not the header of the file of that kind and sequence, or "".
func checkHeader(h []byte, kind byte, seq uint64) string {
	switch {
	case [4]byte(h[:4]) != magic:
		return "not a log file (bad magic)"
	case h[4] != formatVersion:
		return fmt.Sprintf("unsupported format version %d", h[4])
	case h[5] != kind || h[6] != 0 || h[7] != 0:
		return "bad file kind"
	case binary.LittleEndian.Uint64(h[8:]) != seq:
		return fmt.Sprintf("header names sequence %d, not the file name's %d", binary.LittleEndian.Uint64(h[8:]), seq)
	}
	return ""
}

// newFrame returns buf reset to an empty frame of kind, with room for the frame header.
func newFrame(buf []byte, kind byte) []byte {
	return append(buf[:0], 0, 0, 0, 0, 0, 0, 0, 0, kind)
}

// sealFrame fills in the frame header of a frame built by newFrame and appends.
func sealFrame(frame []byte) {
	binary.LittleEndian.PutUint32(frame[0:4], uint32(len(frame)-frameHeaderSize))
	binary.LittleEndian.PutUint32(frame[4:8], frameSum(frame[0:4], frame[frameHeaderSize:]))
}

func frameSum(length, body []byte) uint32 {
	return crc32.Update(crc32.Checksum(length, castagnoli), castagnoli, body)
}

// appendRecord appends one record to a frame body.
func appendRecord(frame, rec []byte) []byte {
	frame = binary.AppendUvarint(frame, uint64(len(rec)))
	return append(frame, rec...)
}

// encodedSize is what recs add to a frame body.
func encodedSize(recs [][]byte) int {
	n := 0
	for _, r := range recs {
		n += uvarintLen(len(r)) + len(r)
	}
	return n
}

func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// frameError is a frame that is partial or fails its checks, at offset off of its file.
type frameError struct {
	off    int64
	reason string
}

func (e *frameError) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.reason) }

// frameReader reads the frames of one file, from just after its header to end.
type frameReader struct {
	r   *bufio.Reader
	off int64 // offset of the next frame
	end int64 // bytes of the file that are read
	buf []byte
	hdr [frameHeaderSize]byte // a field, not a local: io.ReadFull would move a local to the heap
}

// next returns the next frame's body, valid until the next call. It returns io.EOF at end, a
// *frameError for a frame that is cut short or damaged (the reader cannot go on after it), or
// the read error.
func (fr *frameReader) next() ([]byte, error) {
	rest := fr.end - fr.off
	if rest == 0 {
		return nil, io.EOF
	}
	if rest < frameHeaderSize {
		return nil, &frameError{fr.off, "partial frame header"}
	}
	h := fr.hdr[:]
	if _, err := io.ReadFull(fr.r, h); err != nil {
		return nil, unexpected(err)
	}
	n := binary.LittleEndian.Uint32(h[0:4])
	if n == 0 || n > maxFrameBody {
		return nil, &frameError{fr.off, fmt.Sprintf("frame length %d out of range", n)}
	}
	if int64(n) > rest-frameHeaderSize {
		return nil, &frameError{fr.off, fmt.Sprintf("partial frame: %d of %d bytes", rest-frameHeaderSize, n)}
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	body := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, body); err != nil {
		return nil, unexpected(err)
	}
	if frameSum(h[0:4], body) != binary.LittleEndian.Uint32(h[4:8]) {
		return nil, &frameError{fr.off, "checksum mismatch"}
	}
	fr.off += frameHeaderSize + int64(n)
	return body, nil
}

// unexpected turns an early EOF (the file shrank under the reader) into a plain error.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// eachRecord calls fn for each record of a bodyRecords frame body. It returns fn's error as is,
// or a description of a malformed body.
func eachRecord(body []byte, fn func(rec []byte) error) (int, error) {
	n := 0
	for p := body[1:]; len(p) > 0; n++ {
		l, k := binary.Uvarint(p)
		if k <= 0 || l > uint64(len(p)-k) {
			return n, errMalformed
		}
		if err := fn(p[k : k+int(l)]); err != nil {
			return n, err
		}
		p = p[k+int(l):]
	}
	return n, nil
}

var errMalformed = errors.New("malformed frame body")

// validFrameAt reports whether b holds a whole, intact segment frame starting at p.
func validFrameAt(b []byte, p int) bool {
	if len(b)-p < frameHeaderSize+1 {
		return false
	}
	n := binary.LittleEndian.Uint32(b[p : p+4])
	if n == 0 || n > maxFrameBody || int64(n) > int64(len(b)-p-frameHeaderSize) {
		return false
	}
	body := b[p+frameHeaderSize : p+frameHeaderSize+int(n)]
	return body[0] == bodyRecords && frameSum(b[p:p+4], body) == binary.LittleEndian.Uint32(b[p+4:p+8])
}

// tornTail reports whether the bytes of f from a bad frame at bad to size are what a crash in the
// middle of the last write leaves: no more than one frame's worth, with no intact frame after
// bad. Anything else means data that had been synced is damaged.
func tornTail(f *os.File, bad, size int64) (bool, error) {
	rest := size - bad
	if rest > frameHeaderSize+maxFrameBody {
		return false, nil
	}
	b := make([]byte, rest)
	if _, err := f.ReadAt(b, bad); err != nil {
		return false, unexpected(err)
	}
	for p := 1; p < len(b); p++ {
		if validFrameAt(b, p) {
			return false, nil
		}
	}
	return true, nil
}
