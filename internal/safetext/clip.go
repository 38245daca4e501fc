package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clip cuts s to at most n runes, the last of them "…" when it was cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// CutBytes cuts s to at most n bytes, at a character's start: no
// character is cut in two.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ClipLine is s on one line (runs of spaces and line breaks folded to one
// space), cut to at most n runes.
func ClipLine(s string, n int) string { return Clip(strings.Join(strings.Fields(s), " "), n) }

// QuoteN is s quoted as Go quotes it (%q), its quoted form cut to at most
// n bytes (then ending in …"): a long input, or bytes that quote to four
// times their length, cannot make a long message.
func QuoteN(s string, n int) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		piece := strconv.Quote(s[i : i+size])
		piece = piece[1 : len(piece)-1]
		room := n - b.Len()
		fits := len(piece)+len("…\"") <= room || i+size == len(s) && len(piece)+1 <= room
		if !fits {
			b.WriteString("…")
			break
		}
		b.WriteString(piece)
		i += size
	}
	b.WriteByte('"')
	return b.String()
}
