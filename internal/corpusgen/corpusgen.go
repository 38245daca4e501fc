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
type Options struct {
	Seed           int64   // same seed + options => byte-identical output
	Files          int     // number of session files (default 3000)
	TotalBytes     int64   // approximate total size (default 1.5 GB = 1_500_000_000)
	ClaudeShare    float64 // fraction of files that are Claude Code (default 0.6); the rest Codex
	MalformedEvery int     // roughly one malformed line per this many files (default 50); 0 uses default, <0 disables
}

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

// Manifest describes a generated corpus; Generate writes it as
// DIR/manifest.json. Sizes are in bytes; paths are relative to DIR and use
// forward slashes.
type Manifest struct {
	Seed        int64           `json:"seed"`
	Files       int             `json:"files"`
	Bytes       int64           `json:"bytes"` // total of all session files
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
}

// MalformedLine is a deliberately truncated line: not valid JSON.
type MalformedLine struct {
	Path string `json:"path"`
	Line int    `json:"line"` // 1-based
}

// TokenTotals are the corpus's token counts per CLI and overall.
type TokenTotals struct {
	Claude Tokens `json:"claude"`
	Codex  Tokens `json:"codex"`
	Total  Tokens `json:"total"`
}

// Tokens are token counts as ccusage reports them. For Codex, Input
// excludes cached input, which is CacheRead.
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// Add adds t's counts to z.
func (z *Tokens) Add(t Tokens) {
	z.Input += t.Input
	z.Output += t.Output
	z.CacheRead += t.CacheRead
	z.CacheWrite += t.CacheWrite
}

// filePlan is what the master random source decided about one file before
// any file is written. A file's contents depend only on its plan, the plan
// of the session it forks, and its own random source.
type filePlan struct {
	claude    bool
	target    int64 // bytes to aim for
	id        string
	cwd       string
	branch    string
	model     string
	start     time.Time
	forkOf    int     // index of the copied session, or -1
	malFrac   float64 // truncate the first eligible line after this fraction of target; <0 none
	paginated bool    // Codex history mode
	rel       string  // path relative to the corpus directory
}

// fileResult is what writing one file produced.
type fileResult struct {
	size      int64
	lines     int
	maxLine   int64
	malformed int
	tokens    Tokens
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
// the same names are overwritten) and returns its manifest, which it also
// writes to dir/manifest.json.
func Generate(dir string, opts Options) (*Manifest, error) {
	opts = opts.withDefaults()
	pools()
	plans := makePlans(opts)
	results := make([]fileResult, len(plans))

	// Biggest files first, so the workers finish together.
	order := make([]int, len(plans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return plans[order[a]].target > plans[order[b]].target })

	workers := min(runtime.GOMAXPROCS(0), 8, len(plans))
	jobs := make(chan int)
	var (
		wg      sync.WaitGroup
		errMu   sync.Mutex
		firstEr error
	)
	failed := func() bool { errMu.Lock(); defer errMu.Unlock(); return firstEr != nil }
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				if failed() {
					continue
				}
				res, err := writeFile(dir, opts.Seed, plans, i)
				if err != nil {
					errMu.Lock()
					if firstEr == nil {
						firstEr = err
					}
					errMu.Unlock()
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

	m := buildManifest(opts, plans, results)
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

func buildManifest(opts Options, plans []filePlan, results []fileResult) *Manifest {
	m := &Manifest{Seed: opts.Seed, Files: len(plans), Malformed: []MalformedLine{}}
	sizes := make([]int64, len(results))
	for i, res := range results {
		p := &plans[i]
		sizes[i] = res.size
		m.Bytes += res.size
		m.Lines += int64(res.lines)
		m.LargestLine = max(m.LargestLine, res.maxLine)
		if p.claude {
			m.ClaudeFiles++
			m.Tokens.Claude.Add(res.tokens)
			if p.forkOf >= 0 {
				m.ForkFiles++
			}
		} else {
			m.CodexFiles++
			m.Tokens.Codex.Add(res.tokens)
		}
		if res.malformed > 0 {
			m.Malformed = append(m.Malformed, MalformedLine{Path: p.rel, Line: res.malformed})
		}
	}
	m.Tokens.Total.Add(m.Tokens.Claude)
	m.Tokens.Total.Add(m.Tokens.Codex)
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
	if p.claude {
		res.tokens = writeClaude(o, seed, plans, i)
	} else {
		res.tokens = writeCodex(o, fileRand(seed, i), p)
	}
	if err := o.bw.Flush(); err != nil {
		return res, fmt.Errorf("write %s: %w", path, err)
	}
	res.size, res.lines, res.maxLine, res.malformed = o.n, o.lines, o.maxLine, o.malformed
	return res, nil
}

// makePlans decides every file's kind, size, project, ids, times, forks and
// malformed line from the master random source.
func makePlans(opts Options) []filePlan {
	n := opts.Files
	s := uint64(opts.Seed)
	r := rand.New(rand.NewPCG(splitmix64(&s), 0xc0ffee))

	sizes := planSizes(n, opts.TotalBytes)
	r.Shuffle(n, func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
	nClaude := int(math.Round(float64(n) * opts.ClaudeShare))
	perm := r.Perm(n)

	projects := makeProjects(r, max(2, n/20))
	base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	span := int64(320 * 24 * time.Hour / time.Second)

	plans := make([]filePlan, n)
	for i := range plans {
		p := &plans[i]
		p.claude = perm[i] < nClaude
		p.target = sizes[i]
		p.forkOf = -1
		p.malFrac = -1
		// Skewed: a few projects hold most sessions.
		p.cwd = projects[int(float64(len(projects))*math.Pow(r.Float64(), 2))]
		p.branch = pick(r, []string{"main", "main", "main", "HEAD", "feat/" + pick(r, idents) + "-" + pick(r, idents), "fix/" + pick(r, idents)})
		p.start = base.Add(time.Duration(r.Int64N(span))*time.Second + time.Duration(r.IntN(1000))*time.Millisecond)
		if p.claude {
			p.id = uuid4(r)
			p.model = pick(r, []string{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929",
				"claude-opus-4-5-20251101", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"})
		} else {
			p.id = uuid7(r, p.start.UnixMilli())
			p.model = pick(r, []string{"gpt-5.1-codex", "gpt-5.1-codex", "gpt-5.5", "gpt-5.1-codex-max", "gpt-5.2"})
			p.paginated = chance(r, 0.6)
		}
	}

	planForks(r, plans, nClaude)

	if opts.MalformedEvery > 0 {
		k := max(1, (n+opts.MalformedEvery/2)/opts.MalformedEvery)
		for _, i := range r.Perm(n)[:min(k, n)] {
			plans[i].malFrac = uniform(r, 0.05, 0.9)
		}
	}

	for i := range plans {
		p := &plans[i]
		if p.claude {
			p.rel = "claude/projects/" + encodeProjectDir(p.cwd) + "/" + p.id + ".jsonl"
		} else {
			t := p.start.UTC()
			p.rel = "codex/sessions/" + t.Format("2006/01/02") + "/rollout-" + t.Format("2006-01-02T15-04-05") + "-" + p.id + ".jsonl"
		}
	}
	return plans
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
