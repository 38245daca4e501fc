package safetext

import "strings"

// Clip cuts s to at most n runes, the last of them "…" when it was cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ClipLine is s on one line (runs of spaces and line breaks folded to one
// space), cut to at most n runes.
func ClipLine(s string, n int) string { return Clip(strings.Join(strings.Fields(s), " "), n) }
