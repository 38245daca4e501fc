package index

import (
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// splitCount is what the counter counted before countWords: the text
// split, and each pattern matched at each word.
func splitCount(text string, ps []pattern) (int, []int32) {
	var ws words
	ws.split(text)
	tf := make([]int32, len(ps))
	for at := range ws.len() {
		for k := range ps {
			if ps[k].matchAt(&ws, at) {
				tf[k]++
			}
		}
	}
	return ws.len(), tf
}

// checkCount fails t when countWords and splitting count text and the
// query's patterns differently; it reports whether countWords counted.
func checkCount(t *testing.T, text, query string) bool {
	t.Helper()
	_, terms, err := parseQuery(query)
	if err != nil {
		return false
	}
	ps := patterns(terms)
	wantN, wantTF := splitCount(text, ps)
	tf := make([]int32, len(ps))
	n, ok := countWords(text, ps, tf)
	if !ok {
		if slices.ContainsFunc(tf, func(f int32) bool { return f != 0 }) {
			t.Errorf("countWords(%q, %q) gave up but counted %v", text, query, tf)
		}
		return false
	}
	if n != wantN || !slices.Equal(tf, wantTF) {
		t.Errorf("countWords(%q, %q) = %d words, %v; splitting: %d, %v", text, query, n, tf, wantN, wantTF)
	}
	return true
}

// TestCountWords: the counter's count agrees with splitting, and leaves
// what it cannot count (a long phrase) to it.
func TestCountWords(t *testing.T) {
	for _, tc := range []struct {
		text, query string
		counts      bool
	}{
		{"Error: error; ERROR-errors", "error", true},
		{"error", "errors", true},
		{"the tests, the Tests and the tested", `"the tests"`, true},
		{"a a b a b b", `"a b"`, true},
		{"migrate migration Migrated mig", "migrat*", true},
		{"deploy the build then build", `deploy build "the build"`, true},
		{"x_y x-y x.y 4ever", "x y 4ever", true},
		{"", "error", true},
		{"   ,;   ", "error", true},
		{"caf\u00e9 error \u2192 Caf\u00c9s", "cafe caf*", true},
		{"r\u00e9sum\u00e9 \u2713 resume R\u00c9SUM\u00c9", `"resume resume"`, true},
		{"\u65e5\u672c\u8a9e error", "\u65e5\u672c\u8a9e", true},
		{"e\u0301cole ecole", "ecole", true},
		// One word: ASCII first, then beyond it (countWord).
		{"error\u2014error \u2019error\u2019 errors", "error", true},
		{"error errorÉ Error éerror", "error", true},
		{"ERRORS err Err\u00f3r errs", "err*", true},
		{"\u00e9 error", "error", true},
		{"error", "\u00e9rror", true},
		{"caf\u00e9", "cafe", true},
		{"one two three four five six seven eight nine", `"one two three four five six seven eight nine"`, false},
		{"one two three four five six seven eight", `"one two three four five six seven eight"`, true},
	} {
		if got := checkCount(t, tc.text, tc.query); got != tc.counts {
			t.Errorf("countWords(%q, %q) counted: %v, want %v", tc.text, tc.query, got, tc.counts)
		}
	}
	// Random texts of few distinct words, so that phrases recur.
	r := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "B", "ab", "abc", "Abd", "b", "the", "The", "tests", "9", "x9", "\u00e1b", "A\u0301", "\u00c0B\u00e7"}
	seps := []string{" ", ", ", "\n", "-", "_", "/", "...", "'", " \u2192 ", "\u2713", "\u00a0"}
	queries := []string{"a", "ab*", `"a b"`, `"the tests"`, `"a a"`, "b OR abc", `"ab abd"*`, "x9", `"a b ab"`}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(vocab[r.IntN(len(vocab))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		for _, q := range queries {
			checkCount(t, b.String(), q)
		}
	}
}

// FuzzCountWords: whatever the text and query, countWords counts as
// splitting does, or leaves the text to it.
func FuzzCountWords(f *testing.F) {
	f.Add("the tests, the Tests", `"the tests"`)
	f.Add("Error errors ERROR", "error*")
	f.Add("a a b a b", `"a b" a`)
	f.Add("error\u2014Error caf\u00e9 errors", "error")
	f.Add("ERRORS errÉ err", "err*")
	f.Fuzz(func(t *testing.T, text, query string) {
		checkCount(t, text, query)
	})
}

// BenchmarkCount: counting a 4 KB candidate (rankText) for a query of
// one word, by splitting it and by countWords.
func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("exit status 1: error: cannot find module providing package example.com/foo; ", 60)[:rankText]
	_, terms, err := parseQuery("error")
	if err != nil {
		b.Fatal(err)
	}
	ps := patterns(terms)
	b.Run("split", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		var ws words
		tf := make([]int32, len(ps))
		for b.Loop() {
			ws.split(text)
			for at := range ws.len() {
				for k := range ps {
					if ps[k].matchAt(&ws, at) {
						tf[k]++
					}
				}
			}
		}
	})
	b.Run("countWords", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		tf := make([]int32, len(ps))
		for b.Loop() {
			countWords(text, ps, tf)
		}
	})
	// A tool's output with a mark beyond ASCII near its start.
	wide := "✓ " + text[:rankText-4]
	b.Run("countWords/wide", func(b *testing.B) {
		b.SetBytes(int64(len(wide)))
		tf := make([]int32, len(ps))
		for b.Loop() {
			countWords(wide, ps, tf)
		}
	})
}

// TestFoldLikeFTS5: words are split and folded as FTS5 splits and folds
// them, cases of folding beyond lower-casing included (final sigma, the
// long s, the micro sign, Greek symbol forms; the dotless i kept), so
// that a match FTS5 finds is counted and marked, and stead's own index
// finds what FTS5 found. (FTS5's Unicode tables are older than Go's:
// marks and letters added since, and code points unassigned then, are
// where the two still differ.)
func TestFoldLikeFTS5(t *testing.T) {
	text := "ΣΊΣΥΦΟΣ σίσυφος ſtop µs ϐ ϑ ϕ ϖ ϰ ϱ ϵ ẞ ß ı İ \u212A ǅ Ǆ ǆ café cafe\u0301 Ærø STRASSE naïve ﬁ ① Ⅻ x²"
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, instance)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO f (rowid, text) VALUES (1, ?)`, text); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT term FROM v ORDER BY offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	var ws words
	ws.split(text)
	var got []string
	for i := range ws.len() {
		got = append(got, string(ws.at(i)))
	}
	if !slices.Equal(got, want) {
		t.Errorf("split and folded:\n got %q\nFTS5 %q", got, want)
	}
}
