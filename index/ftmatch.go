package index

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// ftQuery is a query as segments match it: a parsed query's terms, and
// groups of words (the filters' tags, see filtered), each group one of
// whose words a match must hold.
type ftQuery struct {
	p   parsed
	all [][]string
}

// matchSegs lists the documents of segs that q matches, from the newest
// (the largest id), at least from, at most limit of them.
func matchSegs(segs []*segment, q *ftQuery, from int64, limit int) ([]int64, error) {
	order := slices.Clone(segs)
	slices.SortFunc(order, func(a, b *segment) int { return cmp.Compare(b.last, a.last) })
	var found []int64
	for _, s := range order {
		if s.last < from {
			break
		}
		if len(found) >= limit && s.last < found[limit-1] {
			break
		}
		docs, err := q.match(s)
		if err != nil {
			return nil, err
		}
		for i := len(docs) - 1; i >= 0 && docs[i] >= from; i-- {
			found = append(found, docs[i])
		}
		slices.SortFunc(found, func(a, b int64) int { return cmp.Compare(b, a) })
		if len(found) > limit {
			found = found[:limit]
		}
	}
	return found, nil
}

// match lists the documents of s that q matches, in increasing order.
func (q *ftQuery) match(s *segment) ([]int64, error) {
	var docs []int64
	for _, alt := range q.p.alts {
		var and []int64
		for k, t := range alt {
			d, err := termDocs(s, t)
			if err != nil {
				return nil, err
			}
			if k == 0 {
				and = d
			} else {
				and = intersect(and, d)
			}
			if len(and) == 0 {
				break
			}
		}
		docs = union(docs, and)
	}
	for _, group := range q.all {
		if len(docs) == 0 {
			return nil, nil
		}
		var any []int64
		for _, w := range group {
			d, err := termDocs(s, term{text: w})
			if err != nil {
				return nil, err
			}
			any = union(any, d)
		}
		docs = intersect(docs, any)
	}
	for _, t := range q.p.not {
		if len(docs) == 0 {
			return nil, nil
		}
		d, err := termDocs(s, t)
		if err != nil {
			return nil, err
		}
		docs = subtract(docs, d)
	}
	return docs, nil
}

// termWords are a term's words as the index keeps them: folded, cut to
// ftMaxTerm.
func termWords(t term) []string {
	var ws []string
	for _, w := range strings.FieldsFunc(t.text, func(r rune) bool { return !isTokenRune(r) }) {
		f := fold(w)
		if f == "" {
			continue
		}
		ws = append(ws, string(ftCut([]byte(f))))
	}
	return ws
}

// termDocs lists the documents of s that hold term t (a word, a prefix,
// a phrase), in increasing order.
func termDocs(s *segment, t term) ([]int64, error) {
	ws := termWords(t)
	if len(ws) == 0 {
		return nil, nil
	}
	if len(ws) == 1 {
		return wordDocs(s, ws[0], t.prefix)
	}
	lists := make([][]plist, len(ws))
	for j, w := range ws {
		var err error
		if lists[j], err = wordLists(s, w, t.prefix && j == len(ws)-1); err != nil {
			return nil, err
		}
		if len(lists[j]) == 0 {
			return nil, nil
		}
	}
	docs := docsOf(lists[0])
	for _, l := range lists[1:] {
		docs = intersect(docs, docsOf(l))
	}
	if len(docs) == 0 {
		return nil, nil
	}
	// A phrase: its words one after the other, somewhere in the text.
	out := docs[:0]
	places := make([][]int32, len(ws))
	for _, doc := range docs {
		for j, l := range lists {
			places[j] = placesOf(places[j][:0], l, doc)
		}
		if phraseAt(places) {
			out = append(out, doc)
		}
	}
	return out, nil
}

// wordTerms are the terms of s that are word w, or that w starts when
// prefix.
func wordTerms(s *segment, w string, prefix bool) ([]segTerm, error) {
	if !prefix {
		st, ok, err := s.lookup(w)
		if err != nil || !ok {
			return nil, err
		}
		return []segTerm{st}, nil
	}
	var terms []segTerm
	err := s.prefixed(w, func(st segTerm) { terms = append(terms, st) })
	return terms, err
}

// wordDocs are the documents of s that hold word w, or a word w starts
// when prefix, in increasing order.
func wordDocs(s *segment, w string, prefix bool) ([]int64, error) {
	terms, err := wordTerms(s, w, prefix)
	if err != nil {
		return nil, err
	}
	var docs []int64
	for _, st := range terms {
		d, err := s.docs(st)
		if err != nil {
			return nil, err
		}
		docs = union(docs, d)
	}
	return docs, nil
}

// wordLists are the postings of word w in s, or of every word w starts
// when prefix.
func wordLists(s *segment, w string, prefix bool) ([]plist, error) {
	terms, err := wordTerms(s, w, prefix)
	if err != nil {
		return nil, err
	}
	lists := make([]plist, 0, len(terms))
	for _, st := range terms {
		p, err := s.postings(st)
		if err != nil {
			return nil, err
		}
		lists = append(lists, p)
	}
	return lists, nil
}

// docsOf is the documents of any of lists, in increasing order.
func docsOf(lists []plist) []int64 {
	if len(lists) == 1 {
		return lists[0].docs
	}
	var docs []int64
	for _, l := range lists {
		docs = union(docs, l.docs)
	}
	return docs
}

// placesOf appends to dst the places of doc in any of lists, in order.
func placesOf(dst []int32, lists []plist, doc int64) []int32 {
	n := len(dst)
	for k := range lists {
		l := &lists[k]
		if i, ok := slices.BinarySearch(l.docs, doc); ok {
			dst = l.places(dst, i)
		}
	}
	if len(lists) > 1 {
		slices.Sort(dst[n:])
	}
	return dst
}

// phraseAt reports whether some place p has word j of a phrase at p+j for
// every j (places[j] in increasing order).
func phraseAt(places [][]int32) bool {
	for _, p := range places[0] {
		all := true
		for j := 1; j < len(places); j++ {
			want := p + int32(j)
			k := sort.Search(len(places[j]), func(i int) bool { return places[j][i] >= want })
			if k == len(places[j]) || places[j][k] != want {
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

// intersect is the documents in both a and b (each in increasing order).
func intersect(a, b []int64) []int64 {
	var out []int64
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// union is the documents in a or b.
func union(a, b []int64) []int64 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// subtract is the documents of a not in b.
func subtract(a, b []int64) []int64 {
	var out []int64
	j := 0
	for _, d := range a {
		for j < len(b) && b[j] < d {
			j++
		}
		if j < len(b) && b[j] == d {
			continue
		}
		out = append(out, d)
	}
	return out
}
