package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// snippetTokens is how many words a snippet shows.
const snippetTokens = 24

// snippet is the part of text around the first match of terms, each
// matching word between Mark and EndMark, "…" where text goes on: what
// FTS5's snippet() gave when the index kept the text it indexed. A word
// matches as FTS5's tokenizer (unicode61, diacritics removed) matches
// it: letters and digits, case and Latin accents ignored.
func snippet(text string, terms []term) string {
	type token struct{ start, end int }
	var toks []token
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isTokenRune(r) {
			i += n
			continue
		}
		start := i
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !isTokenRune(r) {
				break
			}
			i += n
		}
		toks = append(toks, token{start, i})
	}
	if len(toks) == 0 {
		return ""
	}
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = fold(text[t.start:t.end])
	}
	// A term is a word, a prefix, or a phrase of words (its last word a
	// prefix when the term is).
	var want [][]string
	for _, t := range terms {
		var ws []string
		for _, w := range strings.FieldsFunc(t.text, func(r rune) bool { return !isTokenRune(r) }) {
			ws = append(ws, fold(w))
		}
		if len(ws) > 0 {
			if t.prefix {
				ws[len(ws)-1] += "*"
			}
			want = append(want, ws)
		}
	}
	marked := make([]bool, len(toks))
	first := -1
	for i := range words {
		for _, ws := range want {
			if i+len(ws) > len(words) {
				continue
			}
			ok := true
			for j, w := range ws {
				if p, isPrefix := strings.CutSuffix(w, "*"); isPrefix {
					ok = strings.HasPrefix(words[i+j], p)
				} else {
					ok = words[i+j] == w
				}
				if !ok {
					break
				}
			}
			if ok {
				for j := range ws {
					marked[i+j] = true
				}
				if first < 0 {
					first = i
				}
			}
		}
	}
	from := 0
	if first > snippetTokens/4 {
		from = first - snippetTokens/4
	}
	to := min(len(toks), from+snippetTokens)
	if to-from < snippetTokens {
		from = max(0, to-snippetTokens)
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at := toks[from].start
	if from == 0 {
		at = 0
	}
	for i := from; i < to; i++ {
		t := toks[i]
		b.WriteString(text[at:t.start])
		if marked[i] {
			b.WriteString(Mark + text[t.start:t.end] + EndMark)
		} else {
			b.WriteString(text[t.start:t.end])
		}
		at = t.end
	}
	if to < len(toks) {
		b.WriteString("…")
	} else {
		b.WriteString(text[at:])
	}
	return b.String()
}

// isTokenRune reports whether r is part of a word for unicode61: a
// letter, a digit or a mark.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r)
}

// latinBase is the base letter of each of U+00C0 to U+024F, '.' where it
// has none.
const latinBase = "aaaaaa.ceeeeiiii.nooooo..uuuuy..aaaaaa.ceeeeiiii.nooooo..uuuuy.yaaaaaaccccccccdd..eeeeeeeeeegggggggghh..iiiiiiiii...jjkk.llllll....nnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzz.................................oo.............uu............................aaiioouuuuuuuuuu.aaaa....ggkkoooo..j...gg..nnaa....aaaaeeeeiiiioooorrrruuuusstt..hh......aaeeooooooooyy............................"

// fold is w lower-cased, its Latin letters without accents and its
// combining marks dropped.
func fold(w string) string {
	var b strings.Builder
	b.Grow(len(w))
	for _, r := range w {
		r = unicode.ToLower(r)
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r >= 0xC0 && r < 0xC0+rune(len(latinBase)) && latinBase[r-0xC0] != '.':
			r = rune(latinBase[r-0xC0])
		}
		b.WriteRune(r)
	}
	return b.String()
}
