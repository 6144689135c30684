package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/patients"
)

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept by
// BenchmarkFencePHICodec: a patient's PHI is sealed in a compact binary form rather than JSON.
// It is opened on every read of every patient (a list page opens 25), and decoding JSON by
// reflection cost more than the AES-GCM itself. The form is a version byte then
// length-prefixed fields in a fixed order.
//
// The legacy path, decodeLegacyPHI, is no optimisation: it opens the sealed JSON of release
// 0.1.0's snapshots and -data files, which a server still loads (CHANGELOG).
const phiV1 = 1

var errPHICorrupt = errors.New("store: sealed patient data is corrupt")

// encodePHI appends the PHI fields of p to b.
func encodePHI(b []byte, p *patients.Patient) []byte {
	b = append(b, phiV1)
	for _, s := range []string{p.FirstName, p.LastName, p.Email, p.Phone, string(p.Gender), p.Notes} {
		b = appendStr(b, s)
	}
	b = binary.AppendVarint(b, int64(p.DateOfBirth.Year))
	b = binary.AppendUvarint(b, uint64(p.DateOfBirth.Month))
	b = binary.AppendUvarint(b, uint64(p.DateOfBirth.Day))
	if a := p.Address; a == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		for _, s := range []string{a.Line1, a.Line2, a.City, a.State, a.PostalCode, a.Country} {
			b = appendStr(b, s)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.Allergies)))
	for _, s := range p.Allergies {
		b = appendStr(b, s)
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodePHI sets the PHI fields of p from what encodePHI (or, for old data, json.Marshal)
// produced. As with the JSON form, an empty allergy list reads back as nil.
func decodePHI(b []byte, p *patients.Patient) error {
	if len(b) > 0 && b[0] == '{' {
		return decodeLegacyPHI(b, p)
	}
	return decodePHIString(string(b), p)
}

// decodePHIString is decodePHI over a string: the fields are pieces of s.
func decodePHIString(s string, p *patients.Patient) error {
	if len(s) > 0 && s[0] == '{' {
		return decodeLegacyPHI([]byte(s), p)
	}
	if len(s) == 0 || s[0] != phiV1 {
		return errPHICorrupt
	}
	d := phiDecoder{s: s[1:]}
	var gender string
	for _, s := range []*string{&p.FirstName, &p.LastName, &p.Email, &p.Phone, &gender, &p.Notes} {
		*s = d.str()
	}
	p.Gender = patients.Gender(gender)
	year, month, day := d.varint(), d.uvarint(), d.uvarint()
	p.DateOfBirth = wire.Date{Year: int(year), Month: time.Month(month), Day: int(day)}
	switch d.byte() {
	case 0:
	case 1:
		a := &patients.Address{}
		for _, s := range []*string{&a.Line1, &a.Line2, &a.City, &a.State, &a.PostalCode, &a.Country} {
			*s = d.str()
		}
		p.Address = a
	default:
		d.err = errPHICorrupt
	}
	if n := d.uvarint(); n > 0 && n <= uint64(len(d.s)) {
		p.Allergies = make([]string, n)
		for i := range p.Allergies {
			p.Allergies[i] = d.str()
		}
	} else if n > 0 {
		d.err = errPHICorrupt
	}
	if d.err == nil && len(d.s) != 0 {
		d.err = errPHICorrupt
	}
	return d.err
}

// phiDecoder reads encodePHI's fields; the first error sticks and later reads return zeros.
// It reads a string: the plaintext is converted once, and every field is a piece of it, so a
// patient's PHI costs one allocation however many fields it has (a fenced optimisation kept by
// BenchmarkFencePatientOpen, BENCHMARKS.md).
type phiDecoder struct {
	s   string
	err error
}

func (d *phiDecoder) fail() { d.err, d.s = errPHICorrupt, "" }

// uvarint reads what binary.AppendUvarint wrote (binary.Uvarint's rules, over a string).
func (d *phiDecoder) uvarint() uint64 {
	var v uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflows 64 bits
			}
			d.s = d.s[i+1:]
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	d.fail()
	return 0
}

// varint reads what binary.AppendVarint wrote (zig-zag).
func (d *phiDecoder) varint() int64 {
	ux := d.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (d *phiDecoder) byte() byte {
	if len(d.s) == 0 {
		d.fail()
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *phiDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		d.fail()
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

// decodeLegacyPHI opens PHI sealed as JSON by release 0.1.0.
// It decodes into a value of its own: p given to json.Unmarshal would escape, and every caller's
// patient with it, legacy or not.
func decodeLegacyPHI(b []byte, p *patients.Patient) error {
	q := new(patients.Patient)
	*q = *p
	err := json.Unmarshal(b, q)
	*p = *q
	return err
}
