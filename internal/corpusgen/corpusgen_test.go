package corpusgen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// small is the corpus the tests share: 40 files, 20 MB, 4 malformed lines.
var small = Options{Seed: 1, Files: 40, TotalBytes: 20_000_000, MalformedEvery: 10}

var shared struct {
	once sync.Once
	dir  string
	m    *Manifest
	err  error
}

// sharedCorpus generates the small corpus once for all tests.
func sharedCorpus(t *testing.T) (string, *Manifest) {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "corpusgen-test-")
		if shared.err == nil {
			shared.m, shared.err = Generate(shared.dir, small)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir, shared.m
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	if fiveCorpus.dir != "" {
		os.RemoveAll(fiveCorpus.dir)
	}
	os.Exit(code)
}

// hashDir hashes every file under dir, paths and contents, in sorted path
// order.
func hashDir(t *testing.T, dir string) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		io.WriteString(h, filepath.ToSlash(rel)+"\x00")
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(h, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestDeterministic(t *testing.T) {
	dir, m := sharedCorpus(t)
	again := t.TempDir()
	m2, err := Generate(again, small)
	if err != nil {
		t.Fatal(err)
	}
	if h1, h2 := hashDir(t, dir), hashDir(t, again); h1 != h2 {
		t.Errorf("same seed, different corpus: %s vs %s", h1, h2)
	}
	if !reflect.DeepEqual(m, m2) {
		t.Errorf("same seed, different manifests:\n%+v\n%+v", m, m2)
	}

	other := small
	other.Seed = 2
	odir := t.TempDir()
	if _, err := Generate(odir, other); err != nil {
		t.Fatal(err)
	}
	if hashDir(t, dir) == hashDir(t, odir) {
		t.Error("seeds 1 and 2 gave the same corpus")
	}
}

func TestManifestOnDisk(t *testing.T) {
	dir, m := sharedCorpus(t)
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var disk Manifest
	if err := json.Unmarshal(data, &disk); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&disk, m) {
		t.Errorf("manifest.json differs from the returned manifest:\n%+v\n%+v", disk, *m)
	}
	if m.Files != small.Files || m.ClaudeFiles+m.CodexFiles != m.Files {
		t.Errorf("files = %d (%d claude + %d codex), want %d", m.Files, m.ClaudeFiles, m.CodexFiles, small.Files)
	}
	if want := int(math.Round(float64(small.Files) * DefaultClaudeShare)); m.ClaudeFiles != want {
		t.Errorf("claude files = %d, want %d", m.ClaudeFiles, want)
	}
	if len(m.Malformed) != 4 {
		t.Errorf("malformed lines = %d, want 4 (one per 10 files)", len(m.Malformed))
	}
}

func TestSizes(t *testing.T) {
	dir, m := sharedCorpus(t)
	var sizes []int64
	var total int64
	for _, f := range corpusFiles(t, dir) {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, st.Size())
		total += st.Size()
	}
	if len(sizes) != m.Files {
		t.Fatalf("%d session files on disk, manifest says %d", len(sizes), m.Files)
	}
	if total != m.Bytes {
		t.Errorf("files hold %d bytes, manifest says %d", total, m.Bytes)
	}
	if lo, hi := float64(small.TotalBytes)*0.9, float64(small.TotalBytes)*1.1; float64(total) < lo || float64(total) > hi {
		t.Errorf("total %d bytes, want within 10%% of %d", total, small.TotalBytes)
	}
	slices.Sort(sizes)
	median, largest := sizes[len(sizes)/2], sizes[len(sizes)-1]
	if median != m.MedianFile || largest != m.LargestFile {
		t.Errorf("median/largest %d/%d, manifest says %d/%d", median, largest, m.MedianFile, m.LargestFile)
	}
	if largest < 20*median {
		t.Errorf("largest file %d is not much larger than the median %d", largest, median)
	}
	if m.LargestLine < 1_000_000 {
		t.Errorf("largest line %d bytes, want a multi-megabyte line", m.LargestLine)
	}
}

// TestPlanSizesDefault checks the planned distribution at the default scale
// without writing it.
func TestPlanSizesDefault(t *testing.T) {
	s := planSizes(DefaultFiles, DefaultTotalBytes)
	var sum int64
	for _, v := range s {
		sum += v
	}
	n := len(s)
	near := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s = %.0f, want %.0f ± %.0f%%", name, got, want, tol*100)
		}
	}
	near("total", float64(sum), DefaultTotalBytes, 0.01)
	near("median", float64(s[n/2]), 51_000, 0.02)
	near("p99", float64(s[int(math.Ceil(0.99*float64(n)))-1]), 5_000_000, 0.05)
	near("largest", float64(s[n-1]), 47_000_000, 0.02)
}

func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		// session_index.jsonl: Codex's and Kimi Code's indexes, beside
		// the sessions.
		if err == nil && strings.HasSuffix(p, ".jsonl") && filepath.Base(p) != "session_index.jsonl" {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// eachLine calls f with every line of the file, newline removed.
func eachLine(t *testing.T, p string, f func(n int, line []byte)) {
	t.Helper()
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r := bufio.NewReaderSize(fh, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				t.Errorf("%s:%d: last line has no newline", p, n)
			}
			f(n, bytes.TrimSuffix(line, []byte("\n")))
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

type claudeUsage struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
}

type claudeLine struct {
	Type             string `json:"type"`
	SessionID        string `json:"sessionId"`
	Cwd              string `json:"cwd"`
	UUID             string `json:"uuid"`
	RequestID        string `json:"requestId"`
	RequestSessionID string `json:"requestSessionId"`
	Message          *struct {
		ID    string       `json:"id"`
		Usage *claudeUsage `json:"usage"`
	} `json:"message"`
}

type codexUsageJSON struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Reasoning  int64 `json:"reasoning_output_tokens"`
	Total      int64 `json:"total_tokens"`
}

type codexLine struct {
	Type    string `json:"type"`
	Ordinal *int64 `json:"ordinal"`
	Payload struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		HistoryMode string `json:"history_mode"`
		Info        *struct {
			Total codexUsageJSON `json:"total_token_usage"`
			Last  codexUsageJSON `json:"last_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

// TestContents decodes every line with encoding/json: all lines but the
// listed malformed ones must be valid, and the token totals recomputed with
// ccusage's rules must equal the manifest's.
func TestContents(t *testing.T) {
	dir, m := sharedCorpus(t)
	malformed := make(map[MalformedLine]bool)
	for _, ml := range m.Malformed {
		malformed[ml] = true
	}
	var claude, codex Tokens
	seen := make(map[[2]string]bool) // Claude (message.id, requestId)
	var repeats, forkRecords, nullInfo, tokenCounts, repeatedCounts int
	var longest int64
	badSeen := 0

	for _, rel := range corpusFiles(t, dir) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		isClaude := strings.HasPrefix(rel, "claude/")
		var prevTotal *codexUsageJSON
		var paginated bool
		eachLine(t, p, func(n int, line []byte) {
			longest = max(longest, int64(len(line)))
			bad := malformed[MalformedLine{rel, n}]
			if isClaude {
				var l claudeLine
				err := json.Unmarshal(line, &l)
				if bad {
					badSeen++
					if err == nil {
						t.Errorf("%s:%d is listed as malformed but is valid JSON", rel, n)
					}
					return
				}
				if err != nil {
					t.Errorf("%s:%d: %v", rel, n, err)
					return
				}
				checkClaudeLine(t, rel, n, &l)
				if l.RequestSessionID != "" {
					forkRecords++
					orig := path.Join(path.Dir(rel), l.RequestSessionID+".jsonl")
					if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(orig))); err != nil {
						t.Errorf("%s:%d: forked from %s, which is not in the corpus folder", rel, n, l.RequestSessionID)
					}
				}
				if l.Type != "assistant" || l.Message == nil || l.Message.Usage == nil {
					return
				}
				key := [2]string{l.Message.ID, l.RequestID}
				if seen[key] {
					repeats++
					return
				}
				seen[key] = true
				u := l.Message.Usage
				claude.Add(Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheCreation})
				return
			}

			var l codexLine
			err := json.Unmarshal(line, &l)
			if bad {
				badSeen++
				if err == nil {
					t.Errorf("%s:%d is listed as malformed but is valid JSON", rel, n)
				}
				if n == 1 {
					t.Errorf("%s: the session_meta line is malformed", rel)
				}
				return
			}
			if err != nil {
				t.Errorf("%s:%d: %v", rel, n, err)
				return
			}
			if n == 1 {
				if l.Type != "session_meta" || !strings.HasSuffix(rel, "-"+l.Payload.ID+".jsonl") {
					t.Errorf("%s: first line is %s for thread %q", rel, l.Type, l.Payload.ID)
				}
				paginated = l.Payload.HistoryMode == "paginated"
			}
			if paginated != (l.Ordinal != nil) || l.Ordinal != nil && *l.Ordinal != int64(n-1) {
				t.Errorf("%s:%d: ordinal %v in a paginated=%v file", rel, n, l.Ordinal, paginated)
			}
			if l.Type != "event_msg" || l.Payload.Type != "token_count" {
				return
			}
			tokenCounts++
			info := l.Payload.Info
			if info == nil {
				nullInfo++
				return
			}
			if prevTotal != nil && *prevTotal == info.Total {
				repeatedCounts++
				return
			}
			total := info.Total
			prevTotal = &total
			u := info.Last
			if u.Total != u.Input+u.Output || u.Cached > u.Input || u.Reasoning > u.Output {
				t.Errorf("%s:%d: inconsistent usage %+v", rel, n, u)
			}
			codex.Add(Tokens{Input: u.Input - u.Cached, Output: u.Output, CacheRead: u.Cached, CacheWrite: u.CacheWrite, Reasoning: u.Reasoning})
		})
	}

	if badSeen != len(m.Malformed) {
		t.Errorf("found %d of the %d listed malformed lines", badSeen, len(m.Malformed))
	}
	if longest != m.LargestLine {
		t.Errorf("longest line %d bytes, manifest says %d", longest, m.LargestLine)
	}
	if claude != m.Tokens.Claude {
		t.Errorf("claude tokens recomputed %+v, manifest %+v", claude, m.Tokens.Claude)
	}
	if codex != m.Tokens.Codex {
		t.Errorf("codex tokens recomputed %+v, manifest %+v", codex, m.Tokens.Codex)
	}
	var total Tokens
	total.Add(claude)
	total.Add(codex)
	if total != m.Tokens.Total {
		t.Errorf("total tokens recomputed %+v, manifest %+v", total, m.Tokens.Total)
	}
	if claude.Input == 0 || claude.CacheRead == 0 || codex.Output == 0 || codex.CacheRead == 0 {
		t.Errorf("implausible totals: claude %+v codex %+v", claude, codex)
	}
	if repeats == 0 {
		t.Error("no Claude response split over several block records")
	}
	if m.ForkFiles == 0 || forkRecords == 0 {
		t.Errorf("%d fork files, %d records with requestSessionId: want some", m.ForkFiles, forkRecords)
	}
	if nullInfo == 0 || repeatedCounts == 0 {
		t.Errorf("of %d token_count events, %d have null info and %d repeat: want some of each", tokenCounts, nullInfo, repeatedCounts)
	}
}

// checkClaudeLine checks that a record sits where Claude Code would keep it.
func checkClaudeLine(t *testing.T, rel string, n int, l *claudeLine) {
	t.Helper()
	if l.SessionID != "" && path.Base(rel) != l.SessionID+".jsonl" {
		t.Errorf("%s:%d: sessionId %s does not match the file name", rel, n, l.SessionID)
	}
	if l.Cwd != "" && path.Base(path.Dir(rel)) != encodeProjectDir(l.Cwd) {
		t.Errorf("%s:%d: cwd %s does not match the project folder", rel, n, l.Cwd)
	}
}

func TestEncodeProjectDir(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/proj.x":          "-home-u-proj-x",
		"/home/dev/src/a_b-c":     "-home-dev-src-a-b-c",
		"/Users/sam/projects/Web": "-Users-sam-projects-Web",
	} {
		if got := encodeProjectDir(in); got != want {
			t.Errorf("encodeProjectDir(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMalformedDisabled(t *testing.T) {
	opts := Options{Seed: 3, Files: 6, TotalBytes: 600_000, MalformedEvery: -1}
	m, err := Generate(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Malformed) != 0 {
		t.Errorf("malformed lines with MalformedEvery < 0: %+v", m.Malformed)
	}
}
