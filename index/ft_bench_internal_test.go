package index

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/session"
)

// ftTexts are the texts the index holds of a corpus's entries, each with
// its filters' words as FTS5 is given them: an index is built of the
// corpus STEAD_BENCH_CORPUS names, else of a 300-session one generated
// (150 MB), and its texts read back.
var ftTexts = sync.OnceValues(func() ([]string, error) {
	dir := os.Getenv("STEAD_BENCH_CORPUS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "stead-index-bench-corpus-5")
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
			mix := map[string]float64{}
			for _, cli := range corpusgen.CLIs {
				mix[cli] = 1
			}
			if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 1, Files: 300, TotalBytes: 150 << 20, Mix: mix}); err != nil {
				return nil, err
			}
		}
	}
	vars := map[string]string{}
	for _, kv := range corpusgen.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	tmp, err := os.MkdirTemp("", "stead-ft-bench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(tmp, "index.db"), nil)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := ix.Refresh(ctx, session.Env{Home: filepath.Join(dir, "home"), Vars: vars}, nil); err != nil {
		return nil, err
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT s.cli, e.role, e.tool, e.text FROM entries e JOIN sessions s ON s.id = e.session ORDER BY e.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	u := unpacker{dicts: ix.dicts}
	var texts []string
	for rows.Next() {
		var cli, role, tool string
		var packed []byte
		if err := rows.Scan(&cli, &role, &tool, &packed); err != nil {
			return nil, err
		}
		text, err := u.unpack(packed)
		if err != nil {
			return nil, err
		}
		texts = append(texts, text+"\n"+tags(cli, role, tool))
	}
	return texts, rows.Err()
})

func benchTexts(b *testing.B) ([]string, int64) {
	b.Helper()
	texts, err := ftTexts()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, t := range texts {
		n += int64(len(t))
	}
	return texts, n
}

// ftBatches splits texts into batches of about 16 MB (the refresh's
// transactions), each a range of document ids from 1.
func ftBatches(texts []string) [][2]int {
	var batches [][2]int
	from, size := 0, 0
	for i, t := range texts {
		size += len(t)
		if size >= batchText || i == len(texts)-1 {
			batches = append(batches, [2]int{from, i + 1})
			from, size = i+1, 0
		}
	}
	return batches
}

// BenchmarkFTBuild gathers the words of the corpus's entries into
// segments, a 16 MB batch to a segment, on every core (GOMAXPROCS), and
// writes them out: the throughput is of text indexed. Compare
// BenchmarkFTS5Build, the same texts through FTS5's one writer.
func BenchmarkFTBuild(b *testing.B) {
	texts, size := benchTexts(b)
	batches := ftBatches(texts)
	b.SetBytes(size)
	var segBytes int64
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		next := make(chan int)
		errs := make(chan error, runtime.GOMAXPROCS(0))
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for k := range next {
					fb := newFTBuilder()
					for i := batches[k][0]; i < batches[k][1]; i++ {
						if err := fb.add(int64(i+1), texts[i]); err != nil {
							errs <- err
							return
						}
					}
					if err := fb.writeFile(filepath.Join(dir, fmt.Sprintf("%06d.seg", k))); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		for k := range batches {
			next <- k
		}
		close(next)
		wg.Wait()
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		b.StopTimer()
		segBytes = dirSize(dir)
		b.StartTimer()
	}
	b.ReportMetric(float64(segBytes)/float64(size)*100, "segments-%-of-text")
	b.ReportMetric(float64(len(batches)), "segments")
}

// BenchmarkFTMerge merges the corpus's segments (BenchmarkFTBuild's) into
// one: the throughput is of text indexed.
func BenchmarkFTMerge(b *testing.B) {
	texts, size := benchTexts(b)
	batches := ftBatches(texts)
	dir := b.TempDir()
	var segs []*segment
	for k, r := range batches {
		fb := newFTBuilder()
		for i := r[0]; i < r[1]; i++ {
			if err := fb.add(int64(i+1), texts[i]); err != nil {
				b.Fatal(err)
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("%06d.seg", k))
		if err := fb.writeFile(path); err != nil {
			b.Fatal(err)
		}
		s, f, err := openSegment(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		segs = append(segs, s)
	}
	b.SetBytes(size)
	for b.Loop() {
		scratch, err := os.CreateTemp(dir, "dict")
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, "merged.seg")
		if err := writeSegFile(path, func(w io.Writer) error { return mergeSegs(w, scratch, segs, nil) }); err != nil {
			b.Fatal(err)
		}
		scratch.Close()
		os.Remove(scratch.Name())
	}
}

// BenchmarkFTS5Build writes the same texts as BenchmarkFTBuild into a
// contentless FTS5 table made and tuned as the index's was, 16 MB to a
// transaction, on one connection (SQLite's one writer).
func BenchmarkFTS5Build(b *testing.B) {
	texts, size := benchTexts(b)
	batches := ftBatches(texts)
	b.SetBytes(size)
	for b.Loop() {
		b.StopTimer()
		db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "fts.db"))
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
			CREATE VIRTUAL TABLE f USING fts5 (text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')`); err != nil {
			b.Fatal(err)
		}
		// As stead tuned FTS5 when its index was FTS5's: segments
		// written at 8 MB of words, merged 16 at a time.
		for _, c := range []string{`INSERT INTO f (f, rank) VALUES ('hashsize', 8388608)`, `INSERT INTO f (f, rank) VALUES ('automerge', 16)`} {
			if _, err := db.Exec(c); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for _, r := range batches {
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			stmt, err := tx.Prepare(`INSERT INTO f (rowid, text) VALUES (?, ?)`)
			if err != nil {
				b.Fatal(err)
			}
			for i := r[0]; i < r[1]; i++ {
				if _, err := stmt.Exec(int64(i+1), texts[i]); err != nil {
					b.Fatal(err)
				}
			}
			stmt.Close()
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkPack packs the corpus's entries' texts as a refresh does,
// with a dictionary trained on them: packed-% is what the packed texts
// keep of them.
func BenchmarkPack(b *testing.B) {
	texts, size := benchTexts(b)
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(b.TempDir(), "index.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var samples [][]byte
	for i := 0; i < len(texts) && len(samples) < 4000; i += max(1, len(texts)/4000) {
		samples = append(samples, []byte(texts[i]))
	}
	if err := ix.dicts.train(ctx, samples); err != nil {
		b.Fatal(err)
	}
	pk := ix.dicts.packer()
	b.SetBytes(size)
	var packed int64
	for b.Loop() {
		packed = 0
		for _, t := range texts {
			packed += int64(len(pk.pack(t)))
		}
	}
	b.ReportMetric(100*float64(packed)/float64(size), "packed-%")
}
