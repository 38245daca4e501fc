package index

import "strings"

// snippetTokens is how many words a snippet shows.
const snippetTokens = 24

// snippet is the part of text around the first match of ps, each
// matching word between Mark and EndMark, "…" where text goes on: what
// FTS5's snippet() gave when the index kept the text it indexed. A word
// matches as FTS5's tokenizer matches it (see words). ws is text's words.
func snippet(text string, ws *words, ps []pattern) string {
	n := ws.len()
	if n == 0 {
		return ""
	}
	marked := make([]bool, n)
	first := -1
	for i := range n {
		for k := range ps {
			if ps[k].matchAt(ws, i) {
				for j := range ps[k].words {
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
	to := min(n, from+snippetTokens)
	if to-from < snippetTokens {
		from = max(0, to-snippetTokens)
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at := ws.spans[from][0]
	if from == 0 {
		at = 0
	}
	for i := from; i < to; i++ {
		t := ws.spans[i]
		b.WriteString(text[at:t[0]])
		if marked[i] {
			b.WriteString(Mark + text[t[0]:t[1]] + EndMark)
		} else {
			b.WriteString(text[t[0]:t[1]])
		}
		at = t[1]
	}
	if to < n {
		b.WriteString("…")
	} else {
		b.WriteString(text[at:])
	}
	return b.String()
}
