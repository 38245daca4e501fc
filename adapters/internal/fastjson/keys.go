package fastjson

// Keys is the set of keys a caller reads from an object of some kind.
// encoding/json matches a key to a struct field ignoring case when no
// field has it exactly ("Type" sets the field tagged "type"); a caller that
// matches keys exactly hands every key it does not read to Skip, which
// declines the input when encoding/json would have read the key after all.
type Keys struct {
	folded map[string]bool
	max    int
}

// NewKeys returns the set of names, which must be ASCII.
func NewKeys(names ...string) *Keys {
	k := &Keys{folded: make(map[string]bool, len(names))}
	for _, n := range names {
		var buf [64]byte
		k.folded[string(fold(buf[:0], []byte(n)))] = true
		k.max = max(k.max, len(n))
	}
	return k
}

// fold appends key in lower case to dst (ASCII only).
func fold(dst, key []byte) []byte {
	for _, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// Skip skips the value of a member whose key the caller does not read. It
// declines the input when key is one of k ignoring case, or holds bytes
// beyond ASCII (which encoding/json folds too: "ſ" matches "s").
func (k *Keys) Skip(p *Parser, key []byte) {
	if len(key) <= k.max {
		var buf [64]byte
		f := buf[:0]
		for _, c := range key {
			if c >= 0x80 {
				p.Decline()
				return
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			f = append(f, c)
		}
		if k.folded[string(f)] {
			p.Decline()
			return
		}
	} else {
		for _, c := range key {
			if c >= 0x80 {
				p.Decline()
				return
			}
		}
	}
	p.Skip()
}
