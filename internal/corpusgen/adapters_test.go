package corpusgen

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters/adapter"
	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/adapters/codex"
	"github.com/stead-dev/stead/adapters/gemini"
	"github.com/stead-dev/stead/adapters/kimi"
	"github.com/stead-dev/stead/adapters/opencode"
	"github.com/stead-dev/stead/session"
)

// five is a small corpus of all five CLIs: 60 sessions, 12 MB, about one
// malformed line in six JSON Lines sessions.
var five = Options{Seed: 3, Files: 60, TotalBytes: 12_000_000, MalformedEvery: 6, Mix: EqualMix()}

var fiveCorpus struct {
	once sync.Once
	dir  string
	m    *Manifest
	err  error
}

// sharedFive generates the five-CLI corpus once for the tests.
func sharedFive(t *testing.T) (string, *Manifest) {
	t.Helper()
	fiveCorpus.once.Do(func() {
		fiveCorpus.dir, fiveCorpus.err = os.MkdirTemp("", "corpusgen-five-")
		if fiveCorpus.err == nil {
			fiveCorpus.m, fiveCorpus.err = Generate(fiveCorpus.dir, five)
		}
	})
	if fiveCorpus.err != nil {
		t.Fatal(fiveCorpus.err)
	}
	return fiveCorpus.dir, fiveCorpus.m
}

// corpusEnv is the environment Env gives, as a session.Env whose home is
// empty, so that nothing outside the corpus is read.
func corpusEnv(t *testing.T, dir string) session.Env {
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
	for _, kv := range Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	return env
}

var readers = map[string]*adapter.Reader{
	"claude":   claude.Adapter.Reader,
	"codex":    codex.Adapter.Reader,
	"gemini":   gemini.Adapter.Reader,
	"opencode": opencode.Adapter.Reader,
	"kimi":     kimi.Adapter.Reader,
}

// TestAdaptersReadManifest reads a corpus of all five CLIs with each
// CLI's adapter: Discover finds every session and reports nothing, the
// only lines a summary or a full read skips are the manifest's malformed
// ones, and the summaries (SummarizeFile with session.DetailFull) add up to
// the manifest's totals exactly: sessions, turns, messages, tool calls and
// errors, tokens overall and per model.
func TestAdaptersReadManifest(t *testing.T) {
	dir, m := sharedFive(t)
	env := corpusEnv(t, dir)
	malformed := map[string]bool{}
	for _, ml := range m.Malformed {
		malformed[ml.Path+":"+itoaTest(ml.Line)] = true
	}
	if len(m.Malformed) < 4 {
		t.Errorf("%d malformed lines, want several", len(m.Malformed))
	}
	seenBad := map[string]bool{}
	for _, name := range CLIs {
		t.Run(name, func(t *testing.T) {
			want := m.CLIs[name]
			if want == nil || want.Sessions != five.Files/len(CLIs) {
				t.Fatalf("manifest: %+v, want %d sessions", want, five.Files/len(CLIs))
			}
			rd := readers[name]
			refs, warns := rd.Discover(env)
			for _, w := range warns {
				t.Errorf("Discover: %s", w)
			}
			if len(refs) != want.Sessions {
				t.Fatalf("Discover found %d sessions, manifest says %d", len(refs), want.Sessions)
			}
			var got CLITotals
			got.Sessions = len(refs)
			got.Models = map[string]Tokens{}
			for _, ref := range refs {
				sum, err := rd.SummarizeFile(ref, session.DetailFull)
				if err != nil {
					t.Fatalf("SummarizeFile %s: %v", ref.Path, err)
				}
				got.Turns += sum.Turns
				got.Messages += sum.Messages
				got.ToolErrors += sum.ToolErrors
				for _, n := range sum.Tools {
					got.ToolCalls += n
				}
				got.Tokens.Add(tokensOf(sum.Usage))
				for model, u := range sum.Models {
					x := got.Models[model]
					x.Add(tokensOf(u))
					got.Models[model] = x
				}
				if sum.Skipped != len(sum.Warnings) {
					t.Errorf("%s: %d lines skipped, %d warnings", ref.Path, sum.Skipped, len(sum.Warnings))
				}
				// A CLI writes as the session goes: its file was last
				// modified at its last record, or soon after it (a
				// record without a time, a line cut short); OpenCode's
				// sessions are rows of one database.
				if fi, err := os.Stat(ref.Path); err != nil {
					t.Fatal(err)
				} else if d := fi.ModTime().Sub(sum.End); name != "opencode" && (d < -time.Second || d > 15*time.Minute) {
					t.Errorf("%s: modified at %s, its last record at %s", ref.Path, fi.ModTime().UTC(), sum.End)
				}
				for _, w := range sum.Warnings {
					key := relPath(t, dir, ref.Path) + ":" + itoaTest(w.Line)
					if !malformed[key] {
						t.Errorf("summary of %s: unexpected warning %s", ref.Path, w)
					}
					seenBad[key] = true
				}

				s, err := rd.Open(env, ref)
				if err != nil {
					t.Fatalf("Open %s: %v", ref.Path, err)
				}
				for _, w := range s.Warnings {
					path := w.Path
					if path == "" {
						path = ref.Path
					}
					if key := relPath(t, dir, path) + ":" + itoaTest(w.Line); !malformed[key] {
						t.Errorf("reading %s: unexpected warning %s", ref.Path, w)
					}
				}
			}
			want2 := *want
			want2.Bytes = 0
			if !reflect.DeepEqual(got, want2) {
				t.Errorf("summaries add up to\n%+v\nmanifest says\n%+v", got, want2)
			}
			if want.Turns == 0 || want.Messages <= want.Turns || want.ToolCalls == 0 || want.ToolErrors == 0 ||
				want.Tokens.Input == 0 || want.Tokens.Output == 0 || want.Tokens.CacheRead == 0 || len(want.Models) < 2 {
				t.Errorf("implausible totals: %+v", want)
			}
		})
	}
	for key := range malformed {
		if !seenBad[key] {
			t.Errorf("malformed line %s was not reported", key)
		}
	}
}

func tokensOf(u session.Usage) Tokens {
	return Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Reasoning: u.Reasoning}
}

func relPath(t *testing.T, dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

func itoaTest(n int) string { return strconv.Itoa(n) }

// TestFiveDeterministic checks that the same Options give the same bytes,
// the OpenCode database included, wherever the corpus is written.
func TestFiveDeterministic(t *testing.T) {
	dir, m := sharedFive(t)
	again := t.TempDir()
	m2, err := Generate(again, five)
	if err != nil {
		t.Fatal(err)
	}
	if h1, h2 := hashDir(t, dir), hashDir(t, again); h1 != h2 {
		t.Errorf("same seed, different corpus: %s vs %s", h1, h2)
	}
	if !reflect.DeepEqual(m, m2) {
		t.Errorf("same seed, different manifests")
	}
}

// TestFiveLayout checks where each store's files are and what the
// sidecars say.
func TestFiveLayout(t *testing.T) {
	dir, m := sharedFive(t)
	var total int64
	for _, name := range CLIs {
		total += m.CLIs[name].Bytes
	}
	if total != m.Bytes {
		t.Errorf("the CLIs' bytes add up to %d, the manifest's total is %d", total, m.Bytes)
	}

	// Gemini CLI: every project's folder is registered and marked.
	root := filepath.Join(dir, "gemini", ".gemini")
	data, err := os.ReadFile(filepath.Join(root, "projects.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range globT(t, filepath.Join(root, "tmp", "*", "chats", "session-*.jsonl")) {
		slug := filepath.Base(filepath.Dir(filepath.Dir(f)))
		marker, err := os.ReadFile(filepath.Join(root, "tmp", slug, ".project_root"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `": "`+slug+`"`) || !strings.Contains(string(data), string(marker)) {
			t.Errorf("projects.json does not map %s to %s", marker, slug)
		}
		if !regexp.MustCompile(`^session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.jsonl$`).MatchString(filepath.Base(f)) {
			t.Errorf("Gemini session file %s", f)
		}
	}

	// Codex: the TUI's titles name sessions of the store, three in four,
	// and Discover gives them.
	titles := map[string]string{}
	eachLine(t, filepath.Join(dir, "codex", "session_index.jsonl"), func(n int, line []byte) {
		var e struct {
			ID         string `json:"id"`
			ThreadName string `json:"thread_name"`
			UpdatedAt  string `json:"updated_at"`
		}
		if err := json.Unmarshal(line, &e); err != nil || e.ThreadName == "" || e.UpdatedAt == "" {
			t.Errorf("codex/session_index.jsonl:%d: %s (%v)", n, line, err)
		}
		titles[e.ID] = e.ThreadName
	})
	refs, warns := codex.Discover(session.Env{Vars: map[string]string{"CODEX_HOME": filepath.Join(dir, "codex")}})
	named := 0
	for _, r := range refs {
		if r.Title != titles[r.ID] {
			t.Errorf("codex %s: title %q, the index says %q", r.ID, r.Title, titles[r.ID])
		}
		if r.Title != "" {
			named++
		}
	}
	if n := m.CLIs["codex"].Sessions; len(warns) > 0 || named != len(titles) || named < n/2 || named == n {
		t.Errorf("%d of %d Codex sessions named by the index (%d lines), warnings %v", named, n, len(titles), warns)
	}

	// Kimi Code: each session has its state, and the index names it.
	index, err := os.ReadFile(filepath.Join(dir, "kimi", "session_index.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	wires := globT(t, filepath.Join(dir, "kimi", "sessions", "wd_*", "session_*", "agents", "main", "wire.jsonl"))
	if len(wires) != m.CLIs["kimi"].Sessions {
		t.Errorf("%d Kimi journals, %d sessions", len(wires), m.CLIs["kimi"].Sessions)
	}
	for _, w := range wires {
		sdir := filepath.Dir(filepath.Dir(filepath.Dir(w)))
		if _, err := os.Stat(filepath.Join(sdir, "state.json")); err != nil {
			t.Error(err)
		}
		if !strings.Contains(string(index), `"sessionId":"`+filepath.Base(sdir)+`"`) {
			t.Errorf("session_index.jsonl does not list %s", filepath.Base(sdir))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kimi", "workspaces.json")); err != nil {
		t.Error(err)
	}

	// OpenCode: one database in WAL mode, no log beside it.
	db := filepath.Join(dir, "opencode", "opencode.db")
	head := make([]byte, 20)
	f, err := os.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	f.Read(head)
	f.Close()
	if string(head[:16]) != "SQLite format 3\x00" || head[18] != 2 || head[19] != 2 {
		t.Errorf("opencode.db header % x: want an SQLite file in WAL mode", head)
	}
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(db + s); err == nil {
			t.Errorf("%s%s left beside the database", db, s)
		}
	}
}

func globT(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("nothing matches %s (%v)", pattern, err)
	}
	return m
}

// TestOpenCodeSchema checks that the database has the schema of
// adapters/opencode/testdata/schema.sql, the schema of a database OpenCode
// 1.18.33 created.
func TestOpenCodeSchema(t *testing.T) {
	dir, _ := sharedFive(t)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "opencode", "opencode.db")+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		got = append(got, normSQL(s))
	}
	rows.Close()
	f, err := os.Open(filepath.Join("..", "..", "adapters", "opencode", "testdata", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	var stmt strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		stmt.WriteString(sc.Text() + "\n")
		if strings.HasSuffix(strings.TrimSpace(sc.Text()), ";") {
			want = append(want, normSQL(strings.TrimSuffix(strings.TrimSpace(stmt.String()), ";")))
			stmt.Reset()
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("schema differs from OpenCode's:\n%q\n%q", got, want)
	}
}

// normSQL folds whitespace and the quoting of a table name that
// `CREATE TABLE IF NOT EXISTS` leaves out of sqlite_master.
func normSQL(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "IF NOT EXISTS ", "")
	return strings.ReplaceAll(s, "( ", "(")
}
