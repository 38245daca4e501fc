package index

import (
	"fmt"
	"strings"
	"unicode"
)

// SyntaxError is a query stead cannot read; Pos is the byte offset (from
// 0) of what is wrong.
type SyntaxError struct {
	Query string
	Pos   int
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("query %q, at character %d: %s", e.Query, e.Pos+1, e.Msg)
}

// term is a word or phrase of a query.
type term struct {
	text   string
	prefix bool
}

// tokens are the term's words, as the tokenizer splits them.
func (t term) tokens() []string {
	return strings.FieldsFunc(t.text, func(r rune) bool { return !isTokenRune(r) })
}

// phrase reports whether the term is more than one word: the full-text
// index, which keeps no word positions (detail=none), finds the entries
// holding all of them, and Search keeps those where they come in order.
func (t term) phrase() bool { return len(t.tokens()) > 1 }

// fts is the term as FTS5 reads it: each word a quoted string (so that
// nothing a user types is taken for FTS5 syntax), the last with * for a
// prefix, all of them required (FTS5 joins words with AND, not groups).
func (t term) fts() string {
	toks := t.tokens()
	var b strings.Builder
	for i, w := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"`)
		if t.prefix && i == len(toks)-1 {
			b.WriteByte('*')
		}
	}
	return b.String()
}

// ParseQuery reads a search query and returns it in FTS5's syntax. A query
// is words, all of which must match; "a phrase", whose words must come in
// order; prefix*, any word starting with prefix; OR between two groups of
// words, either of which may match; and -word or -"phrase", which must not.
// Matching ignores case and diacritics. A phrase (and a term such as
// src/main.go, which is several words) is in FTS5's syntax all of its
// words; Search keeps the entries where they come in order, and excludes
// those holding an excluded phrase.
func ParseQuery(q string) (string, error) {
	pq, err := parseQuery(q)
	return pq.match, err
}

// parsedQuery is a query read: its FTS5 expression, and its terms for
// checking a text against it and making snippets.
type parsedQuery struct {
	match string
	alts  [][]term // joined by OR, each a conjunction
	not   []term
	terms []term // the terms of alts, in order
	// verify is set when an entry FTS5 matches may not hold the query:
	// it has a phrase, or excludes one.
	verify bool
	// alt and not as patterns, for verify.
	altPatterns [][]pattern
	notPatterns []pattern
}

// parseQuery is ParseQuery, the query read.
func parseQuery(q string) (parsedQuery, error) {
	var alts [][]term // groups joined by OR, each a conjunction
	var not []term
	cur := []term{}
	orAt := -1 // where an OR waits for the group after it
	i := 0
	for i < len(q) {
		r := rune(q[i])
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			i++
			continue
		}
		start := i
		neg := false
		if q[i] == '-' {
			neg = true
			i++
			if i >= len(q) || q[i] == ' ' {
				return parsedQuery{}, &SyntaxError{q, start, "a - must be followed by the word or phrase to exclude"}
			}
		}
		var t term
		if q[i] == '"' {
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				return parsedQuery{}, &SyntaxError{q, i, "this quote is not closed"}
			}
			t.text = q[i+1 : i+1+end]
			i += end + 2
			if i < len(q) && q[i] == '*' {
				t.prefix = true
				i++
			}
		} else {
			end := i
			for end < len(q) && q[end] != ' ' && q[end] != '\t' && q[end] != '\n' && q[end] != '\r' && q[end] != '"' {
				end++
			}
			t.text = q[i:end]
			i = end
			if strings.HasSuffix(t.text, "*") {
				t.text, t.prefix = strings.TrimRight(t.text, "*"), true
			}
		}
		if !neg && !t.prefix && t.text == "OR" {
			if len(cur) == 0 {
				return parsedQuery{}, &SyntaxError{q, start, "OR needs words on both sides"}
			}
			alts, cur, orAt = append(alts, cur), []term{}, start
			continue
		}
		if !hasWord(t.text) {
			return parsedQuery{}, &SyntaxError{q, start, fmt.Sprintf("%q has no letter or digit to search for", t.text)}
		}
		if neg {
			not = append(not, t)
		} else {
			cur = append(cur, t)
		}
	}
	if len(cur) == 0 && orAt >= 0 {
		return parsedQuery{}, &SyntaxError{q, orAt, "OR needs words on both sides"}
	}
	if len(cur) > 0 {
		alts = append(alts, cur)
	}
	if len(alts) == 0 {
		if len(not) > 0 {
			return parsedQuery{}, &SyntaxError{q, 0, "a query needs a word to find, not only words to exclude"}
		}
		return parsedQuery{}, &SyntaxError{q, 0, "the query is empty"}
	}
	pq := parsedQuery{alts: alts, not: not}
	var b strings.Builder
	for k, alt := range alts {
		if k > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('(')
		for j, t := range alt {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t.fts())
			pq.verify = pq.verify || t.phrase()
		}
		b.WriteByte(')')
	}
	out := b.String()
	var excluded []string
	for _, t := range not {
		if t.phrase() {
			pq.verify = true // FTS5 can exclude only the entries holding a word
			continue
		}
		excluded = append(excluded, t.fts())
	}
	if len(alts) > 1 && len(excluded) > 0 {
		out = "(" + out + ")"
	}
	for _, e := range excluded {
		out += " NOT " + e
	}
	pq.match = out
	for _, alt := range alts {
		pq.terms = append(pq.terms, alt...)
	}
	if pq.verify {
		for _, alt := range alts {
			pq.altPatterns = append(pq.altPatterns, patterns(alt))
		}
		pq.notPatterns = patterns(not)
	}
	return pq, nil
}

// holds reports whether the words of a text hold the query: every term of
// one of its alternatives, and none of its excluded terms.
func (pq *parsedQuery) holds(ws *words) bool {
	has := func(p *pattern) bool {
		for i := range ws.len() {
			if p.matchAt(ws, i) {
				return true
			}
		}
		return false
	}
	for k := range pq.notPatterns {
		if has(&pq.notPatterns[k]) {
			return false
		}
	}
	for _, alt := range pq.altPatterns {
		all := true
		for k := range alt {
			if !has(&alt[k]) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// hasWord reports whether s holds something the tokenizer keeps.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
