package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

type statsOut struct {
	Sessions []struct {
		CLI        string          `json:"cli"`
		ID         string          `json:"id"`
		Tokens     tokensJSON      `json:"tokens"`
		ToolCalls  map[string]int  `json:"toolCalls"`
		ToolErrors int             `json:"toolErrors"`
		HasErrors  bool            `json:"hasErrors"`
		Files      []string        `json:"filesModified"`
		Cost       float64         `json:"cost"`
		Models     json.RawMessage `json:"models"`
	} `json:"sessions"`
	Totals struct {
		Sessions int                      `json:"sessions"`
		Tokens   tokensJSON               `json:"tokens"`
		ByCLI    map[string]cliTotalsJSON `json:"byCli"`
		Cost     float64                  `json:"cost"`
		Unpriced []string                 `json:"unpricedModels"`
	} `json:"totals"`
}

func asUsage(t tokensJSON) session.Usage {
	return session.Usage{Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite}
}

// TestStatsTotalsMatchFiles checks stats --json against sums of the usage
// records read independently from the files: every Claude response counted
// once across all files (by message id and request id, as ccusage does),
// and Codex token_count events by ccusage's rules.
func TestStatsTotalsMatchFiles(t *testing.T) {
	env := homes(t)
	var out statsOut
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "stats", "--json", "--subagents")), &out); err != nil {
		t.Fatal(err)
	}
	var claudeWant, codexWant session.Usage
	seen := map[string]bool{}
	filepath.Walk(env.Vars["CLAUDE_CONFIG_DIR"], func(p string, info os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		readLines(t, p, func(r map[string]any) {
			m := obj(r["message"])
			u := obj(m["usage"])
			if str(r["type"]) != "assistant" || u == nil || str(m["model"]) == "<synthetic>" {
				return
			}
			key := str(m["id"]) + "/" + str(r["requestId"])
			if seen[key] {
				return
			}
			seen[key] = true
			claudeWant.Add(session.Usage{Input: num(u["input_tokens"]), Output: num(u["output_tokens"]),
				CacheRead: num(u["cache_read_input_tokens"]), CacheWrite: num(u["cache_creation_input_tokens"])})
		})
		return nil
	})
	filepath.Walk(env.Vars["CODEX_HOME"], func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			codexWant.Add(expectCodex(t, p).usage)
		}
		return nil
	})
	if got := asUsage(out.Totals.ByCLI["claude"].Tokens); got != claudeWant {
		t.Errorf("claude totals %+v, files say %+v", got, claudeWant)
	}
	if got := asUsage(out.Totals.ByCLI["codex"].Tokens); got != codexWant {
		t.Errorf("codex totals %+v, files say %+v", got, codexWant)
	}
	all := claudeWant
	all.Add(codexWant)
	if got := asUsage(out.Totals.Tokens); got != all {
		t.Errorf("totals %+v, files say %+v", got, all)
	}
	// Per-session figures add up to the totals.
	var sum session.Usage
	for _, s := range out.Sessions {
		sum.Add(asUsage(s.Tokens))
	}
	if sum != all {
		t.Errorf("sessions add up to %+v, totals say %+v", sum, all)
	}
	// Derived figures of a known session.
	for _, s := range out.Sessions {
		if s.ID != "5e55e55e-0000-4000-8000-000000000001" {
			continue
		}
		if !s.HasErrors || s.ToolErrors != 3 || s.ToolCalls["bash"] != 2 || s.ToolCalls["notebook"] != 1 || s.ToolCalls["mcp"] != 1 {
			t.Errorf("synthetic session figures: %+v", s)
		}
		if strings.Join(s.Files, ",") != "/home/dev/proj/notes.md,/home/dev/proj/a.go,/home/dev/proj/n.ipynb" {
			t.Errorf("files modified: %v", s.Files)
		}
		if s.Cost <= 0 {
			t.Errorf("cost not estimated: %v", s.Cost)
		}
	}
}

// TestStatsOnGeneratedCorpus checks stats against the token totals the
// corpus generator recorded while writing a corpus with forks, huge lines
// and malformed lines.
func TestStatsOnGeneratedCorpus(t *testing.T) {
	dir := t.TempDir()
	m, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 7, Files: 80, TotalBytes: 40 << 20})
	if err != nil {
		t.Fatal(err)
	}
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude"), "CODEX_HOME": filepath.Join(dir, "codex")}}
	var out statsOut
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "stats", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	for cli, want := range map[string]corpusgen.Tokens{"claude": m.Tokens.Claude, "codex": m.Tokens.Codex, "total": m.Tokens.Total} {
		got := out.Totals.Tokens
		if cli != "total" {
			got = out.Totals.ByCLI[cli].Tokens
		}
		if got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead || got.CacheWrite != want.CacheWrite {
			t.Errorf("%s: stats %+v, manifest %+v", cli, got, want)
		}
	}
	if out.Totals.Sessions != m.Files {
		t.Errorf("stats counted %d sessions, corpus has %d files", out.Totals.Sessions, m.Files)
	}
	// Every malformed line is reported by file and line.
	var list struct {
		Warnings []session.Warning `json:"warnings"`
	}
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &list)
	reported := map[string]bool{}
	for _, w := range list.Warnings {
		rel, _ := filepath.Rel(dir, w.Path)
		reported[rel+":"+itoa(w.Line)] = true
	}
	for _, bad := range m.Malformed {
		if !reported[bad.Path+":"+itoa(bad.Line)] {
			t.Errorf("malformed line %s:%d not reported", bad.Path, bad.Line)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// byOut is what the tests read of stats --by --json.
type byOut struct {
	By       []string `json:"by"`
	TimeZone string   `json:"timeZone"`
	Groups   []struct {
		Day          string         `json:"day"`
		Week         string         `json:"week"`
		Month        string         `json:"month"`
		Block        string         `json:"block"`
		Start        *string        `json:"start"`
		End          *string        `json:"end"`
		Active       *bool          `json:"active"`
		CLI          *string        `json:"cli"`
		Project      *string        `json:"project"`
		Model        *string        `json:"model"`
		Sessions     int            `json:"sessions"`
		Responses    int            `json:"responses"`
		LastResponse *string        `json:"lastResponse"`
		Tokens       tokensJSON     `json:"tokens"`
		Cost         float64        `json:"cost"`
		Models       map[string]any `json:"models"`
	} `json:"groups"`
	Totals struct {
		Sessions  int        `json:"sessions"`
		Responses int        `json:"responses"`
		Tokens    tokensJSON `json:"tokens"`
		Cost      float64    `json:"cost"`
	} `json:"totals"`
	ActiveBlock *struct {
		Start            string     `json:"start"`
		End              string     `json:"end"`
		FirstResponse    string     `json:"firstResponse"`
		LastResponse     string     `json:"lastResponse"`
		Tokens           tokensJSON `json:"tokens"`
		Cost             float64    `json:"cost"`
		RemainingMinutes float64    `json:"remainingMinutes"`
		BurnRate         *struct {
			TokensPerMinute            float64 `json:"tokensPerMinute"`
			InputOutputTokensPerMinute float64 `json:"inputOutputTokensPerMinute"`
			CostPerHour                float64 `json:"costPerHour"`
		} `json:"burnRate"`
		Projected *struct {
			Tokens int64   `json:"tokens"`
			Cost   float64 `json:"cost"`
		} `json:"projected"`
	} `json:"activeBlock"`
}

func statsBy(t *testing.T, env session.Env, args ...string) byOut {
	t.Helper()
	var out byOut
	if err := json.Unmarshal([]byte(mustRun(t, env, append([]string{"session", "stats", "--json"}, args...)...)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// byVariants are the --by combinations the tests total.
var byVariants = []string{"day", "week", "month", "block", "cli", "project", "model", "day,model", "week,cli,project",
	"month,model,cli", "block,model", "project,model,cli"}

// checkByTotals checks that usage over time adds up to the per-session
// totals of stats, for every --by variant: the groups' tokens and cost
// add up to the totals, which are stats' own.
func checkByTotals(t *testing.T, env session.Env, args ...string) {
	t.Helper()
	var plain statsOut
	if err := json.Unmarshal([]byte(mustRun(t, env, append([]string{"session", "stats", "--json"}, args...)...)), &plain); err != nil {
		t.Fatal(err)
	}
	if plain.Totals.Tokens.Total == 0 {
		t.Fatal("no usage to group")
	}
	for _, by := range byVariants {
		out := statsBy(t, env, append([]string{"--by", by, "--tz", "Asia/Kathmandu"}, args...)...)
		var sum session.Usage
		var cost float64
		for _, g := range out.Groups {
			sum.Add(asUsage(g.Tokens))
			cost += g.Cost
		}
		if got := asUsage(out.Totals.Tokens); got != asUsage(plain.Totals.Tokens) || sum != got {
			t.Errorf("--by %s: groups add up to %+v, totals %+v; stats totals %+v", by, sum, got, plain.Totals.Tokens)
		}
		if out.Totals.Tokens.Reasoning != plain.Totals.Tokens.Reasoning {
			t.Errorf("--by %s: reasoning %d, stats %d", by, out.Totals.Tokens.Reasoning, plain.Totals.Tokens.Reasoning)
		}
		if math.Abs(cost-plain.Totals.Cost) > 1e-6 || math.Abs(out.Totals.Cost-plain.Totals.Cost) > 1e-6 {
			t.Errorf("--by %s: groups cost %v, totals %v; stats %v", by, cost, out.Totals.Cost, plain.Totals.Cost)
		}
	}
}

// TestStatsByAddsUp: usage by day, week, month, block, CLI, project and
// model adds up to the per-session totals, over the testdata of every
// CLI and over a generated corpus of every CLI with forks and malformed
// lines, whose manifest's totals they equal.
func TestStatsByAddsUp(t *testing.T) {
	t.Run("testdata", func(t *testing.T) { checkByTotals(t, samples.AllCLIs(t), "--subagents") })
	t.Run("corpus", func(t *testing.T) {
		dir := t.TempDir()
		m, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 11, Files: 100, TotalBytes: 20 << 20, Mix: corpusgen.EqualMix()})
		if err != nil {
			t.Fatal(err)
		}
		env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
		for _, kv := range corpusgen.Env(dir) {
			k, v, _ := strings.Cut(kv, "=")
			env.Vars[k] = v
		}
		checkByTotals(t, env)
		out := statsBy(t, env, "--by", "day", "--tz", "UTC")
		if got, want := out.Totals.Tokens, m.Tokens.Total; got.Input != want.Input || got.Output != want.Output ||
			got.CacheRead != want.CacheRead || got.CacheWrite != want.CacheWrite {
			t.Errorf("--by day totals %+v, corpus manifest %+v", got, want)
		}
	})
}

// TestStatsByCopies: a session stead wrote holds its source's history
// with the source's times. Usage over time counts that history once, on
// the day it happened, with the source or (the source gone) with one
// copy, as the per-session totals do.
func TestStatsByCopies(t *testing.T) {
	env, src := copiesHome(t)
	const id = "742233ee-d311-4040-bf40-f490e4667f65"
	cwd := t.TempDir()
	for _, cli := range []string{session.Codex, session.Gemini, session.OpenCode, session.Kimi} {
		mustRun(t, env, "session", "convert", "claude:"+id, "--to", cli, "--install", "--cwd", cwd)
	}
	historyDay := time.Now().UTC().AddDate(0, 0, -4).Format(time.DateOnly)
	check := func(t *testing.T) {
		checkByTotals(t, env)
		out := statsBy(t, env, "--by", "day,cli", "--tz", "UTC")
		if len(out.Groups) != 1 || out.Groups[0].Day != historyDay || out.Groups[0].Tokens.Input != 411 {
			t.Errorf("by day and CLI: %+v, want the history's 411 input tokens on %s, once", out.Groups, historyDay)
		}
		if recent := statsBy(t, env, "--by", "day", "--since", "1h"); len(recent.Groups) != 0 {
			t.Errorf("--since 1h: %+v, want none of the history's usage", recent.Groups)
		}
	}
	t.Run("with the source", check)
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	t.Run("without", check)
}

// TestStatsByActiveBlock: the block still running reports its burn rate
// (its usage over the time from its first response to its last, as
// ccusage computes it) and its projected usage at its end.
func TestStatsByActiveBlock(t *testing.T) {
	root := t.TempDir()
	now := time.Now().UTC()
	const sid = "ac71feb1-0000-4000-8000-000000000001"
	var data strings.Builder
	for i, ago := range []time.Duration{50 * time.Minute, 20 * time.Minute, 5 * time.Minute} {
		n := strconv.Itoa(i)
		data.WriteString(`{"type":"assistant","timestamp":"` + now.Add(-ago).Format(time.RFC3339Nano) + `","sessionId":"` + sid +
			`","requestId":"r` + n + `","uuid":"u` + n + `","cwd":"/p","message":{"id":"m` + n +
			`","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],` +
			`"usage":{"input_tokens":1000,"output_tokens":100,"cache_read_input_tokens":5000,"cache_creation_input_tokens":300}}}` + "\n")
	}
	write(t, filepath.Join(root, "projects", "-p", sid+".jsonl"), []byte(data.String()))
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": root, "CODEX_HOME": filepath.Join(root, "none")}}

	out := statsBy(t, env, "--by", "block")
	a := out.ActiveBlock
	if a == nil || len(out.Groups) != 1 || out.Groups[0].Active == nil || !*out.Groups[0].Active {
		t.Fatalf("no active block: %+v", out)
	}
	start := now.Add(-50 * time.Minute).Truncate(time.Hour).Format("2006-01-02T15:04:05.000Z")
	if a.Start != start || a.Tokens.Total != 3*6400 || a.BurnRate == nil || a.Projected == nil {
		t.Fatalf("active block %+v, want one from %s with 19200 tokens", a, start)
	}
	if r := a.BurnRate.TokensPerMinute; math.Abs(r-19200.0/45) > 0.01 {
		t.Errorf("burn rate %v tokens/min, want 19200 over 45 minutes", r)
	}
	if r := a.BurnRate.InputOutputTokensPerMinute; math.Abs(r-3300.0/45) > 0.01 {
		t.Errorf("input and output burn rate %v tokens/min, want 3300 over 45 minutes", r)
	}
	if r := a.BurnRate.CostPerHour; math.Abs(r-a.Cost/45*60) > 1e-9 || a.Cost <= 0 {
		t.Errorf("cost per hour %v, block cost %v", r, a.Cost)
	}
	want := 19200 + a.BurnRate.TokensPerMinute*a.RemainingMinutes
	if math.Abs(float64(a.Projected.Tokens)-want) > 1 || a.RemainingMinutes <= 0 || a.RemainingMinutes > 300 {
		t.Errorf("projected %d tokens with %v minutes left, want %v", a.Projected.Tokens, a.RemainingMinutes, want)
	}
	// Split by model, the active block is still the whole block.
	var split struct {
		ActiveBlock map[string]any `json:"activeBlock"`
	}
	json.Unmarshal([]byte(mustRun(t, env, "session", "stats", "--json", "--by", "block,model")), &split)
	if _, has := split.ActiveBlock["model"]; has || split.ActiveBlock["start"] != start {
		t.Errorf("--by block,model: active block %v, want the whole block, with no model", split.ActiveBlock)
	}
	table := mustRun(t, env, "session", "stats", "--by", "block", "--tz", "UTC")
	for _, s := range []string{"BLOCK", "(active)", "TOTAL", "Active block", "Burn rate:", "Projected by"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	// --until keeps the responses made by then.
	later := statsBy(t, env, "--by", "block", "--until", now.Add(-time.Minute).Format(time.RFC3339))
	if later.Totals.Responses != 3 {
		t.Errorf("--until a minute ago: %d responses, want 3", later.Totals.Responses)
	}
	if early := statsBy(t, env, "--by", "block", "--until", now.Add(-30*time.Minute).Format(time.RFC3339)); early.Totals.Responses != 1 {
		t.Errorf("--until 30 minutes ago: %d responses, want 1", early.Totals.Responses)
	}
}

func TestStatsByTable(t *testing.T) {
	env := homes(t)
	out := mustRun(t, env, "session", "stats", "--by", "day,cli,model", "--tz", "UTC", "--subagents")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "DAY") || !strings.Contains(lines[0], "CLI") || !strings.Contains(lines[0], "MODEL") ||
		!strings.Contains(lines[0], "COST") {
		t.Errorf("header %q", lines[0])
	}
	total := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "TOTAL") {
			total = i
		}
	}
	if total < 2 || !strings.Contains(out, "Times in UTC.") {
		t.Errorf("no rows before the totals, or no time zone note:\n%s", out)
	}
	week := mustRun(t, env, "session", "stats", "--by", "week", "--start-of-week", "sunday", "--tz", "UTC")
	if !strings.Contains(week, "weeks start on Sunday") {
		t.Errorf("--by week --start-of-week sunday:\n%s", week)
	}
}

func TestStatsByFlags(t *testing.T) {
	env := homes(t)
	for _, args := range [][]string{
		{"--by", "hour"},
		{"--by", "day,week"},
		{"--by", "model,model"},
		{"--by", "day", "--tz", "Mars/Olympus"},
		{"--by", "week", "--start-of-week", "funday"},
	} {
		_, errOut, code := run(t, env, append([]string{"session", "stats"}, args...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want a usage error\n%s", args, code, errOut)
		}
	}
	// A date in --since is a day of --tz: 23:50 UTC on the 20th is the
	// 21st in Paris.
	root := t.TempDir()
	const sid = "da7e0000-0000-4000-8000-000000000001"
	write(t, filepath.Join(root, "projects", "-p", sid+".jsonl"), []byte(`{"type":"assistant","timestamp":"2026-11-20T23:50:00.000Z","sessionId":"`+sid+
		`","requestId":"r","uuid":"u","cwd":"/p","message":{"id":"m","role":"assistant","model":"m","content":[],"usage":{"input_tokens":7,"output_tokens":1}}}`+"\n"))
	env = session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": root, "CODEX_HOME": filepath.Join(root, "none")}}
	for tz, days := range map[string]string{"UTC": "2026-11-20", "Europe/Paris": "2026-11-21"} {
		out := statsBy(t, env, "--by", "day", "--tz", tz)
		if len(out.Groups) != 1 || out.Groups[0].Day != days || out.TimeZone != tz {
			t.Errorf("--tz %s: %+v, want the day %s", tz, out.Groups, days)
		}
		if got := statsBy(t, env, "--by", "day", "--tz", tz, "--since", "2026-11-21"); (len(got.Groups) == 1) != (tz != "UTC") {
			t.Errorf("--tz %s --since 2026-11-21: %+v", tz, got.Groups)
		}
	}
}

// TestStatsByMatchesCcusage compares usage by day (in three time zones),
// by day and model, and by billing block with ccusage's daily and blocks
// reports on a generated corpus of Claude Code and Codex sessions. It
// runs when ccusage is installed: $CCUSAGE, or ccusage on PATH (npm
// install ccusage@20.0.24).
func TestStatsByMatchesCcusage(t *testing.T) {
	ccusage := os.Getenv("CCUSAGE")
	if ccusage == "" {
		var err error
		if ccusage, err = exec.LookPath("ccusage"); err != nil {
			if os.Getenv("STEAD_REQUIRE_CLIS") != "" {
				t.Fatal("ccusage is not installed (STEAD_REQUIRE_CLIS is set): npm install ccusage@20.0.24, or set CCUSAGE")
			}
			t.Skip("ccusage not installed: npm install ccusage@20.0.24, or set CCUSAGE")
		}
	}
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 1, Files: 300, TotalBytes: 100 << 20}); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude"), "CODEX_HOME": filepath.Join(dir, "codex")}}
	cc := func(v any, args ...string) {
		t.Helper()
		cmd := exec.Command(ccusage, append(args, "--json", "--offline")...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CLAUDE_CONFIG_DIR=" + env.Vars["CLAUDE_CONFIG_DIR"],
			"CODEX_HOME=" + env.Vars["CODEX_HOME"]}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ccusage %v: %v", args, err)
		}
		if err := json.Unmarshal(out, v); err != nil {
			t.Fatal(err)
		}
	}
	type counts struct{ Input, Output, CacheRead, CacheWrite int64 }
	type daily struct {
		Daily []struct {
			Period          string `json:"period"`
			InputTokens     int64  `json:"inputTokens"`
			OutputTokens    int64  `json:"outputTokens"`
			CacheRead       int64  `json:"cacheReadTokens"`
			CacheWrite      int64  `json:"cacheCreationTokens"`
			ModelBreakdowns []struct {
				Model      string `json:"modelName"`
				Input      int64  `json:"inputTokens"`
				Output     int64  `json:"outputTokens"`
				CacheRead  int64  `json:"cacheReadTokens"`
				CacheWrite int64  `json:"cacheCreationTokens"`
			} `json:"modelBreakdowns"`
		} `json:"daily"`
	}
	ours := func(tk tokensJSON) counts { return counts{tk.Input, tk.Output, tk.CacheRead, tk.CacheWrite} }
	for _, tz := range []string{"UTC", "Asia/Kathmandu", "America/Los_Angeles"} {
		var theirs daily
		cc(&theirs, "daily", "-z", tz)
		want, wantModels := map[string]counts{}, map[string]counts{}
		for _, d := range theirs.Daily {
			want[d.Period] = counts{d.InputTokens, d.OutputTokens, d.CacheRead, d.CacheWrite}
			for _, m := range d.ModelBreakdowns {
				wantModels[d.Period+" "+m.Model] = counts{m.Input, m.Output, m.CacheRead, m.CacheWrite}
			}
		}
		got, gotModels := map[string]counts{}, map[string]counts{}
		for _, g := range statsBy(t, env, "--by", "day", "--tz", tz, "--subagents").Groups {
			got[g.Day] = ours(g.Tokens)
		}
		for _, g := range statsBy(t, env, "--by", "day,model", "--tz", tz, "--subagents").Groups {
			gotModels[g.Day+" "+*g.Model] = ours(g.Tokens)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d days, ccusage %d; first difference: %s", tz, len(got), len(want), firstMapDiff(got, want))
		}
		if !reflect.DeepEqual(gotModels, wantModels) {
			t.Errorf("%s: by day and model %d rows, ccusage %d; first difference: %s", tz, len(gotModels), len(wantModels), firstMapDiff(gotModels, wantModels))
		}
	}

	// ccusage's blocks report reads Claude Code only.
	var blocks struct {
		Blocks []struct {
			Start   string `json:"startTime"`
			End     string `json:"actualEndTime"`
			IsGap   bool   `json:"isGap"`
			Entries int    `json:"entries"`
			Tokens  struct {
				Input      int64 `json:"inputTokens"`
				Output     int64 `json:"outputTokens"`
				CacheRead  int64 `json:"cacheReadInputTokens"`
				CacheWrite int64 `json:"cacheCreationInputTokens"`
			} `json:"tokenCounts"`
		} `json:"blocks"`
	}
	cc(&blocks, "blocks")
	type block struct {
		counts    counts
		responses int
		last      string
	}
	want := map[string]block{}
	for _, b := range blocks.Blocks {
		if !b.IsGap {
			want[b.Start] = block{counts{b.Tokens.Input, b.Tokens.Output, b.Tokens.CacheRead, b.Tokens.CacheWrite}, b.Entries, b.End}
		}
	}
	got := map[string]block{}
	for _, g := range statsBy(t, env, "--by", "block", "--cli", "claude", "--subagents").Groups {
		got[g.Block] = block{ours(g.Tokens), g.Responses, deref(g.LastResponse)}
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d blocks, ccusage %d; first difference: %s", len(got), len(want), firstMapDiff(got, want))
	}
}

// firstMapDiff names the first key, in order, whose values differ.
func firstMapDiff[V any](got, want map[string]V) string {
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		g, gok := got[k]
		w, wok := want[k]
		if gok != wok || !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s: stead %+v (%v), ccusage %+v (%v)", k, g, gok, w, wok)
		}
	}
	return "none"
}
