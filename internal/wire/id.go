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
	i := 0
	for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i++
	}
	if i < 3 || i > 4 || len(s) != i+1+IDHexLen || s[i] != '_' {
		return false
	}
	for _, c := range []byte(s[i+1:]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// IsID reports whether s is a well-formed id with the given prefix ("pat", "apt", …).
func IsID(s, prefix string) bool {
	return len(s) == len(prefix)+1+IDHexLen && s[:len(prefix)] == prefix && WellFormedID(s)
}
