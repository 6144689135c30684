package wire

// IDPrefixes are the type prefixes of server ids (docs/protocol.md §2), by resource.
var IDPrefixes = map[string]string{
	"patient": "pat", "appointment": "apt", "invoice": "inv", "payment": "pay", "product": "prd",
	"inventory": "stk", "adjustment": "adj", "refund": "ref", "webhook": "whk", "event": "evt",
	"apiKey": "key", "request": "req", "audit": "aud",
}

// IDHexLen is the length of an id's hex part: 32 lowercase hex digits of a UUIDv7.
const IDHexLen = 32

// WellFormedID reports whether s has the shape of a server id (docs/protocol.md §2): a prefix of
// 3–4 lowercase letters, "_", then 32 lowercase hex digits. It does not check the prefix against
// IDPrefixes (see HasPrefix for that).
func WellFormedID(s string) bool {
	i := idPrefixLen(s)
	if i == 0 {
		return false
	}
	for j := i + 1; j < len(s); j++ {
		if hexValue[s[j]] > 0xf {
			return false
		}
	}
	return true
}

// DecodeID returns the prefix of a well-formed id (WellFormedID) and the 16 bytes its hex digits
// spell, checking and decoding in one pass; ok is false for any other string.
func DecodeID(s string) (prefix string, raw [IDHexLen / 2]byte, ok bool) {
	i := idPrefixLen(s)
	if i == 0 {
		return "", raw, false
	}
	digits := s[i+1:]
	for k := range raw {
		hi, lo := hexValue[digits[2*k]], hexValue[digits[2*k+1]]
		if hi|lo > 0xf {
			return "", [IDHexLen / 2]byte{}, false
		}
		raw[k] = hi<<4 | lo
	}
	return s[:i], raw, true
}

// idPrefixLen is the length of s's prefix when s has an id's shape up to its digits: 3–4
// lowercase letters, "_", and room for IDHexLen digits after it; 0 otherwise.
func idPrefixLen(s string) int {
	i := 0
	for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i++
	}
	if i < 3 || i > 4 || len(s) != i+1+IDHexLen || s[i] != '_' {
		return 0
	}
	return i
}

// hexValue is the value of each lowercase hex digit, 0xff for any other byte (the table
// encoding/hex keeps too).
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// IsID reports whether s is a well-formed id with the given prefix ("pat", "apt", …).
func IsID(s, prefix string) bool {
	return len(s) == len(prefix)+1+IDHexLen && s[:len(prefix)] == prefix && WellFormedID(s)
}
