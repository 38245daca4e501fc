package index

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// words is a text split into words as FTS5's tokenizer (unicode61,
// diacritics removed) splits it: runs of letters, digits and marks, each
// kept folded (lower-cased, Latin accents and combining marks dropped)
// with where it lies in the text. A words is reused from text to text:
// splitting allocates only while its buffers grow.
type words struct {
	folded []byte // the folded words, one after the other
	ends   []int  // where each folded word ends in folded
	spans  [][2]int
}

// split splits text, forgetting the previous one.
func (ws *words) split(text string) {
	ws.folded, ws.ends, ws.spans = ws.folded[:0], ws.ends[:0], ws.spans[:0]
	for w, ok := nextWord(text, 0); ok; w, ok = nextWord(text, w.end) {
		ws.folded = appendWord(ws.folded, text, w)
		ws.ends = append(ws.ends, len(ws.folded))
		ws.spans = append(ws.spans, [2]int{w.start, w.end})
	}
}

// span is where a word lies in a text; wide when it has a letter beyond
// ASCII.
type span struct {
	start, end int
	wide       bool
}

// nextWord finds the first word of text at or after i, as FTS5's
// tokenizer (unicode61) splits it: a run of letters, digits and marks.
// ok is false when there is none.
func nextWord(text string, i int) (w span, ok bool) {
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if wordByte[c] {
				break
			}
			i++
		} else if r, k := utf8.DecodeRuneInString(text[i:]); isTokenRune(r) {
			break
		} else {
			i += k
		}
	}
	if i == len(text) {
		return span{}, false
	}
	w.start = i
	for i < len(text) {
		for i < len(text) && wordByte[text[i]] {
			i++
		}
		if i == len(text) || text[i] < utf8.RuneSelf {
			break
		}
		r, k := utf8.DecodeRuneInString(text[i:])
		if !isTokenRune(r) {
			break
		}
		w.wide = true
		i += k
	}
	w.end = i
	return w, true
}

// appendWord appends the word of text at w, folded: an ASCII word
// lower-cased, one beyond ASCII rune by rune (appendFolded).
func appendWord(b []byte, text string, w span) []byte {
	if w.wide {
		for _, r := range text[w.start:w.end] {
			b = appendFolded(b, r)
		}
		return b
	}
	for i := w.start; i < w.end; i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// len is how many words the text has.
func (ws *words) len() int { return len(ws.ends) }

// at is the i-th word, folded.
func (ws *words) at(i int) []byte {
	from := 0
	if i > 0 {
		from = ws.ends[i-1]
	}
	return ws.folded[from:ws.ends[i]]
}

// pattern is a query term as words are matched against it: its folded
// words in order, the last one a prefix when the term is.
type pattern struct {
	term   term
	words  [][]byte
	prefix bool
}

// patterns are terms' patterns; a term without a word has none.
func patterns(terms []term) []pattern {
	var ps []pattern
	for _, t := range terms {
		p := pattern{term: t}
		for _, w := range strings.FieldsFunc(t.text, func(r rune) bool { return !isTokenRune(r) }) {
			p.words = append(p.words, []byte(fold(w)))
		}
		if len(p.words) > 0 {
			p.prefix = t.prefix
			ps = append(ps, p)
		}
	}
	return ps
}

// matchAt reports whether the words from i on match p.
func (p *pattern) matchAt(ws *words, i int) bool {
	if i+len(p.words) > ws.len() {
		return false
	}
	for j, w := range p.words {
		got := ws.at(i + j)
		if p.prefix && j == len(p.words)-1 {
			if !bytes.HasPrefix(got, w) {
				return false
			}
		} else if !bytes.Equal(got, w) {
			return false
		}
	}
	return true
}

// wordByte marks the ASCII bytes that are part of a word (a byte beyond
// ASCII is not one: its rune is read).
var wordByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = isTokenRune(rune(c))
	}
	return t
}()

// isTokenRune reports whether r is part of a word for unicode61: a
// letter, a digit or a mark.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r)
}

// latinBase is the base letter of each of U+00C0 to U+024F, '.' where it
// has none.
const latinBase = "aaaaaa.ceeeeiiii.nooooo..uuuuy..aaaaaa.ceeeeiiii.nooooo..uuuuy.yaaaaaaccccccccdd..eeeeeeeeeegggggggghh..iiiiiiiii...jjkk.llllll....nnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzz.................................oo.............uu............................aaiioouuuuuuuuuu.aaaa....ggkkoooo..j...gg..nnaa....aaaaeeeeiiiioooorrrruuuusstt..hh......aaeeooooooooyy............................"

// appendFolded appends r folded: lower-cased, a Latin letter without its
// accent, nothing for a combining mark.
func appendFolded(b []byte, r rune) []byte {
	if l := unicode.ToLower(r); l != r {
		r = l
	} else if u := unicode.ToUpper(r); u != r && r != 'ı' && !unicode.Is(unicode.Mn, r) {
		// A lower-case letter with a capital of its own: the one its
		// capital lowers to (final sigma is sigma, the long s an s), as
		// FTS5 folds it.
		r = unicode.ToLower(u)
	}
	switch {
	case unicode.Is(unicode.Mn, r):
		return b
	case r >= 0xC0 && r < 0xC0+rune(len(latinBase)) && latinBase[r-0xC0] != '.':
		r = rune(latinBase[r-0xC0])
	}
	return utf8.AppendRune(b, r)
}

// fold is w lower-cased, its Latin letters without accents and its
// combining marks dropped.
func fold(w string) string {
	b := make([]byte, 0, len(w))
	for _, r := range w {
		b = appendFolded(b, r)
	}
	return string(b)
}

// maxCounted is the longest phrase countWords counts; a longer one is
// counted by splitting.
const maxCounted = 8

// countWords is what splitting text and matching ps at each word counts
// (the counter's work, see rank.go): how many words it has, and each
// pattern's matches added to tf (len(ps) of them). It keeps no word: each
// is compared with the patterns where it lies, an ASCII one (most are)
// without folding it; the words are found as split finds them
// (nextWord). A 4 KB candidate: 7.0 µs, 11.7 for split and matching
// (BenchmarkCount). ok is false, and tf untouched, when a pattern is a phrase
// longer than maxCounted: split the text.
func countWords(text string, ps []pattern, tf []int32) (n int, ok bool) {
	for _, p := range ps {
		if len(p.words) > maxCounted {
			return 0, false
		}
	}
	if len(ps) == 1 && len(ps[0].words) == 1 {
		return countWord(text, &ps[0], &tf[0]), true
	}
	var (
		// The last words, a ring: word n-1 at (n-1)%maxCounted.
		spans [maxCounted]span
		fold  []byte // a word beyond ASCII, folded
	)
	for w, found := nextWord(text, 0); found; w, found = nextWord(text, w.end) {
		spans[uint(n)%maxCounted] = w
		n++
		for k := range ps {
			p := &ps[k]
			if len(p.words) == 1 {
				if w.wide && p.matchesWord(text, w, 0, &fold) || !w.wide && p.matchesASCII(text[w.start:w.end], 0) {
					tf[k]++
				}
				continue
			}
			first := n - len(p.words)
			if first < 0 {
				continue
			}
			match := true
			for j := range p.words {
				if !p.matchesWord(text, spans[uint(first+j)%maxCounted], j, &fold) {
					match = false
					break
				}
			}
			if match {
				tf[k]++
			}
		}
	}
	return n, true
}

// countWord is countWords for a query of one word (most are): it walks
// the text's ASCII a byte at a time, with no ring of words and no call
// per word, and each word that goes beyond ASCII as countWords does
// (nextWord), going back to the ASCII after it. A 4 KB candidate: 7.3 ->
// 3.3 µs (BenchmarkCount).
func countWord(text string, p *pattern, tf *int32) (n int) {
	want := p.words[0]
	var fold []byte
	i := 0
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if !wordByte[c] {
				i++
				continue
			}
			start := i
			for i < len(text) && wordByte[text[i]] {
				i++
			}
			if i == len(text) || text[i] < utf8.RuneSelf {
				n++
				w := text[start:i]
				if p.prefix && len(w) >= len(want) && equalFoldASCII(w[:len(want)], want) ||
					!p.prefix && len(w) == len(want) && equalFoldASCII(w, want) {
					*tf++
				}
				continue
			}
			i = start // a word that may go on beyond ASCII
		}
		// Between two words or at one's start: the next word, as
		// nextWord finds it.
		w, found := nextWord(text, i)
		if !found {
			break
		}
		n++
		if w.wide && p.matchesWord(text, w, 0, &fold) || !w.wide && p.matchesASCII(text[w.start:w.end], 0) {
			*tf++
		}
		i = w.end
	}
	return n
}

// matchesWord reports whether the word of text at w matches p's j-th word
// (a prefix of it when j is p's last and p a prefix). A word beyond ASCII
// is folded into fold first.
func (p *pattern) matchesWord(text string, w span, j int, fold *[]byte) bool {
	if !w.wide {
		return p.matchesASCII(text[w.start:w.end], j)
	}
	*fold = appendWord((*fold)[:0], text, w)
	if p.prefix && j == len(p.words)-1 {
		return bytes.HasPrefix(*fold, p.words[j])
	}
	return bytes.Equal(*fold, p.words[j])
}

// matchesASCII is matchesWord for an ASCII word.
func (p *pattern) matchesASCII(got string, j int) bool {
	want := p.words[j]
	if p.prefix && j == len(p.words)-1 {
		return len(got) >= len(want) && equalFoldASCII(got[:len(want)], want)
	}
	return len(got) == len(want) && equalFoldASCII(got, want)
}

// equalFoldASCII reports whether the ASCII word s, lower-cased, is w.
func equalFoldASCII(s string, w []byte) bool {
	for i := range len(w) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
