package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// A request body is checked for the JSON that encoding/json lets through: a duplicate key
// (which one wins?) and nesting deep enough to exhaust a stack. checkJSONTokens walks the
// tokens; checkValidJSON, a fenced optimisation (BENCHMARKS.md "Fenced optimisations") kept by
// BenchmarkFenceCheckJSON, scans the bytes of a body already known to be valid JSON (every
// well-formed request), and TestCheckValidJSONMatchesTokens and FuzzCheckValidJSON hold it to
// the token walk's answers.

// maxJSONDepth bounds nesting so hostile bodies cannot exhaust the stack.
const maxJSONDepth = 32

// checkJSON checks one value, no duplicate keys in any object, bounded depth. Valid JSON (every
// well-formed request) takes a byte scan; anything else walks the tokens, whose first error is
// the answer.
func checkJSON(b []byte) error {
	if json.Valid(b) {
		return checkValidJSON(b)
	}
	return checkJSONTokens(b)
}

// checkValidJSON finds, in document order, the first object nested deeper than maxJSONDepth or
// the first duplicate key, in b, which must be valid JSON. Keys compare unescaped.
func checkValidJSON(b []byte) error {
	type frame struct {
		obj    bool
		keys   objectKeys
		expect bool // in an object: the next string is a key
	}
	var buf [8]frame
	stack := buf[:0]
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxJSONDepth {
				return errors.New("the request body is nested too deeply")
			}
			if top := len(stack) - 1; top >= 0 && stack[top].obj {
				stack[top].expect = true
			}
			stack = append(stack, frame{obj: c == '{', expect: true})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case '"':
			start, escaped := i, false
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
					escaped = true
				}
			}
			top := len(stack) - 1
			if top < 0 || !stack[top].obj {
				continue
			}
			if !stack[top].expect {
				stack[top].expect = true
				continue
			}
			k := string(b[start+1 : i])
			if escaped {
				_ = json.Unmarshal(b[start:i+1], &k) // valid JSON: a string literal decodes
			}
			if !stack[top].keys.add(k) {
				return errors.New("the request body has a duplicate key")
			}
			stack[top].expect = false
		default:
			// Numbers, literals, ':' and ',' and whitespace; a scalar value in an object ends
			// with the next ',' or '}', and the next string is a key again.
			if c == ',' {
				if top := len(stack) - 1; top >= 0 && stack[top].obj {
					stack[top].expect = true
				}
			}
		}
	}
	return nil
}

// smallObjectKeys is how many keys an object holds in a slice before they move to a set: few
// keys (every well-formed request) compare fastest in a slice, and a set keeps a body of many
// keys linear (SECURITY.md "Bounds on work per request").
const smallObjectKeys = 16

// objectKeys is the set of keys seen in one object.
type objectKeys struct {
	few  []string
	many map[string]struct{}
}

// add adds k and reports whether it was new.
func (o *objectKeys) add(k string) bool {
	if o.many != nil {
		if _, dup := o.many[k]; dup {
			return false
		}
		o.many[k] = struct{}{}
		return true
	}
	for _, seen := range o.few {
		if seen == k {
			return false
		}
	}
	if len(o.few) < smallObjectKeys {
		o.few = append(o.few, k)
		return true
	}
	o.many = make(map[string]struct{}, 2*smallObjectKeys)
	for _, seen := range o.few {
		o.many[seen] = struct{}{}
	}
	o.many[k] = struct{}{}
	o.few = nil
	return true
}

// checkJSONTokens walks the tokens once: one value, no duplicate keys in any object, bounded
// depth.
func checkJSONTokens(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		obj    bool
		keys   map[string]struct{}
		expect bool // in an object: the next string token is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errors.New("the request body is not valid JSON")
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if len(stack) >= maxJSONDepth {
					return errors.New("the request body is nested too deeply")
				}
				if top >= 0 && stack[top].obj {
					stack[top].expect = true
				}
				stack = append(stack, frame{obj: d == '{', keys: map[string]struct{}{}, expect: true})
			default:
				stack = stack[:top]
			}
			continue
		}
		if top >= 0 && stack[top].obj {
			if stack[top].expect {
				k := tok.(string)
				if _, dup := stack[top].keys[k]; dup {
					return errors.New("the request body has a duplicate key")
				}
				stack[top].keys[k] = struct{}{}
				stack[top].expect = false
			} else {
				stack[top].expect = true
			}
		}
	}
	if dec.More() {
		return errors.New("the request body has data after the JSON value")
	}
	return nil
}
