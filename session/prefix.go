package session

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// MinPrefix is how long a reference must be to name an id by its start:
// shorter ones would name an id by chance (a run id's year, "ses_").
const MinPrefix = 4

// Match returns the items a reference names, the way git reads an
// abbreviated object name: those whose id is ref, when there are any (a
// full id always wins over a prefix), else, when ref is at least
// MinPrefix bytes long, those whose id starts with ref. One item is a
// match; none or several are for the caller to report (ErrNotFound,
// ErrAmbiguous). It looks at ids only, so items can come from a listing
// that opened nothing.
func Match[T any](ref string, items []T, id func(T) string) []T {
	var exact, prefixed []T
	for _, it := range items {
		switch s := id(it); {
		case s == ref:
			exact = append(exact, it)
		case len(ref) >= MinPrefix && strings.HasPrefix(s, ref):
			prefixed = append(prefixed, it)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return prefixed
}

// Abbrev returns, for each of ids, its shortest prefix of at least min
// bytes that Match reads back as that id among ids: one no other id
// starts with, else the whole id (when another id starts with it, or
// equals it). A prefix ends on a character boundary. ids is not changed.
func Abbrev(ids []string, min int) []string {
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
	out := make([]string, len(ids))
	for k, i := range order {
		id := ids[i]
		// Of the ids sorted, the ones sharing most of id's start are
		// its neighbours.
		need := 0
		if k > 0 {
			need = commonPrefix(id, ids[order[k-1]])
		}
		if k+1 < len(order) {
			need = max(need, commonPrefix(id, ids[order[k+1]]))
		}
		n := max(need+1, min, MinPrefix)
		if n >= len(id) {
			out[i] = id
			continue
		}
		for n < len(id) && !utf8.RuneStart(id[n]) {
			n++
		}
		out[i] = id[:n]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
