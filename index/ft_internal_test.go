package index

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// ftVocabulary is what the texts of TestSegmentsMatchLikeFTS5 are made
// of: words sharing prefixes, cases, accents (composed and combining),
// digits, scripts beyond Latin, the filters' tags, and what separates
// words (punctuation, symbols, emoji).
var ftVocabulary = []string{
	"test", "tests", "testing", "Tester", "TEST", "the", "then", "them", "error", "Errors", "err",
	"café", "Cafe", "CAFÉ", "cafe\u0301", "naïve", "naive", "Ærø", "straße", "STRASSE",
	"v2", "2024", "x86_64", "42", "日本語", "日本", "Привет", "привет", "ΣΊΣΥΦΟΣ", "σίσυφος",
	"rm", "-rf", "/tmp/x", "go.mod", "a", "i", "steadxclicodex", "steadxroleuser", "steadxtoolbash",
}

var ftSeparators = []string{" ", " ", " ", "\n", ", ", ". ", "-", "/", "_", " ★ ", " — ", "\t", "'", "\"", "(", ")"}

func ftText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(40); n >= 0; n-- {
		b.WriteString(ftVocabulary[r.IntN(len(ftVocabulary))])
		b.WriteString(ftSeparators[r.IntN(len(ftSeparators))])
	}
	return b.String()
}

// ftQueryText is a random query in stead's syntax: words, phrases taken
// from a text, prefixes, OR and exclusions.
func ftQueryText(r *rand.Rand, texts []string) string {
	term := func() string {
		switch r.IntN(5) {
		case 0: // a phrase from a text
			t := texts[r.IntN(len(texts))]
			var ws []string
			for w, ok := nextWord(t, 0); ok; w, ok = nextWord(t, w.end) {
				ws = append(ws, t[w.start:w.end])
			}
			if len(ws) < 2 {
				return "test"
			}
			i := r.IntN(len(ws) - 1)
			n := 2 + r.IntN(min(3, len(ws)-i-1))
			if i+n > len(ws) {
				n = len(ws) - i
			}
			p := `"` + strings.Join(ws[i:i+n], " ") + `"`
			if r.IntN(4) == 0 {
				p += "*"
			}
			return p
		case 1: // a prefix
			w := []rune(ftVocabulary[r.IntN(len(ftVocabulary))])
			return string(w[:1+r.IntN(len(w))]) + "*"
		default:
			w := ftVocabulary[r.IntN(len(ftVocabulary))]
			if !hasWord(w) || strings.HasPrefix(w, "-") {
				return "test"
			}
			return w
		}
	}
	var q []string
	for n := 1 + r.IntN(3); n > 0; n-- {
		q = append(q, term())
	}
	if r.IntN(3) == 0 {
		q = append(q, "OR", term())
	}
	if r.IntN(3) == 0 {
		t := term()
		q = append(q, "-"+t)
	}
	return strings.Join(q, " ")
}

// TestSegmentsMatchLikeFTS5 holds stead's own full-text index to FTS5's
// answers: the same texts in an FTS5 table (as the index makes it) and in
// segments (three builders' and their merge), the same random queries,
// the same documents found.
func TestSegmentsMatchLikeFTS5(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5 (text, content = '', tokenize = 'unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	const n = 3000
	builders := []*ftBuilder{newFTBuilder(), newFTBuilder(), newFTBuilder()}
	var texts []string
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= n; id++ {
		// A text, and words after it as the index gives an entry's
		// tags (a second text, FTS5 had them after a line).
		text, more := ftText(r), tags([]string{"codex", "claude"}[r.IntN(2)], []string{"user", "tool_result"}[r.IntN(2)], []string{"", "bash"}[r.IntN(2)])
		texts = append(texts, text+"\n"+more)
		if _, err := tx.Exec(`INSERT INTO f (rowid, text) VALUES (?, ?)`, id, text+"\n"+more); err != nil {
			t.Fatal(err)
		}
		// Builders take turns (their documents interleave) and the
		// third takes the last ones (a range of its own).
		b := builders[id%2]
		if id > n*2/3 {
			b = builders[2]
		}
		if err := b.add(id, text, more); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var segs []*segment
	for i, b := range builders {
		path := filepath.Join(dir, fmt.Sprintf("%d.seg", i))
		if err := b.writeFile(path); err != nil {
			t.Fatal(err)
		}
		s, f, err := openSegment(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		segs = append(segs, s)
	}
	merged := mergedSegment(t, dir, segs, nil)
	// A merge that drops every tenth document finds the rest.
	dropped := mergedSegment(t, dir, segs, func(doc int64) bool { return doc%10 != 0 })

	ftsDocs := func(match string) []int64 {
		rows, err := db.Query(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY rowid DESC`, match)
		if err != nil {
			t.Fatalf("%s: %v", match, err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	found := 0
	for range 600 {
		qt := ftQueryText(r, texts)
		p, err := parse(qt)
		if err != nil {
			continue
		}
		q := &ftQuery{p: p}
		if r.IntN(4) == 0 {
			q.all = [][]string{{"steadxclicodex", "steadxroleuser"}, {"steadxclicodex", "steadxroletoolresult"}}[r.IntN(2):][:1]
			if r.IntN(2) == 0 {
				q.all = append(q.all, []string{"steadxtoolbash"})
			}
		}
		match := p.fts()
		if len(q.all) > 0 {
			var and []string
			for _, g := range q.all {
				and = append(and, `("`+strings.Join(g, `" OR "`)+`")`)
			}
			match = "(" + match + ") AND " + strings.Join(and, " AND ")
		}
		want := ftsDocs(match)
		found += len(want)
		for _, c := range []struct {
			name string
			ss   []*segment
		}{{"three segments", segs}, {"merged", []*segment{merged}}} {
			name, ss := c.name, c.ss
			got, err := matchSegs(ss, q, 0, n+1)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				for _, d := range got {
					if !slices.Contains(want, d) {
						t.Logf("only found here: %d %q", d, texts[d-1])
						break
					}
				}
				for _, d := range want {
					if !slices.Contains(got, d) {
						t.Logf("only found by FTS5: %d %q", d, texts[d-1])
						break
					}
				}
				t.Fatalf("%s: query %q (FTS5: %s): found %d documents, FTS5 %d\n got %v\nwant %v", name, qt, match, len(got), len(want), head(got), head(want))
			}
		}
		got, err := matchSegs([]*segment{dropped}, q, 0, n+1)
		if err != nil {
			t.Fatal(err)
		}
		want = slices.DeleteFunc(want, func(d int64) bool { return d%10 == 0 })
		if !slices.Equal(got, want) {
			t.Fatalf("merged without every tenth: query %q: found %d documents, want %d", qt, len(got), len(want))
		}
		// The newest few, from a bound.
		from := int64(r.IntN(n))
		got, err = matchSegs(segs, q, from, 7)
		if err != nil {
			t.Fatal(err)
		}
		want = slices.DeleteFunc(ftsDocs(match), func(d int64) bool { return d < from })
		want = want[:min(7, len(want))]
		if !slices.Equal(got, want) {
			t.Fatalf("query %q from %d, 7 at most: got %v, want %v", qt, from, got, want)
		}
	}
	if found < 10000 {
		t.Fatalf("the queries found %d documents in all: too few to tell the indexes apart", found)
	}
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 20)] }

// mergedSegment merges segs into a segment file in dir and opens it.
func mergedSegment(t *testing.T, dir string, segs []*segment, keep func(int64) bool) *segment {
	t.Helper()
	scratch, err := os.CreateTemp(dir, "dict")
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	path := filepath.Join(dir, fmt.Sprintf("merged-%t.seg", keep == nil))
	err = writeSegFile(path, func(w io.Writer) error { return mergeSegs(w, scratch, segs, keep) })
	if err != nil {
		t.Fatal(err)
	}
	s, f, err := openSegment(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return s
}

// checkSegments checks the index's segments: the files its rows name are
// all there, whole, and no other is; each holds the entries its row says.
func checkSegments(ctx context.Context, ix *Index) error {
	rows, err := ix.segmentRows(ctx)
	if err != nil {
		return err
	}
	named := map[string]bool{}
	for _, r := range rows {
		named[r.file] = true
		s, f, err := openSegment(filepath.Join(ix.ftDir, r.file))
		if err != nil {
			return err
		}
		if s.first != r.first || s.last != r.last {
			f.Close()
			return fmt.Errorf("segment %s holds entries %d to %d; its row says %d to %d", r.file, s.first, s.last, r.first, r.last)
		}
		n := 0
		err = s.terms("", func(st segTerm) bool {
			if _, err := s.postings(st); err != nil {
				return false
			}
			n++
			return true
		})
		f.Close()
		if err != nil {
			return err
		}
	}
	files, err := filepath.Glob(filepath.Join(ix.ftDir, "*"+segExt))
	if err != nil {
		return err
	}
	for _, f := range files {
		if !named[filepath.Base(f)] {
			return fmt.Errorf("segment file %s is no row's", filepath.Base(f))
		}
	}
	if len(files) != len(rows) {
		return fmt.Errorf("%d segment files for %d rows", len(files), len(rows))
	}
	return nil
}

// TestDamagedSegment: a search of an index whose segment file was
// damaged makes the full-text index again from the entries' text, with a
// warning, and answers as the whole index would; it does not answer as
// if the damaged part held nothing.
func TestDamagedSegment(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var logged strings.Builder
	ix, err := Open(ctx, filepath.Join(dir, "index.db"), slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	b := &batch{ix: ix}
	tx, err := b.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, cli, sid, path, size, mtime, inode, host, project, title, start, end, entries,
		reftitle, messages, turns, parent, warnings, skipped, sumsize, summary) VALUES (1, 'claude', 's', '/s', 0, 0, 0, '', '', '', 0, 0, 1, '', 0, 0, '', '', 0, 0, '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO entries (session, entry, time, role, tool, model, text) VALUES (1, 'e1', 0, 'user', '', '', ?)`, packText("a capybara rested")); err != nil {
		t.Fatal(err)
	}
	b.gather.add(ftDoc{id: 1, text: "a capybara rested", cli: "claude", role: "user"})
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := ix.segmentRows(ctx)
	if err != nil || len(rows) != 1 {
		t.Fatalf("segments: %v, %v; want one", rows, err)
	}
	path := filepath.Join(ix.ftDir, rows[0].file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(ctx, Query{Text: "capybara"})
	if err != nil || len(hits) != 1 || hits[0].Entry != "e1" {
		t.Fatalf("searching a damaged index: %+v, %v; want the entry found", hits, err)
	}
	if !strings.Contains(logged.String(), "damaged") {
		t.Errorf("no warning of the damage; the log: %s", logged.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the damaged segment file is left: %v", err)
	}
	if err := checkSegments(ctx, ix); err != nil {
		t.Error(err)
	}
}

// TestMergeRun: merges take neighbours, the smallest first, and leave the
// largest alone.
func TestMergeRun(t *testing.T) {
	rows := func(sizes ...int64) []segRow {
		var rs []segRow
		for i, s := range sizes {
			rs = append(rs, segRow{id: int64(i), bytes: s})
		}
		return rs
	}
	ids := func(rs []segRow) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.id)
		}
		return out
	}
	const mb = 1 << 20
	for _, c := range []struct {
		name  string
		sizes []int64
		want  []int64
	}{
		{"too few", []int64{mb, mb, mb, mb, mb, mb, mb}, nil},
		{"eight small", []int64{5 * mb, 5 * mb, 5 * mb, 5 * mb, 5 * mb, 5 * mb, 5 * mb, 5 * mb}, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"a largest one between", []int64{mb, mb, mb, mb, 200 * mb, mb, mb, mb, mb, mb}, nil},
		{"a larger one between", []int64{mb, mb, mb, mb, 100 * mb, mb, mb, mb, mb, mb}, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"the smallest first", []int64{9 * mb, 9 * mb, 9 * mb, 9 * mb, 9 * mb, 9 * mb, 9 * mb, 9 * mb, 1, 1, 1, 1, 1, 1, 1, 1}, []int64{8, 9, 10, 11, 12, 13, 14, 15}},
		{"small ones among larger", []int64{9 * mb, 1, 9 * mb, 9 * mb, 9 * mb, 9 * mb, 9 * mb, 9 * mb}, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"the largest left", []int64{200 * mb, 200 * mb, 200 * mb, 200 * mb, 200 * mb, 200 * mb, 200 * mb, 200 * mb}, nil},
	} {
		if got := ids(mergeRun(rows(c.sizes...))); !slices.Equal(got, c.want) {
			t.Errorf("%s: merged %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMergesBesideTheWriter: segments written one transaction after the
// other are merged beside the writer and put in place by its next
// transaction; a search finds every entry, no file is left over, and a
// merge whose segments another merge took first leaves nothing behind.
func TestMergesBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	b := &batch{ix: ix}
	const n = 40
	for k := 1; k <= n; k++ {
		tx, err := b.begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO entries (session, entry, time, role, tool, model, text) VALUES (1, ?, 0, 'user', '', '', x'')`, fmt.Sprint(k))
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		b.gather.add(ftDoc{id: id, text: fmt.Sprintf("capybara number%d", k), cli: "claude", role: "user"})
		if err := b.commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.merged(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := ix.segmentRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) >= mergeAt {
		t.Errorf("%d segments left after the merges, want fewer than %d", len(rows), mergeAt)
	}
	if err := checkSegments(ctx, ix); err != nil {
		t.Fatal(err)
	}
	segs, closeSegs, err := ix.openSegments(ctx, ix.db)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSegs()
	p, _ := parse("capybara")
	if got, err := matchSegs(segs, &ftQuery{p: p}, 0, 1000); err != nil || len(got) != n {
		t.Errorf("capybara: %d entries, %v; want %d", len(got), err, n)
	}
	for k := 1; k <= n; k++ {
		p, _ := parse(fmt.Sprintf("number%d", k))
		if got, err := matchSegs(segs, &ftQuery{p: p}, 0, 10); err != nil || len(got) != 1 {
			t.Errorf("number%d: %v, %v; want one entry", k, got, err)
		}
	}

	// Two merges of the same segments: the second finds them gone.
	if len(rows) < 2 {
		t.Fatalf("%d segments: too few to merge", len(rows))
	}
	first, err := ix.mergeFile(ctx, rows[:2])
	if err != nil {
		t.Fatal(err)
	}
	second, err := ix.mergeFile(ctx, rows[:2])
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []*segMerge{first, second} {
		tx, err := ix.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := m.swapIn(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (i == 0) {
			t.Errorf("merge %d put in place: %v", i+1, ok)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		m.settle(ok)
	}
	if err := checkSegments(ctx, ix); err != nil {
		t.Fatal(err)
	}
}

// TestTwoWritersWait: a refresh's transaction that meets another's (two
// processes, or a run's feed beside a watcher) waits for it to end and
// then writes, instead of failing with SQLITE_BUSY_SNAPSHOT ("database is
// locked (517)") because it read before the other committed.
func TestTwoWritersWait(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	ix1, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix1.Close()
	ix2, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	doc := func(word string) *indexed {
		return &indexed{rows: []row{{entry: "e1", role: "user", text: word, packed: packText(word)}}}
	}
	b1 := &batch{ix: ix1}
	if _, err := b1.write(ctx, 0, session.Ref{CLI: "claude", ID: "one", Path: "/one"}, fingerprint{}, "", doc("capybara"), ""); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		b2 := &batch{ix: ix2}
		defer b2.rollback()
		if _, err := b2.write(ctx, 0, session.Ref{CLI: "claude", ID: "two", Path: "/two"}, fingerprint{}, "", doc("fossa"), ""); err != nil {
			errc <- err
			return
		}
		errc <- b2.commit()
	}()
	time.Sleep(300 * time.Millisecond)
	if err := b1.commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("the second writer: %v", err)
	}
	for _, w := range []string{"capybara", "fossa"} {
		if hits, err := ix1.Search(ctx, Query{Text: w}); err != nil || len(hits) != 1 {
			t.Errorf("%s: %d hits, %v; want 1", w, len(hits), err)
		}
	}
}

// TestDamagedSegmentMerged: a refresh whose merge meets a damaged segment
// makes the full-text index again from the entries' text, and every
// entry is found.
func TestDamagedSegmentMerged(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for k := 1; k <= mergeAt; k++ {
		// A session and its entry, and their segment, in a transaction
		// of their own (no merge runs beside it).
		tx, err := ix.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, cli, sid, path, size, mtime, inode, host, project, title, start, end, entries,
			reftitle, messages, turns, parent, warnings, skipped, sumsize, summary) VALUES (?, 'claude', ?, ?, 0, 0, 0, '', '', '', 0, 0, 1, '', 0, 0, '', '', 0, 0, '')`,
			k, fmt.Sprint(k), fmt.Sprint("/", k)); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("a capybara number%d", k)
		res, err := tx.ExecContext(ctx, `INSERT INTO entries (session, entry, time, role, tool, model, text) VALUES (?, 'e', 0, 'user', '', '', ?)`, k, packText(text))
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		fb := newFTBuilder()
		fb.add(id, text, tags("claude", "user", ""))
		if _, err := ix.addSegment(ctx, tx, fb); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := ix.segmentRows(ctx)
	if err != nil || len(rows) != mergeAt {
		t.Fatalf("%d segments, %v; want %d", len(rows), err, mergeAt)
	}
	path := filepath.Join(ix.ftDir, rows[3].file)
	if err := os.WriteFile(path, []byte("not a segment"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &batch{ix: ix, wrote: true}
	if err := b.merged(ctx); err != nil {
		t.Fatalf("the refresh's merges: %v", err)
	}
	if err := checkSegments(ctx, ix); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= mergeAt; k++ {
		hits, err := ix.Search(ctx, Query{Text: fmt.Sprintf("capybara number%d", k)})
		if err != nil || len(hits) != 1 {
			t.Errorf("number%d: %d hits, %v; want 1", k, len(hits), err)
		}
	}
}

// TestStraySegmentsRemoved: opening the index removes the segment files
// no row names and the half-written ones a killed process left, once
// they are old enough to be no transaction's still; it keeps the rest.
func TestStraySegmentsRemoved(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &batch{ix: ix}
	if _, err := b.write(ctx, 0, session.Ref{CLI: "claude", ID: "one", Path: "/one"}, fingerprint{}, "",
		&indexed{rows: []row{{entry: "e1", role: "user", text: "capybara", packed: packText("capybara")}}}, ""); err != nil {
		t.Fatal(err)
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	dir := segmentsDir(path)
	old := time.Now().Add(-2 * strayAge)
	for name, age := range map[string]time.Time{
		"0123456789abcdef01234567.seg": old, // no row's
		".seg-123":                     old, // half written
		".dict-456":                    old,
		"fedcba9876543210fedcba98.seg": time.Now(), // maybe a transaction's still
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
	}
	ix, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if len(left) != 2 || !slices.Contains(left, "fedcba9876543210fedcba98.seg") {
		t.Errorf("left in the segments' folder: %v; want the index's segment and the young stray", left)
	}
	if hits, err := ix.Search(ctx, Query{Text: "capybara"}); err != nil || len(hits) != 1 {
		t.Errorf("capybara: %d hits, %v; want 1", len(hits), err)
	}
}
