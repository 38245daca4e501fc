package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// tailCLIs are the CLIs whose session files are appended to.
var tailCLIs = []string{session.Claude, session.Codex, session.Gemini, session.Kimi}

// lineEnds are the offsets just past each line of data.
func lineEnds(data []byte) []int {
	var out []int
	for i, c := range data {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// grown reads the file at path through a tail as a CLI would have written
// it: its first cut bytes, then the rest appended.
func grown(t *testing.T, a adapters.Adapter, path string, data []byte, cut int) []row {
	t.Helper()
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	tl, err := newTail(a, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.close()
	if err := tl.advance(int64(cut)); err != nil {
		t.Fatalf("cut at %d: %v", cut, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[cut:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := tl.advance(int64(len(data))); err != nil {
		t.Fatalf("cut at %d, then the rest: %v", cut, err)
	}
	return tl.rows
}

// firstDiff says where two row lists first differ.
func firstDiff(got, want []row) string {
	for i := 0; i < min(len(got), len(want)); i++ {
		if !sameRows(got[i:i+1], want[i:i+1]) {
			return fmt.Sprintf("row %d: got %s %s %q, want %s %s %q", i, got[i].entry, got[i].role, safetext.CutBytes(got[i].text, 60),
				want[i].entry, want[i].role, safetext.CutBytes(want[i].text, 60))
		}
	}
	return fmt.Sprintf("%d rows, want %d", len(got), len(want))
}

// TestTailReadsWhatWasAppended: for every testdata session of the CLIs
// whose files grow, cut at every line, a tail that read the first part and
// then what was appended holds the rows a full read of the whole file
// gives, wherever the file was cut. (A session whose tail does not read
// what a full read gives, such as a Codex fork whose history is another
// file's, is never kept a tail of: readTail checks the same.)
func TestTailReadsWhatWasAppended(t *testing.T) {
	for _, cli := range tailCLIs {
		a, _ := adapters.Lookup(cli)
		cases, _ := filepath.Glob(filepath.Join("..", "adapters", cli, "testdata", "*.txtar"))
		tailable := 0
		for _, c := range cases {
			t.Run(cli+"/"+filepath.Base(c), func(t *testing.T) {
				env, ref := samples.Layout(t, a, c)
				data, err := os.ReadFile(ref.Path)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := read(env, a, ref, nil)
				if err != nil {
					t.Skipf("not readable whole: %v", err)
				}
				whole := grown(t, a, ref.Path, data, len(data))
				if !sameRows(whole, doc.rows) {
					t.Skipf("its decoder alone does not read what a full read does (%s): never kept a tail of", firstDiff(whole, doc.rows))
				}
				tailable++
				ends := lineEnds(data)
				step := max(1, len(ends)/40)
				for i := 0; i < len(ends); i += step {
					if got := grown(t, a, ref.Path, data, ends[i]); !sameRows(got, doc.rows) {
						t.Errorf("cut after line %d (byte %d): %s", i+1, ends[i], firstDiff(got, doc.rows))
					}
				}
				// The file appended to itself: every id repeated, named as
				// a full read names them.
				twice := append(bytes.Clone(data), data...)
				if err := os.WriteFile(ref.Path, twice, 0o644); err != nil {
					t.Fatal(err)
				}
				if doc2, err := read(env, a, ref, nil); err == nil {
					if got := grown(t, a, ref.Path, twice, len(data)); !sameRows(got, doc2.rows) {
						t.Errorf("appended to itself: %s", firstDiff(got, doc2.rows))
					}
				}
				// Cut inside a line: the CLI was writing it.
				if len(ends) > 1 {
					mid := ends[0] + (ends[1]-ends[0])/2
					if got := grown(t, a, ref.Path, data, mid); !sameRows(got, doc.rows) {
						t.Errorf("cut inside line 2 (byte %d): %s", mid, firstDiff(got, doc.rows))
					}
				}
			})
		}
		if tailable == 0 {
			t.Errorf("%s: no testdata session is read by its decoder alone as a full read reads it", cli)
		}
		t.Logf("%s: %d of %d testdata sessions kept a tail of", cli, tailable, len(cases))
	}
}

// indexRows is every entry the index holds, in order, as text.
func indexRows(t *testing.T, ix *Index) string {
	t.Helper()
	rows, err := ix.db.Query(`SELECT entry, time, role, tool, model, text FROM entries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	u := unpacker{dicts: ix.dicts}
	for rows.Next() {
		var entry, role, tool, model string
		var at int64
		var packed []byte
		if err := rows.Scan(&entry, &at, &role, &tool, &model, &packed); err != nil {
			t.Fatal(err)
		}
		text, err := u.unpack(packed)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %s %s %s %q\n", entry, at, role, tool, model, text)
	}
	return b.String()
}

// appendTo appends data to the file at path.
func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// TestRefreshReadsWhatWasAppended: a watcher's refresh reads a session
// file that was only appended to from where it left off, and the index
// holds what one built from the whole file holds; a file changed before
// its end is read whole.
func TestRefreshReadsWhatWasAppended(t *testing.T) {
	old := tailMin
	tailMin = 0
	t.Cleanup(func() { tailMin = old })
	ctx := context.Background()
	for _, cli := range tailCLIs {
		t.Run(cli, func(t *testing.T) {
			env, path := samples.GeneratedStore(t, cli, 256<<10)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ends := lineEnds(data)
			if len(ends) < 8 {
				t.Fatalf("a generated session of %d lines", len(ends))
			}
			cuts := []int{ends[len(ends)/4], ends[len(ends)/2], ends[3*len(ends)/4], len(data)}
			if err := os.WriteFile(path, data[:cuts[0]], 0o644); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			ix, err := Open(ctx, filepath.Join(home, "index.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			ix.tails = newTails()
			defer ix.tails.close()
			if res, err := ix.Refresh(ctx, env, nil); err != nil || res.Added != 1 {
				t.Fatalf("first refresh: %+v, %v", res, err)
			}
			built := func() string {
				fresh, err := Open(ctx, filepath.Join(t.TempDir(), "fresh.db"), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer fresh.Close()
				if _, err := fresh.Refresh(ctx, env, nil); err != nil {
					t.Fatal(err)
				}
				return indexRows(t, fresh)
			}
			for i, cut := range cuts[1:] {
				appendTo(t, path, data[cuts[i]:cut])
				res, err := ix.Refresh(ctx, env, nil)
				if err != nil {
					t.Fatal(err)
				}
				// The first append is read whole (and a tail kept); the
				// next ones through the tail.
				if want := min(i, 1); res.Updated != 1 || res.Appended != want {
					t.Errorf("append %d: %d updated, %d of them from what was appended; want 1, %d", i+1, res.Updated, res.Appended, want)
				}
				if got, want := indexRows(t, ix), built(); got != want {
					t.Fatalf("append %d: the index grown by appends differs from one built from the whole file", i+1)
				}
			}

			// A byte changed just before the end, and a line appended:
			// the file is read whole. (The tail checks the tailCheck
			// bytes before where it stopped: a file is taken to be
			// appended to, as the CLIs do, not rewritten further back.)
			changed := bytes.Clone(data)
			last := data[ends[len(ends)-2]:]
			at := len(data) - 2
			for changed[at] < 'a' || changed[at] > 'y' {
				at--
			}
			if at < len(data)-tailCheck {
				t.Fatalf("no letter in the last %d bytes", tailCheck)
			}
			changed[at]++
			changed = append(changed, last...)
			if err := os.WriteFile(path+".new", changed, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(changed, 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
			os.Remove(path + ".new")
			res, err := ix.Refresh(ctx, env, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Updated != 1 || res.Appended != 0 {
				t.Errorf("a file changed before its end: %d updated, %d from what was appended; want 1, 0", res.Updated, res.Appended)
			}
			if got, want := indexRows(t, ix), built(); got != want {
				t.Errorf("a file changed before its end: the index differs from one built from the whole file")
			}
		})
	}
}

// BenchmarkRefreshAppend measures a watcher's refresh after a CLI appended
// a record to a large session (a generated one of 32 MB): read whole
// ("whole", as with no watcher), or from what was appended ("appended",
// through the tail the watcher keeps). Each run appends one record (one
// of the session's own, of 200 B to 4 KB) and refreshes.
func BenchmarkRefreshAppend(b *testing.B) {
	for _, cli := range []string{session.Claude, session.Codex} {
		for _, mode := range []string{"whole", "appended"} {
			b.Run(cli+"/"+mode, func(b *testing.B) {
				env, path := samples.GeneratedStore(b, cli, 32<<20)
				data, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				var rec []byte
				start := 0
				for _, end := range lineEnds(data) {
					if n := end - start; n >= 200 && n <= 4<<10 {
						rec = data[start:end]
					}
					start = end
				}
				ctx := context.Background()
				ix, err := Open(ctx, filepath.Join(b.TempDir(), "index.db"), nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ix.Close()
				if mode == "appended" {
					ix.tails = newTails()
					defer ix.tails.close()
				}
				if _, err := ix.Refresh(ctx, env, nil); err != nil {
					b.Fatal(err)
				}
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				f.Write(rec)
				if _, err := ix.Refresh(ctx, env, nil); err != nil { // keeps the tail
					b.Fatal(err)
				}
				b.ResetTimer()
				appended := 0
				for range b.N {
					f.Write(rec)
					res, err := ix.Refresh(ctx, env, nil)
					if err != nil || res.Updated != 1 {
						b.Fatalf("%+v, %v", res, err)
					}
					appended += res.Appended
				}
				if mode == "appended" && appended != b.N {
					b.Fatalf("%d of %d refreshes read what was appended alone", appended, b.N)
				}
			})
		}
	}
}

// TestReadSafely: an adapter that panics on a session is that session's
// error, not the end of the process (the daemon keeping the index fresh
// also supervises runs).
func TestReadSafely(t *testing.T) {
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	a := adapters.Adapter{Name: "claude", Reader: &adapters.Reader{
		SummarizeFile: func(session.Ref, session.Detail) (session.Summary, error) { panic("a hostile file") },
	}}
	doc, _, err := ix.readSafely(session.Env{}, a, session.Ref{CLI: "claude", Path: "/x.jsonl"}, fingerprint{}, fingerprint{}, false)
	if doc != nil || err == nil || !strings.Contains(err.Error(), "a hostile file") || !strings.Contains(err.Error(), "/x.jsonl") {
		t.Errorf("got %v, %v; want an error naming the file and the panic", doc, err)
	}
}
