package fastjson

// Keys is the set of keys a caller reads from an object of some kind.
// encoding/json matches a key to a struct field ignoring case when no
// field has it exactly ("Type" sets the field tagged "type"); a caller that
// matches keys exactly hands every key it does not read to Skip, which
// declines the input when encoding/json would have read the key after all.
type Keys struct {
	folded map[string]bool
	max    int
	lens   uint64    // bit n set when a name has n bytes (n < 64)
	firsts [2]uint64 // bit c set when a name starts with c, folded
}

// NewKeys returns the set of names, which must be ASCII.
func NewKeys(names ...string) *Keys {
	k := &Keys{folded: make(map[string]bool, len(names))}
	for _, n := range names {
		var buf [64]byte
		f := fold(buf[:0], []byte(n))
		k.folded[string(f)] = true
		k.max = max(k.max, len(n))
		if len(n) < 64 {
			k.lens |= 1 << len(n)
		}
		if len(f) > 0 && f[0] < 128 {
			k.firsts[f[0]/64] |= 1 << (f[0] % 64)
		}
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
	if len(key) <= k.max && k.mayFold(key) {
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
		// No name has this length or first letter; only a key beyond
		// ASCII could still fold to one.
		for _, c := range key {
			if c >= 0x80 {
				p.Decline()
				return
			}
		}
	}
	p.Skip()
}

// mayFold reports whether the ASCII key could be a name but for case,
// from its length and first byte.
func (k *Keys) mayFold(key []byte) bool {
	if len(key) == 0 || len(key) >= 64 {
		return true
	}
	if k.lens&(1<<len(key)) == 0 {
		return false
	}
	c := key[0]
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c >= 128 || k.firsts[c/64]&(1<<(c%64)) != 0
}
