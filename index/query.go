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

// fts is term as FTS5 reads it: a quoted string (so that nothing a user
// types is taken for FTS5 syntax), with * for a prefix.
func (t term) fts() string {
	s := `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
	if t.prefix {
		s += "*"
	}
	return s
}

// ParseQuery reads a search query and returns it in FTS5's syntax. A query
// is words, all of which must match; "a phrase", whose words must come in
// order; prefix*, any word starting with prefix; OR between two groups of
// words, either of which may match; and -word or -"phrase", which must not.
// Matching ignores case and diacritics.
func ParseQuery(q string) (string, error) {
	match, _, err := parseQuery(q)
	return match, err
}

// parseQuery is ParseQuery, and the terms a match holds (for its snippet).
func parseQuery(q string) (string, []term, error) {
	p, err := parse(q)
	if err != nil {
		return "", nil, err
	}
	return p.fts(), p.terms(), nil
}

// parsed is a query read: groups of terms joined by OR, each a
// conjunction, and terms that must not match.
type parsed struct {
	alts [][]term
	not  []term
}

// parse reads a query (see ParseQuery).
func parse(q string) (parsed, error) {
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
				return parsed{}, &SyntaxError{q, start, "a - must be followed by the word or phrase to exclude"}
			}
		}
		var t term
		if q[i] == '"' {
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				return parsed{}, &SyntaxError{q, i, "this quote is not closed"}
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
				return parsed{}, &SyntaxError{q, start, "OR needs words on both sides"}
			}
			alts, cur, orAt = append(alts, cur), []term{}, start
			continue
		}
		if !hasWord(t.text) {
			return parsed{}, &SyntaxError{q, start, fmt.Sprintf("%q has no letter or digit to search for", t.text)}
		}
		if neg {
			not = append(not, t)
		} else {
			cur = append(cur, t)
		}
	}
	if len(cur) == 0 && orAt >= 0 {
		return parsed{}, &SyntaxError{q, orAt, "OR needs words on both sides"}
	}
	if len(cur) > 0 {
		alts = append(alts, cur)
	}
	if len(alts) == 0 {
		if len(not) > 0 {
			return parsed{}, &SyntaxError{q, 0, "a query needs a word to find, not only words to exclude"}
		}
		return parsed{}, &SyntaxError{q, 0, "the query is empty"}
	}
	return parsed{alts: alts, not: not}, nil
}

// fts is the query in FTS5's syntax.
func (p parsed) fts() string {
	var b strings.Builder
	for k, alt := range p.alts {
		if k > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('(')
		for j, t := range alt {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t.fts())
		}
		b.WriteByte(')')
	}
	out := b.String()
	if len(p.alts) > 1 && len(p.not) > 0 {
		out = "(" + out + ")"
	}
	for _, t := range p.not {
		out += " NOT " + t.fts()
	}
	return out
}

// terms are the terms a match holds (for its snippet).
func (p parsed) terms() []term {
	var terms []term
	for _, alt := range p.alts {
		terms = append(terms, alt...)
	}
	return terms
}

// hasWord reports whether s holds something the tokenizer keeps.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
