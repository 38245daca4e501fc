package safetext

import (
	"strings"
	"unicode/utf8"
)

// Quote returns s as one word for a POSIX shell, such that no character of
// it is interpreted: a word of letters, digits and /._-:,+@% only is
// returned as it is; anything else is put in single quotes, each single
// quote in it written as a backslashed quote between two quoted runs. A
// character that Terminal would change (a control character, a byte that
// is not UTF-8) is written as "$(printf '\NNN')", so that the printed
// line is both safe to show and exact when pasted; only a newline, which
// command substitution would drop, stays as it is inside the quotes.
func Quote(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	quoted := false
	open := func() {
		if !quoted {
			b.WriteByte('\'')
			quoted = true
		}
	}
	close := func() {
		if quoted {
			b.WriteByte('\'')
			quoted = false
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\'':
			close()
			b.WriteString(`\'`)
		case r == '\n' || !(r == utf8.RuneError && size == 1) && !Unsafe(r):
			open()
			b.WriteString(s[i : i+size])
		default:
			// printf's octal escapes, one per byte, inside double
			// quotes so that nothing is split or globbed.
			close()
			b.WriteString(`"$(printf '`)
			for j := i; j < i+size; j++ {
				c := s[j]
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + c>>3&7)
				b.WriteByte('0' + c&7)
			}
			b.WriteString(`')"`)
		}
		i += size
	}
	close()
	return b.String()
}

// plain reports whether s can be a shell word as it is. A word holding '='
// is quoted when what precedes it is a name, which the shell would take
// for an assignment were the word first on the line.
func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-:,+@%=", c) >= 0) {
			return false
		}
	}
	if name, _, ok := strings.Cut(s, "="); ok && isName(name) {
		return false
	}
	return true
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Join quotes each word and joins them with spaces: a command line.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
