package opencode

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stead-dev/stead/session"
)

// The benchmarks run on data shaped like a real OpenCode store: per
// session two turns of five messages, fourteen parts in all (reasoning,
// texts, a bash call with 1.5 KB of output, a file read with 3 KB, steps),
// about 8 KB of rows.

// genSession returns the rows of session n as OpenCode writes them: the
// message infos and parts without their id fields, as the data columns
// hold them.
type genMessage struct {
	id    string
	data  map[string]any
	parts []genPart
}

type genPart struct {
	id   string
	data map[string]any
}

func genSession(n int) (id string, created int64, msgs []genMessage) {
	id = fmt.Sprintf("ses_bench%08dXXXXXXXXXXXXXXXX", n)[:30]
	created = 1795000000000 + int64(n)*60000
	t := created
	seq := 0
	next := func(prefix string) string {
		seq++
		return fmt.Sprintf("%s_%012x%04dBenchXXXXXXXXX", prefix, created, seq)[:30]
	}
	user := func(text string) genMessage {
		t += 1000
		return genMessage{id: next("msg"), data: map[string]any{"role": "user", "time": map[string]any{"created": t}, "agent": "build",
			"model": map[string]any{"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}, "summary": map[string]any{"diffs": []any{}}},
			parts: []genPart{{next("prt"), map[string]any{"type": "text", "text": text}}}}
	}
	tokens := func(i int) map[string]any {
		return map[string]any{"total": 0, "input": 1200 + i, "output": 80 + i, "reasoning": 10, "cache": map[string]any{"read": 9000, "write": 300}}
	}
	asst := func(parent string, i int, finish string, parts ...genPart) genMessage {
		t += 2000
		all := append([]genPart{{next("prt"), map[string]any{"type": "step-start", "snapshot": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}}}, parts...)
		all = append(all, genPart{next("prt"), map[string]any{"type": "step-finish", "reason": finish, "tokens": tokens(i), "cost": 0.004}})
		return genMessage{id: next("msg"), data: map[string]any{"parentID": parent, "role": "assistant", "mode": "build", "agent": "build",
			"path": map[string]any{"cwd": "/home/dev/project", "root": "/home/dev/project"}, "cost": 0.004, "tokens": tokens(i),
			"modelID": "claude-sonnet-4-5", "providerID": "anthropic", "time": map[string]any{"created": t, "completed": t + 1500}, "finish": finish}, parts: all}
	}
	tool := func(name string, input map[string]any, output string) genPart {
		return genPart{next("prt"), map[string]any{"type": "tool", "tool": name, "callID": next("toolu"), "state": map[string]any{
			"status": "completed", "input": input, "output": output, "title": name, "metadata": map[string]any{"truncated": false},
			"time": map[string]any{"start": t, "end": t + 300}}}}
	}
	text := func(s string) genPart {
		return genPart{next("prt"), map[string]any{"type": "text", "text": s, "time": map[string]any{"start": t, "end": t + 100}}}
	}
	u1 := user(fmt.Sprintf("Session %d: run the test suite and tell me which tests fail, then read the failing file.", n))
	a1 := asst(u1.id, 1, "tool-calls",
		genPart{next("prt"), map[string]any{"type": "reasoning", "text": strings.Repeat("I should run the tests first. ", 6), "time": map[string]any{"start": t, "end": t + 50}}},
		text("Running the tests."),
		tool("bash", map[string]any{"command": "go test ./...", "description": "Run the tests"}, strings.Repeat("ok  \tgithub.com/example/project/pkg\t0.012s\n", 36)))
	a2 := asst(u1.id, 2, "tool-calls", text("Reading the failing file."),
		tool("read", map[string]any{"filePath": "/home/dev/project/pkg/parse.go"}, strings.Repeat("func parse(s string) (int, error) { return strconv.Atoi(s) }\n", 50)))
	a3 := asst(u1.id, 3, "stop", text(strings.Repeat("All tests pass; parse.go converts strings with strconv.Atoi. ", 6)))
	u2 := user("Thanks. Summarise what you did.")
	a4 := asst(u2.id, 4, "stop", text("I ran the tests and read parse.go."))
	return id, created, []genMessage{u1, a1, a2, a3, u2, a4}
}

// benchDB writes n generated sessions into dir/opencode.db: the first
// ones checkpointed into the database file, the last few hundred in its
// -wal beside an -shm, as a store looks after OpenCode ran.
func benchDB(b *testing.B, dir string, n int) string {
	b.Helper()
	stage := b.TempDir()
	src := filepath.Join(stage, "opencode.db")
	db, err := sql.Open("sqlite", src)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", schema(b),
		`INSERT INTO project VALUES('global','/',NULL,NULL,NULL,NULL,NULL,1,1,NULL,'[]',NULL)`} {
		if _, err := db.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	inLog := min(300, n/10)
	insert := func(from, to int) {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		ses, _ := tx.Prepare(`INSERT INTO session (id, project_id, slug, directory, title, version, model, time_created, time_updated) VALUES (?, 'global', 'bench', '/home/dev/project', ?, '1.18.33', '{"id":"claude-sonnet-4-5","providerID":"anthropic"}', ?, ?)`)
		msg, _ := tx.Prepare(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`)
		prt, _ := tx.Prepare(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`)
		for i := from; i < to; i++ {
			id, created, msgs := genSession(i)
			if _, err := ses.Exec(id, fmt.Sprintf("Bench session %d", i), created, created+30000); err != nil {
				b.Fatal(err)
			}
			for _, m := range msgs {
				mt := m.data["time"].(map[string]any)["created"].(int64)
				data, _ := json.Marshal(m.data)
				if _, err := msg.Exec(m.id, id, mt, mt, string(data)); err != nil {
					b.Fatal(err)
				}
				for _, p := range m.parts {
					data, _ := json.Marshal(p.data)
					if _, err := prt.Exec(p.id, m.id, id, mt, mt, string(data)); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	insert(0, n-inLog)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	insert(n-inLog, n)
	os.MkdirAll(dir, 0o755)
	dst := filepath.Join(dir, "opencode.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		copyFile(b, src+suffix, dst+suffix)
	}
	return dst
}

// BenchmarkSessions10k is `stead session list` and `stead session stats`
// over a database of 10,000 sessions: Discover, then SummarizeFile for
// every session on one worker per core, as the catalog runs it. The
// database is generated once per run.
func BenchmarkSessions10k(b *testing.B) {
	const n = 10000
	data := b.TempDir()
	db := benchDB(b, filepath.Join(data, "opencode"), n)
	fi, _ := os.Stat(db)
	wi, _ := os.Stat(db + "-wal")
	b.Logf("database %.1f MB, log %.1f MB", float64(fi.Size())/1e6, float64(wi.Size())/1e6)
	env := envFor(b.TempDir(), data)
	for _, d := range []struct {
		name   string
		detail session.Detail
	}{{"list", session.DetailList}, {"stats", session.DetailFull}} {
		b.Run(d.name, func(b *testing.B) {
			var total int
			for b.Loop() {
				refs, warns := Discover(env)
				if len(refs) != n || len(warns) > 0 {
					b.Fatalf("discovered %d sessions, %v", len(refs), warns)
				}
				summarizeAll(b, refs, d.detail)
				total += len(refs)
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "sessions/s")
		})
	}
}

func summarizeAll(b *testing.B, refs []session.Ref, detail session.Detail) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(refs) {
					return
				}
				sum, err := SummarizeFile(refs[i], detail)
				if err != nil {
					failed.Store(err)
					return
				}
				if sum.Turns != 2 || sum.Messages != 6 {
					failed.Store(fmt.Errorf("%s: %d turns, %d messages", sum.ID, sum.Turns, sum.Messages))
				}
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
}

// exportCorpus returns an export document of generated sessions' messages,
// about size bytes.
func exportCorpus(b *testing.B, size int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"info":{"id":"ses_benchExport","slug":"bench","projectID":"global","directory":"/home/dev/project","title":"Bench export","version":"1.18.33","model":{"id":"claude-sonnet-4-5","providerID":"anthropic"},"time":{"created":1795000000000,"updated":1795000030000}},"messages":[`)
	first := true
	for i := 0; buf.Len() < size; i++ {
		sid, _, msgs := genSession(i)
		for _, m := range msgs {
			info := map[string]any{"id": m.id, "sessionID": sid}
			for k, v := range m.data {
				info[k] = v
			}
			var parts []map[string]any
			for _, p := range m.parts {
				o := map[string]any{"id": p.id, "sessionID": sid, "messageID": m.id}
				for k, v := range p.data {
					o[k] = v
				}
				parts = append(parts, o)
			}
			j, _ := json.Marshal(map[string]any{"info": info, "parts": parts})
			if !first {
				buf.WriteByte(',')
			}
			first = false
			buf.Write(j)
		}
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// BenchmarkReadExport decodes an 8 MB export into a universal session,
// native records included.
func BenchmarkReadExport(b *testing.B) {
	data := exportCorpus(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Read(bytes.NewReader(data))
		if err != nil || len(s.Warnings) > 0 {
			b.Fatal(err, s.Warnings)
		}
	}
}

// BenchmarkSummarizeExport scans the same export at both details.
func BenchmarkSummarizeExport(b *testing.B) {
	data := exportCorpus(b, 8<<20)
	for _, d := range []struct {
		name   string
		detail session.Detail
	}{{"stats", session.DetailFull}, {"list", session.DetailList}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Summarize(bytes.NewReader(data), d.detail); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadDB reads 1,000 sessions of a database whole, one after
// another, as `stead show` reads them: the rows through SQL, then the
// same decoder as an export's. Its bytes are those of the rows' data
// columns.
func BenchmarkReadDB(b *testing.B) {
	benchDBSessions(b, func(env session.Env, ref session.Ref) (*session.Session, error) {
		return readDB(ref.Path, ref.ID)
	})
}

// BenchmarkOpenSummarizedDB is BenchmarkReadDB as the search index reads
// a session: the conversation and its summary from one pass over the
// rows (OpenSummarized).
func BenchmarkOpenSummarizedDB(b *testing.B) {
	benchDBSessions(b, func(env session.Env, ref session.Ref) (*session.Session, error) {
		s, sum, err := OpenSummarized(env, ref, nil)
		if err == nil && sum.Messages == 0 {
			err = fmt.Errorf("session %s: a summary without messages", ref.ID)
		}
		return s, err
	})
}

// benchDBSessions reads with read each of 1,000 sessions of a database.
func benchDBSessions(b *testing.B, read func(session.Env, session.Ref) (*session.Session, error)) {
	const n = 1000
	data := b.TempDir()
	benchDB(b, filepath.Join(data, "opencode"), n)
	env := envFor(b.TempDir(), data)
	refs, warns := Discover(env)
	if len(refs) != n || len(warns) > 0 {
		b.Fatalf("discovered %d sessions, %v", len(refs), warns)
	}
	var size int64
	for i := range n {
		_, _, msgs := genSession(i)
		for _, m := range msgs {
			j, _ := json.Marshal(m.data)
			size += int64(len(j))
			for _, p := range m.parts {
				j, _ := json.Marshal(p.data)
				size += int64(len(j))
			}
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, ref := range refs {
			s, err := read(env, ref)
			if err != nil || len(s.Warnings) > 0 || len(s.Timeline) == 0 {
				b.Fatal(err, s.Warnings)
			}
		}
	}
}
