package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/corpusgen"
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
