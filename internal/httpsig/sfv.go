package httpsig

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// This file holds a small parser and serializer for the subset of RFC 8941
// Structured Field Values that HTTP Message Signatures and Content-Digest use:
// dictionaries whose members are items or inner lists, with parameters.
// It faces hostile input, so every loop is bounded by explicit limits and
// every failure is an ErrMalformed, never a panic.

// Limits applied while parsing. They are far above anything a legitimate
// signer produces and small enough that hostile headers stay cheap.
const (
	maxFieldLen   = 8 << 10 // bytes of one combined header field value
	maxMembers    = 32      // dictionary members
	maxInnerItems = 32      // items in one inner list (covered components)
	maxParams     = 16      // parameters on one item or inner list
	maxKeyLen     = 64      // dictionary and parameter keys
)

type itemKind uint8

const (
	kindInteger itemKind = iota + 1
	kindDecimal
	kindString
	kindToken
	kindBytes
	kindBoolean
)

// bareItem is one RFC 8941 bare item. Decimals are kept as thousandths so
// they serialize canonically without floating-point rounding.
type bareItem struct {
	kind    itemKind
	num     int64
	str     string // string or token
	bytes   []byte
	boolean bool
}

type param struct {
	key   string
	value bareItem
}

type item struct {
	bare   bareItem
	params []param
}

// member is one dictionary member: either a single item or an inner list.
type member struct {
	key    string
	isList bool
	item   item
	list   []item
	params []param // inner-list parameters (only when isList)
}

// lookup returns the member with the given key.
func lookupMember(d []member, key string) (member, bool) {
	for _, m := range d {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

func (p param) isTrue() bool { return p.value.kind == kindBoolean && p.value.boolean }

type sfParser struct {
	s string
	i int
}

func malformedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// parseDictionary parses an RFC 8941 dictionary (§4.2.2). Unlike RFC 8941,
// duplicate keys are rejected instead of "last one wins": two different
// sig1 or sha-256 members are more likely an attack on a component that
// picks a different one than a legitimate message.
func parseDictionary(s string) ([]member, error) {
	if len(s) > maxFieldLen {
		return nil, malformedf("field value longer than %d bytes", maxFieldLen)
	}
	p := sfParser{s: strings.Trim(s, " \t")}
	var out []member
	if p.eof() {
		return out, nil
	}
	for {
		key, err := p.parseKey()
		if err != nil {
			return nil, err
		}
		m := member{key: key}
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				m.isList = true
				if m.list, m.params, err = p.parseInnerList(); err != nil {
					return nil, err
				}
			} else if m.item, err = p.parseItem(); err != nil {
				return nil, err
			}
		} else {
			// A bare key means boolean true with optional parameters.
			m.item.bare = bareItem{kind: kindBoolean, boolean: true}
			if m.item.params, err = p.parseParams(); err != nil {
				return nil, err
			}
		}
		if _, dup := lookupMember(out, key); dup {
			return nil, malformedf("duplicate dictionary key %q", key)
		}
		if len(out) == maxMembers {
			return nil, malformedf("more than %d dictionary members", maxMembers)
		}
		out = append(out, m)
		p.skipOWS()
		if p.eof() {
			return out, nil
		}
		if p.peek() != ',' {
			return nil, malformedf("expected ',' at offset %d", p.i)
		}
		p.i++
		p.skipOWS()
		if p.eof() {
			return nil, malformedf("trailing comma")
		}
	}
}

func (p *sfParser) eof() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sfParser) skipSP() {
	for !p.eof() && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func isLCAlpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || (c >= 'A' && c <= 'Z') }

func isTChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) parseKey() (string, error) {
	start := p.i
	if c := p.peek(); !isLCAlpha(c) && c != '*' {
		return "", malformedf("invalid key at offset %d", p.i)
	}
	p.i++
	for !p.eof() {
		c := p.s[p.i]
		if !isLCAlpha(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' && c != '*' {
			break
		}
		p.i++
	}
	if p.i-start > maxKeyLen {
		return "", malformedf("key longer than %d bytes", maxKeyLen)
	}
	return p.s[start:p.i], nil
}

func (p *sfParser) parseParams() ([]param, error) {
	var out []param
	for p.peek() == ';' {
		p.i++
		p.skipSP()
		key, err := p.parseKey()
		if err != nil {
			return nil, err
		}
		v := bareItem{kind: kindBoolean, boolean: true}
		if p.peek() == '=' {
			p.i++
			if v, err = p.parseBareItem(); err != nil {
				return nil, err
			}
		}
		for _, q := range out {
			if q.key == key {
				return nil, malformedf("duplicate parameter %q", key)
			}
		}
		if len(out) == maxParams {
			return nil, malformedf("more than %d parameters", maxParams)
		}
		out = append(out, param{key: key, value: v})
	}
	return out, nil
}

func (p *sfParser) parseItem() (item, error) {
	b, err := p.parseBareItem()
	if err != nil {
		return item{}, err
	}
	params, err := p.parseParams()
	if err != nil {
		return item{}, err
	}
	return item{bare: b, params: params}, nil
}

func (p *sfParser) parseInnerList() ([]item, []param, error) {
	p.i++ // '('
	var items []item
	for {
		p.skipSP()
		if p.peek() == ')' {
			p.i++
			params, err := p.parseParams()
			return items, params, err
		}
		if p.eof() {
			return nil, nil, malformedf("unterminated inner list")
		}
		it, err := p.parseItem()
		if err != nil {
			return nil, nil, err
		}
		if len(items) == maxInnerItems {
			return nil, nil, malformedf("more than %d inner list items", maxInnerItems)
		}
		items = append(items, it)
		if c := p.peek(); c != ' ' && c != ')' {
			return nil, nil, malformedf("expected ' ' or ')' at offset %d", p.i)
		}
	}
}

func (p *sfParser) parseBareItem() (bareItem, error) {
	switch c := p.peek(); {
	case c == '-' || isDigit(c):
		return p.parseNumber()
	case c == '"':
		return p.parseString()
	case c == '*' || isAlpha(c):
		return p.parseToken()
	case c == ':':
		return p.parseBytes()
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			v := p.s[p.i+1] == '1'
			p.i += 2
			return bareItem{kind: kindBoolean, boolean: v}, nil
		}
		return bareItem{}, malformedf("invalid boolean at offset %d", p.i)
	default:
		return bareItem{}, malformedf("invalid item at offset %d", p.i)
	}
}

// parseNumber follows RFC 8941 §4.2.4: integers of at most 15 digits,
// decimals of at most 12 integer and 3 fractional digits.
func (p *sfParser) parseNumber() (bareItem, error) {
	neg := false
	if p.peek() == '-' {
		neg = true
		p.i++
	}
	start := p.i
	for !p.eof() && isDigit(p.s[p.i]) {
		p.i++
	}
	intDigits := p.s[start:p.i]
	if len(intDigits) == 0 {
		return bareItem{}, malformedf("number without digits")
	}
	if p.peek() != '.' {
		if len(intDigits) > 15 {
			return bareItem{}, malformedf("integer too long")
		}
		n, _ := strconv.ParseInt(intDigits, 10, 64) // ≤15 digits cannot overflow
		if neg {
			n = -n
		}
		return bareItem{kind: kindInteger, num: n}, nil
	}
	if len(intDigits) > 12 {
		return bareItem{}, malformedf("decimal too long")
	}
	p.i++
	fstart := p.i
	for !p.eof() && isDigit(p.s[p.i]) {
		p.i++
	}
	frac := p.s[fstart:p.i]
	if len(frac) == 0 || len(frac) > 3 {
		return bareItem{}, malformedf("invalid decimal fraction")
	}
	n, _ := strconv.ParseInt(intDigits+(frac + "00")[:3], 10, 64)
	if neg {
		n = -n
	}
	return bareItem{kind: kindDecimal, num: n}, nil
}

func (p *sfParser) parseString() (bareItem, error) {
	p.i++ // opening quote
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.eof() || (p.s[p.i] != '"' && p.s[p.i] != '\\') {
				return bareItem{}, malformedf("invalid escape in string")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return bareItem{kind: kindString, str: b.String()}, nil
		case c < 0x20 || c > 0x7e:
			return bareItem{}, malformedf("invalid character in string")
		default:
			b.WriteByte(c)
		}
	}
	return bareItem{}, malformedf("unterminated string")
}

func (p *sfParser) parseToken() (bareItem, error) {
	start := p.i
	p.i++
	for !p.eof() && (isTChar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/') {
		p.i++
	}
	return bareItem{kind: kindToken, str: p.s[start:p.i]}, nil
}

func (p *sfParser) parseBytes() (bareItem, error) {
	p.i++ // opening colon
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return bareItem{}, malformedf("unterminated byte sequence")
	}
	enc := p.s[p.i : p.i+end]
	p.i += end + 1
	b, err := base64.StdEncoding.Strict().DecodeString(enc)
	if err != nil {
		return bareItem{}, malformedf("invalid base64 in byte sequence")
	}
	return bareItem{kind: kindBytes, bytes: b}, nil
}

// Serialization (RFC 8941 §4.1). The signature base must contain the
// canonical serialization of Signature-Input, so the verifier re-serializes
// what it parsed rather than trusting the sender's spacing.

func appendBareItem(dst []byte, v bareItem) ([]byte, error) {
	switch v.kind {
	case kindInteger:
		return strconv.AppendInt(dst, v.num, 10), nil
	case kindDecimal:
		n := v.num
		if n < 0 {
			dst = append(dst, '-')
			n = -n
		}
		dst = strconv.AppendInt(dst, n/1000, 10)
		frac := strings.TrimRight(fmt.Sprintf("%03d", n%1000), "0")
		if frac == "" {
			frac = "0"
		}
		return append(append(dst, '.'), frac...), nil
	case kindString:
		return appendString(dst, v.str)
	case kindToken:
		return append(dst, v.str...), nil
	case kindBytes:
		dst = append(dst, ':')
		dst = base64.StdEncoding.AppendEncode(dst, v.bytes)
		return append(dst, ':'), nil
	case kindBoolean:
		if v.boolean {
			return append(dst, "?1"...), nil
		}
		return append(dst, "?0"...), nil
	}
	return nil, malformedf("unknown item kind")
}

func appendString(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			return nil, malformedf("string contains a non-printable or non-ASCII byte")
		}
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, '"'), nil
}

func appendParams(dst []byte, params []param) ([]byte, error) {
	var err error
	for _, p := range params {
		dst = append(append(dst, ';'), p.key...)
		if p.isTrue() {
			continue // boolean true is written as the bare key
		}
		dst = append(dst, '=')
		if dst, err = appendBareItem(dst, p.value); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

func appendItem(dst []byte, it item) ([]byte, error) {
	dst, err := appendBareItem(dst, it.bare)
	if err != nil {
		return nil, err
	}
	return appendParams(dst, it.params)
}

func appendInnerList(dst []byte, items []item, params []param) ([]byte, error) {
	dst = append(dst, '(')
	var err error
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if dst, err = appendItem(dst, it); err != nil {
			return nil, err
		}
	}
	dst = append(dst, ')')
	return appendParams(dst, params)
}

// appendMemberValue serializes a member's value as it appears after "key=".
func appendMemberValue(dst []byte, m member) ([]byte, error) {
	if m.isList {
		return appendInnerList(dst, m.list, m.params)
	}
	return appendItem(dst, m.item)
}

// serializeDictionary writes a whole dictionary; tests use it to check that
// parsing and serialization round-trip.
func serializeDictionary(d []member) (string, error) {
	var dst []byte
	var err error
	for i, m := range d {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, m.key...)
		if !m.isList && m.item.bare.kind == kindBoolean && m.item.bare.boolean {
			dst, err = appendParams(dst, m.item.params)
		} else {
			dst = append(dst, '=')
			dst, err = appendMemberValue(dst, m)
		}
		if err != nil {
			return "", err
		}
	}
	return string(dst), nil
}
