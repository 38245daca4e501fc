package corpusgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/stead-dev/stead/adapters/kimi"
)

// Defaults for zero Options fields.
const (
	DefaultFiles          = 3000
	DefaultTotalBytes     = 1_500_000_000
	DefaultClaudeShare    = 0.6
	DefaultMalformedEvery = 50
)

// Options says what corpus to generate. Zero fields take the defaults, so
// for a corpus of Codex files only, set ClaudeShare to a tiny positive
// value. Sizes are targets: a session file cannot be smaller than a few
// kilobytes (a Codex rollout starts with about 20 KB of instructions), so
// very small TotalBytes/Files ratios come out larger than asked.
//
// The zero Mix makes a corpus of Claude Code and Codex sessions only,
// byte for byte the corpus earlier versions made from the same Options.
type Options struct {
	Seed           int64   // same seed + options => byte-identical output
	Files          int     // number of sessions (default 3000)
	TotalBytes     int64   // approximate total size (default 1.5 GB = 1_500_000_000)
	ClaudeShare    float64 // without a Mix: fraction of sessions that are Claude Code (default 0.6); the rest Codex
	MalformedEvery int     // roughly one malformed line per this many JSON Lines sessions (default 50); 0 uses default, <0 disables
	// Mix weighs the CLIs, by the names in CLIs: each gets this share of
	// the sessions over the sum of the weights, rounded so that the
	// counts add up to Files. A CLI missing from it gets none. Nil uses
	// ClaudeShare.
	Mix map[string]float64
}

// CLIs are the CLIs the generator writes sessions of, by stead's names for
// them: Claude Code, Codex CLI, Gemini CLI, OpenCode and Kimi Code.
var CLIs = []string{"claude", "codex", "gemini", "opencode", "kimi"}

// The CLIs, indexes into CLIs.
const (
	cliClaude = iota
	cliCodex
	cliGemini
	cliOpenCode
	cliKimi
	numCLIs
)

// EqualMix gives the five CLIs equal shares.
func EqualMix() map[string]float64 {
	m := make(map[string]float64, len(CLIs))
	for _, c := range CLIs {
		m[c] = 1
	}
	return m
}

// Env returns the environment variables, as NAME=value, that point stead
// at the stores of a corpus in dir, every CLI's, so that a corpus without
// some CLI's sessions reads as none of them rather than as the user's.
// (Kimi's legacy store, KIMI_SHARE_DIR, is never written.)
func Env(dir string) []string {
	return []string{
		"CLAUDE_CONFIG_DIR=" + filepath.Join(dir, "claude"),
		"CODEX_HOME=" + filepath.Join(dir, "codex"),
		"GEMINI_CLI_HOME=" + filepath.Join(dir, "gemini"),
		"XDG_DATA_HOME=" + dir, // OpenCode: DIR/opencode/opencode.db
		"KIMI_CODE_HOME=" + filepath.Join(dir, "kimi"),
		"KIMI_SHARE_DIR=" + filepath.Join(dir, "kimi-cli"),
	}
}

// Top-level entries of a corpus directory, for a caller that clears one.
var Entries = []string{"claude", "codex", "gemini", "opencode", "kimi", "kimi-cli", "manifest.json"}

func (o Options) withDefaults() Options {
	if o.Files <= 0 {
		o.Files = DefaultFiles
	}
	if o.TotalBytes <= 0 {
		o.TotalBytes = DefaultTotalBytes
	}
	if o.ClaudeShare <= 0 || o.ClaudeShare > 1 || math.IsNaN(o.ClaudeShare) {
		o.ClaudeShare = DefaultClaudeShare
	}
	if o.MalformedEvery == 0 {
		o.MalformedEvery = DefaultMalformedEvery
	}
	return o
}

// counts returns how many sessions each CLI gets.
func (o Options) counts() ([numCLIs]int, error) {
	var c [numCLIs]int
	n := o.Files
	if o.Mix == nil {
		c[cliClaude] = int(math.Round(float64(n) * o.ClaudeShare))
		c[cliCodex] = n - c[cliClaude]
		return c, nil
	}
	var w [numCLIs]float64
	sum := 0.0
	for name, v := range o.Mix {
		i := slices.Index(CLIs, name)
		if i < 0 {
			return c, fmt.Errorf("unknown CLI %q in the mix (known: %v)", name, CLIs)
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			return c, fmt.Errorf("weight of %s must be a non-negative number, got %g", name, v)
		}
		w[i] = v
		sum += v
	}
	if sum == 0 {
		return c, fmt.Errorf("the mix gives no CLI a share")
	}
	// Largest remainders, ties to the CLI listed first.
	left := n
	var frac [numCLIs]float64
	for i := range w {
		exact := float64(n) * w[i] / sum
		c[i] = int(exact)
		frac[i] = exact - float64(c[i])
		left -= c[i]
	}
	for ; left > 0; left-- {
		best := -1
		for i := range frac {
			if w[i] > 0 && (best < 0 || frac[i] > frac[best]) {
				best = i
			}
		}
		c[best]++
		frac[best] = -1
	}
	return c, nil
}

// Manifest describes a generated corpus; Generate writes it as
// DIR/manifest.json. Sizes are in bytes; paths are relative to DIR and use
// forward slashes.
//
// A session is a file but for OpenCode, whose sessions are rows of one
// database: Files counts sessions, and the sizes of an OpenCode session
// (LargestFile, MedianFile, P99File) are the length of its rows' data, as
// stead reports it. Bytes counts the database file once. Lines and
// LargestLine count the JSON Lines files only.
type Manifest struct {
	Seed        int64           `json:"seed"`
	Files       int             `json:"files"`
	Bytes       int64           `json:"bytes"` // total of all session files and the OpenCode database
	ClaudeFiles int             `json:"claudeFiles"`
	CodexFiles  int             `json:"codexFiles"`
	ForkFiles   int             `json:"forkFiles"` // Claude files that copy an earlier session
	Lines       int64           `json:"lines"`
	LargestFile int64           `json:"largestFile"`
	MedianFile  int64           `json:"medianFile"`
	P99File     int64           `json:"p99File"`
	LargestLine int64           `json:"largestLine"` // newline excluded
	Malformed   []MalformedLine `json:"malformed"`
	Tokens      TokenTotals     `json:"tokens"`
	// CLIs holds, for each CLI with sessions in the corpus, what a
	// correct reader reports of them (see CLITotals).
	CLIs map[string]*CLITotals `json:"clis"`
}

// CLITotals is what a CLI's sessions hold, counted as stead counts it:
// the totals `stead session stats` reports for the CLI, and the sum of its
// adapter's summaries (SummarizeFile with session.DetailFull) over the
// sessions.
type CLITotals struct {
	Sessions int   `json:"sessions"`
	Bytes    int64 `json:"bytes"` // of the session files, or the OpenCode database
	// Turns counts user prompts and Messages prompts and assistant text
	// replies (a Claude Code text block, an OpenCode text part, a Kimi
	// text part, a Gemini message with text, a Codex answer), copies in
	// Claude forks included.
	Turns      int `json:"turns"`
	Messages   int `json:"messages"`
	ToolCalls  int `json:"toolCalls"`
	ToolErrors int `json:"toolErrors"` // results that report an error
	// Tokens totals the usage of the model responses, each counted once
	// and a Claude fork's copies not at all; Models splits it by model.
	Tokens Tokens            `json:"tokens"`
	Models map[string]Tokens `json:"models"`
}

// MalformedLine is a deliberately truncated line: not valid JSON.
type MalformedLine struct {
	Path string `json:"path"`
	Line int    `json:"line"` // 1-based
}

// TokenTotals are the corpus's token counts per CLI and overall.
type TokenTotals struct {
	Claude   Tokens `json:"claude"`
	Codex    Tokens `json:"codex"`
	Gemini   Tokens `json:"gemini,omitzero"`
	OpenCode Tokens `json:"opencode,omitzero"`
	Kimi     Tokens `json:"kimi,omitzero"`
	Total    Tokens `json:"total"`
}

// Tokens are token counts as stead (and, for Claude Code and Codex,
// ccusage) reports them: Input excludes cached input, which is CacheRead;
// Output includes reasoning, which Reasoning repeats (Codex, Gemini and
// OpenCode record it).
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

// Add adds t's counts to z.
func (z *Tokens) Add(t Tokens) {
	z.Input += t.Input
	z.Output += t.Output
	z.CacheRead += t.CacheRead
	z.CacheWrite += t.CacheWrite
	z.Reasoning += t.Reasoning
}

// tally is what one session holds, counted as it is written.
type tally struct {
	turns, messages, toolCalls, toolErrors int
	tokens                                 Tokens
	models                                 map[string]Tokens
}

// usage counts one model response's usage.
func (t *tally) usage(model string, u Tokens) {
	t.tokens.Add(u)
	if t.models == nil {
		t.models = make(map[string]Tokens)
	}
	m := t.models[model]
	m.Add(u)
	t.models[model] = m
}

func (c *CLITotals) add(t *tally) {
	c.Turns += t.turns
	c.Messages += t.messages
	c.ToolCalls += t.toolCalls
	c.ToolErrors += t.toolErrors
	c.Tokens.Add(t.tokens)
	for model, u := range t.models {
		m := c.Models[model]
		m.Add(u)
		c.Models[model] = m
	}
}

// filePlan is what the master random source decided about one file before
// any file is written. A file's contents depend only on its plan, the plan
// of the session it forks, and its own random source.
type filePlan struct {
	cli       int
	claude    bool  // cli == cliClaude
	target    int64 // bytes to aim for
	id        string
	cwd       string
	branch    string
	model     string
	start     time.Time
	forkOf    int     // index of the copied session, or -1
	malFrac   float64 // truncate the first eligible line after this fraction of target; <0 none
	paginated bool    // Codex history mode
	rel       string  // path relative to the corpus directory (OpenCode: its database)
	slug      string  // Gemini: the project's folder under tmp/
	provider  string  // OpenCode: the model's provider
}

// fileResult is what writing one session produced.
type fileResult struct {
	size      int64 // of the file, or of an OpenCode session's rows' data
	lines     int
	maxLine   int64
	malformed int
	t         tally
	end       time.Time // the session's last record
	title     string    // Kimi Code: the title state.json holds
}

// fileRand returns file i's own random source.
func fileRand(seed int64, i int) *rand.Rand {
	s := uint64(seed)
	a := splitmix64(&s)
	s ^= uint64(i)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	b := splitmix64(&s)
	return rand.New(rand.NewPCG(a, b))
}

// Generate writes a corpus into dir (created if needed; existing files of
// the same names are overwritten, but an OpenCode database must not exist)
// and returns its manifest, which it also writes to dir/manifest.json.
func Generate(dir string, opts Options) (*Manifest, error) {
	opts = opts.withDefaults()
	counts, err := opts.counts()
	if err != nil {
		return nil, err
	}
	pools()
	plans := makePlans(opts, counts)
	results := make([]fileResult, len(plans))

	// Files, biggest first so the workers finish together, in a pool;
	// OpenCode's sessions, rows of one database, in plan order beside it.
	var order, oc []int
	for i := range plans {
		if plans[i].cli == cliOpenCode {
			oc = append(oc, i)
		} else {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return plans[order[a]].target > plans[order[b]].target })

	var (
		errMu   sync.Mutex
		firstEr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstEr == nil {
			firstEr = err
		}
		errMu.Unlock()
	}
	failed := func() bool { errMu.Lock(); defer errMu.Unlock(); return firstEr != nil }

	var wg sync.WaitGroup
	if len(oc) > 0 {
		wg.Go(func() {
			if err := writeOpenCode(dir, opts.Seed, plans, oc, results, failed); err != nil {
				fail(err)
			}
		})
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), 8, len(order)))
	jobs := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				if failed() {
					continue
				}
				res, err := writeFile(dir, opts.Seed, plans, i)
				if err != nil {
					fail(err)
					continue
				}
				results[i] = res
			}
		})
	}
	for _, i := range order {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstEr != nil {
		return nil, firstEr
	}
	if err := writeSidecars(dir, plans, results); err != nil {
		return nil, err
	}

	m := buildManifest(opts, plans, results)
	if len(oc) > 0 {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(openCodeDB)))
		if err != nil {
			return nil, err
		}
		m.Bytes += fi.Size()
		m.CLIs["opencode"].Bytes = fi.Size()
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	path := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write manifest %s: %w", path, err)
	}
	return m, nil
}

// writeSidecars writes what the stores hold besides the sessions:
// Gemini CLI's project registry and markers, Codex's and Kimi Code's
// session indexes, Kimi Code's workspaces and state files.
func writeSidecars(dir string, plans []filePlan, results []fileResult) error {
	if err := writeGeminiProjects(dir, plans); err != nil {
		return err
	}
	if err := writeCodexIndex(dir, plans, results); err != nil {
		return err
	}
	return writeKimiIndex(dir, plans, results)
}

// byStart is the indexes of cli's plans, in the order their sessions
// started.
func byStart(plans []filePlan, cli int) []int {
	var idx []int
	for i := range plans {
		if plans[i].cli == cli {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return plans[a].start.Compare(plans[b].start) })
	return idx
}

func buildManifest(opts Options, plans []filePlan, results []fileResult) *Manifest {
	m := &Manifest{Seed: opts.Seed, Files: len(plans), Malformed: []MalformedLine{}, CLIs: map[string]*CLITotals{}}
	sizes := make([]int64, len(results))
	for i := range results {
		res, p := &results[i], &plans[i]
		sizes[i] = res.size
		name := CLIs[p.cli]
		c := m.CLIs[name]
		if c == nil {
			c = &CLITotals{Models: map[string]Tokens{}}
			m.CLIs[name] = c
		}
		c.Sessions++
		c.add(&res.t)
		if p.cli != cliOpenCode {
			m.Bytes += res.size
			c.Bytes += res.size
			m.Lines += int64(res.lines)
			m.LargestLine = max(m.LargestLine, res.maxLine)
		}
		switch p.cli {
		case cliClaude:
			m.ClaudeFiles++
			if p.forkOf >= 0 {
				m.ForkFiles++
			}
		case cliCodex:
			m.CodexFiles++
		}
		if res.malformed > 0 {
			m.Malformed = append(m.Malformed, MalformedLine{Path: p.rel, Line: res.malformed})
		}
	}
	for name, c := range m.CLIs {
		switch name {
		case "claude":
			m.Tokens.Claude = c.Tokens
		case "codex":
			m.Tokens.Codex = c.Tokens
		case "gemini":
			m.Tokens.Gemini = c.Tokens
		case "opencode":
			m.Tokens.OpenCode = c.Tokens
		case "kimi":
			m.Tokens.Kimi = c.Tokens
		}
		m.Tokens.Total.Add(c.Tokens)
	}
	slices.SortFunc(m.Malformed, func(a, b MalformedLine) int {
		if a.Path < b.Path {
			return -1
		}
		if a.Path > b.Path {
			return 1
		}
		return 0
	})
	slices.Sort(sizes)
	if n := len(sizes); n > 0 {
		m.LargestFile = sizes[n-1]
		m.MedianFile = sizes[n/2]
		m.P99File = sizes[max(0, int(math.Ceil(0.99*float64(n)))-1)]
	}
	return m
}

// writeFile writes plans[i]'s session file.
func writeFile(dir string, seed int64, plans []filePlan, i int) (res fileResult, err error) {
	p := &plans[i]
	path := filepath.Join(dir, filepath.FromSlash(p.rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, fmt.Errorf("create folder for %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return res, fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	o := &out{bw: bufio.NewWriterSize(f, 256<<10), scratch: make([]byte, 0, 64<<10)}
	switch p.cli {
	case cliClaude:
		res.t, res.end = writeClaude(o, seed, plans, i)
	case cliCodex:
		res.t, res.end = writeCodex(o, fileRand(seed, i), p)
	case cliGemini:
		res.t, res.end = writeGemini(o, fileRand(seed, i), p)
	case cliKimi:
		res.t, res.end, res.title = writeKimi(o, fileRand(seed, i), p)
	}
	if err := o.bw.Flush(); err != nil {
		return res, fmt.Errorf("write %s: %w", path, err)
	}
	res.size, res.lines, res.maxLine, res.malformed = o.n, o.lines, o.maxLine, o.malformed
	if p.cli == cliKimi {
		if err := writeKimiState(dir, p, &res); err != nil {
			return res, err
		}
	}
	// A CLI writes its session file as the session goes: the file was
	// last modified at the session's last record.
	if !res.end.IsZero() {
		if err := os.Chtimes(path, res.end, res.end); err != nil {
			return res, fmt.Errorf("set the time of %s: %w", path, err)
		}
	}
	return res, nil
}

// makePlans decides every session's CLI, size, project, ids, times, forks
// and malformed line from the master random source. The draws for Claude
// Code and Codex sessions are those earlier versions made, so a corpus of
// those two alone is the same as theirs.
func makePlans(opts Options, counts [numCLIs]int) []filePlan {
	n := opts.Files
	s := uint64(opts.Seed)
	r := rand.New(rand.NewPCG(splitmix64(&s), 0xc0ffee))

	sizes := planSizes(n, opts.TotalBytes)
	r.Shuffle(n, func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
	nClaude := counts[cliClaude]
	perm := r.Perm(n)

	projects := makeProjects(r, max(2, n/20))
	base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	span := int64(320 * 24 * time.Hour / time.Second)

	plans := make([]filePlan, n)
	for i := range plans {
		p := &plans[i]
		p.cli = cliOf(perm[i], counts)
		p.claude = p.cli == cliClaude
		p.target = sizes[i]
		p.forkOf = -1
		p.malFrac = -1
		// Skewed: a few projects hold most sessions.
		p.cwd = projects[int(float64(len(projects))*math.Pow(r.Float64(), 2))]
		p.branch = pick(r, []string{"main", "main", "main", "HEAD", "feat/" + pick(r, idents) + "-" + pick(r, idents), "fix/" + pick(r, idents)})
		p.start = base.Add(time.Duration(r.Int64N(span))*time.Second + time.Duration(r.IntN(1000))*time.Millisecond)
		switch p.cli {
		case cliClaude:
			p.id = uuid4(r)
			p.model = pick(r, []string{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929",
				"claude-opus-4-5-20251101", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"})
		case cliCodex:
			p.id = uuid7(r, p.start.UnixMilli())
			p.model = pick(r, []string{"gpt-5.1-codex", "gpt-5.1-codex", "gpt-5.5", "gpt-5.1-codex-max", "gpt-5.2"})
			p.paginated = chance(r, 0.6)
		case cliGemini:
			p.id = uuid4(r)
			p.model = pick(r, geminiModels)
		case cliOpenCode:
			m := pick(r, openCodeModels)
			p.provider, p.model = m[0], m[1]
			p.id = openCodeSessionID(r, p.start.UnixMilli())
		case cliKimi:
			p.id = "session_" + uuid4(r)
			p.model = pick(r, kimiModels)
		}
	}

	planForks(r, plans, nClaude)

	if opts.MalformedEvery > 0 {
		// Only JSON Lines have lines to cut: an OpenCode session is rows.
		var lines []int
		for i := range plans {
			if plans[i].cli != cliOpenCode {
				lines = append(lines, i)
			}
		}
		k := max(1, (len(lines)+opts.MalformedEvery/2)/opts.MalformedEvery)
		for _, j := range r.Perm(len(lines))[:min(k, len(lines))] {
			plans[lines[j]].malFrac = uniform(r, 0.05, 0.9)
		}
	}

	slugs := geminiSlugs(plans)
	for i := range plans {
		p := &plans[i]
		t := p.start.UTC()
		switch p.cli {
		case cliClaude:
			p.rel = "claude/projects/" + encodeProjectDir(p.cwd) + "/" + p.id + ".jsonl"
		case cliCodex:
			p.rel = "codex/sessions/" + t.Format("2006/01/02") + "/rollout-" + t.Format("2006-01-02T15-04-05") + "-" + p.id + ".jsonl"
		case cliGemini:
			p.slug = slugs[p.cwd]
			p.rel = geminiStore + "/tmp/" + p.slug + "/chats/session-" + t.Format("2006-01-02T15-04") + "-" + p.id[:8] + ".jsonl"
		case cliOpenCode:
			p.rel = openCodeDB
		case cliKimi:
			p.rel = "kimi/sessions/" + kimi.WorkDirKey(p.cwd) + "/" + p.id + "/agents/main/wire.jsonl"
		}
	}
	return plans
}

// cliOf returns the CLI of the session that drew k of a permutation: the
// first counts[0] draws are Claude Code's, the next counts[1] Codex's, and
// so on.
func cliOf(k int, counts [numCLIs]int) int {
	for c, n := range counts {
		if k < n {
			return c
		}
		k -= n
	}
	return numCLIs - 1
}

// planForks makes about 3% of the Claude sessions forks of a smaller,
// earlier Claude session in the same project folder. A fork's target size
// includes the copy.
func planForks(r *rand.Rand, plans []filePlan, nClaude int) {
	want := int(math.Round(0.03 * float64(nClaude)))
	if want == 0 {
		return
	}
	var claude []int
	for i := range plans {
		if plans[i].claude {
			claude = append(claude, i)
		}
	}
	used := make(map[int]bool) // originals and forks: no chains
	made := 0
	for _, f := range r.Perm(len(claude)) {
		if made == want {
			break
		}
		fi := claude[f]
		fp := &plans[fi]
		if used[fi] || fp.target < 8_000 || fp.target > 2_000_000 {
			continue
		}
		var cands []int
		for _, oi := range claude {
			op := &plans[oi]
			if oi != fi && !used[oi] && op.target >= fp.target/4 && op.target <= fp.target*3/4 {
				cands = append(cands, oi)
			}
		}
		if len(cands) == 0 {
			continue
		}
		oi := pick(r, cands)
		op := &plans[oi]
		used[oi], used[fi] = true, true
		fp.forkOf = oi
		fp.cwd, fp.branch, fp.model = op.cwd, op.branch, op.model
		fp.start = op.start.Add(time.Duration(24+r.IntN(96)) * time.Hour)
		made++
	}
}

func makeProjects(r *rand.Rand, n int) []string {
	roots := []string{"/home/dev/src/", "/home/dev/work/", "/home/dev/code/", "/Users/sam/projects/", "/srv/repos/"}
	seps := []string{"-", "-", "_", "."}
	seen := make(map[string]bool)
	out := make([]string, 0, n)
	for len(out) < n {
		name := pick(r, idents) + pick(r, seps) + pick(r, idents)
		if chance(r, 0.2) {
			name = pick(r, []string{"acme", "infra", "web", "ml"}) + "/" + name
		}
		p := pick(r, roots) + name
		if seen[p] {
			p += fmt.Sprintf("%d", len(out))
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// encodeProjectDir is Claude Code's folder name for cwd: every character
// that is not an ASCII letter or digit becomes '-'. Planned paths are ASCII
// and short, so the long-name hash suffix is never needed.
func encodeProjectDir(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// planSizes returns n target file sizes summing to about total, sorted
// ascending. The shape is anchored at the real-world figures for a mean of
// 500 KB per file (median 51 KB, 99th percentile 5 MB, largest 47 MB) and
// scaled with the mean: ranks below the 99th percentile follow a lognormal
// through the median and the 99th percentile; the top 1% rise from the 99th
// percentile to the largest along a curve whose bend is solved so the sizes
// add up to total. If that cannot reach total, all sizes are scaled.
func planSizes(n int, total int64) []int64 {
	if n <= 0 {
		return nil
	}
	if n == 1 {
		return []int64{total}
	}
	t := float64(total)
	scale := t / float64(n) / 500_000
	median := 51_000 * scale
	largest := math.Min(47_000_000*scale, t/4)
	p99 := math.Min(5_000_000*scale, largest/2)
	if p99 <= median*1.5 {
		p99 = median * 1.5
		largest = math.Max(largest, p99*1.5)
	}
	ntop := max(1, int(math.Ceil(float64(n)*0.01)))
	nbody := n - ntop
	sigma := math.Log(p99/median) / zq(0.99)

	f := make([]float64, n)
	body := 0.0
	for i := range nbody {
		q := (float64(i) + 0.5) / float64(n)
		f[i] = math.Min(median*math.Exp(sigma*zq(q)), p99)
		body += f[i]
	}
	top := func(g float64, fill bool) float64 {
		sum := 0.0
		for j := range ntop {
			u := float64(j+1) / float64(ntop)
			v := p99 * math.Exp(math.Log(largest/p99)*math.Pow(u, g))
			if fill {
				f[nbody+j] = v
			}
			sum += v
		}
		return sum
	}
	need := t - body
	lo, hi := -6.0, 6.0 // log of the bend; top() falls as it grows
	switch {
	case top(math.Exp(lo), false) <= need:
		hi = lo
	case top(math.Exp(hi), false) >= need:
		lo = hi
	default:
		for range 80 {
			mid := (lo + hi) / 2
			if top(math.Exp(mid), false) > need {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	sum := body + top(math.Exp((lo+hi)/2), true)
	k := t / sum
	sizes := make([]int64, n)
	for i, v := range f {
		sizes[i] = max(int64(v*k), 300)
	}
	return sizes
}

// zq is the standard normal quantile function.
func zq(q float64) float64 { return math.Sqrt2 * math.Erfinv(2*q-1) }
