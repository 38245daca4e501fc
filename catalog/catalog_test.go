package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func asst(session, reqSession, msg string, in int) string {
	extra := ""
	if reqSession != "" {
		extra = `,"requestSessionId":"` + reqSession + `"`
	}
	return `{"type":"assistant","message":{"id":"` + msg + `","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":` + strconv.Itoa(in) + `,"output_tokens":1}},"requestId":"r-` + msg + `","uuid":"u-` + msg + `","timestamp":"2026-11-20T10:00:00.000Z","sessionId":"` + session + `"` + extra + "}\n"
}

// TestForkUsageCountedOnce checks that usage a fork copied from its parent
// counts with the parent when both are scanned, and with the fork when the
// parent is gone.
func TestForkUsageCountedOnce(t *testing.T) {
	root := t.TempDir()
	parent, fork := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	write(t, filepath.Join(root, "projects/-p", parent+".jsonl"), asst(parent, "", "m1", 3)+asst(parent, "", "m2", 4))
	forkData := asst(fork, parent, "m1", 3) + asst(fork, parent, "m2", 4) + asst(fork, "", "m3", 5)
	write(t, filepath.Join(root, "projects/-p", fork+".jsonl"), forkData)
	env := session.Env{Vars: map[string]string{"CLAUDE_CONFIG_DIR": root}}

	res, err := Scan(context.Background(), Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range res.Summaries {
		got[s.ID] = s.Usage.Input
	}
	if got[parent] != 7 || got[fork] != 5 {
		t.Errorf("with the parent: %v, want parent 7 and fork 5", got)
	}

	os.Remove(filepath.Join(root, "projects/-p", parent+".jsonl"))
	res, err = Scan(context.Background(), Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summaries) != 1 || res.Summaries[0].Usage.Input != 12 {
		t.Errorf("without the parent: %+v, want the fork with 12", res.Summaries)
	}
}

func TestScanReportsUnreadableFilesAndUnknownCLIs(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "projects/-p/33333333-3333-4333-8333-333333333333.jsonl"), asst("33333333-3333-4333-8333-333333333333", "", "m", 1))
	env := session.Env{Vars: map[string]string{"CLAUDE_CONFIG_DIR": root}}
	refs, _, _ := Discover(Options{Env: env})
	refs = append(refs, session.Ref{CLI: session.Claude, ID: "gone", Path: filepath.Join(root, "gone.jsonl")})
	res, err := Summarize(context.Background(), Options{Env: env}, refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summaries) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "cannot read") {
		t.Errorf("summaries %d, warnings %+v", len(res.Summaries), res.Warnings)
	}
	if _, err := Scan(context.Background(), Options{Env: env, CLIs: []string{"vim"}}); err == nil {
		t.Error("unknown CLI accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, Options{Env: env}); err == nil {
		t.Error("cancelled scan returned no error")
	}
}

func TestFilter(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	s := session.Summary{Project: "/home/u/work/app", Start: day(10), End: day(12)}
	sub := s
	sub.Parent = &session.Link{Kind: session.LinkSubagent, ID: "x"}
	for _, tt := range []struct {
		f    Filter
		s    session.Summary
		keep bool
	}{
		{Filter{}, s, true},
		{Filter{}, sub, false},
		{Filter{Subagents: true}, sub, true},
		{Filter{Project: "/home/u/work"}, s, true},
		{Filter{Project: "/home/u/wor"}, s, false},
		{Filter{Project: "app"}, s, true},
		{Filter{Since: day(11)}, s, true},
		{Filter{Since: day(13)}, s, false},
		{Filter{Until: day(9)}, s, false},
		{Filter{Until: day(11)}, s, true},
	} {
		if got := tt.f.Keep(&tt.s); got != tt.keep {
			t.Errorf("%+v keeps %v: %v", tt.f, tt.s.Project, got)
		}
	}
}

// copied is the summary of a session stead wrote at written from the
// session from, with borrowed usage of in input tokens.
func copied(cli, id, from string, written time.Time, in int64) session.Summary {
	s := session.Summary{CLI: cli, ID: id, Path: "/" + cli + "/" + id, Start: written, End: written,
		History: &session.History{From: from, Written: written, Start: written.AddDate(0, 0, -4), End: written.AddDate(0, 0, -4)}}
	s.AddBorrowed(from, written.AddDate(0, 0, -4), "m", session.Usage{Input: in})
	return s
}

// TestCopiesCountOnce: usage stead copied from a session of another CLI
// is dropped when that session is scanned too; otherwise it counts once,
// with the copy holding the most of it.
func TestCopiesCountOnce(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	from := session.OriginKey(session.Claude, "c1")
	source := session.Summary{CLI: session.Claude, ID: "c1", Usage: session.Usage{Input: 10}}
	sums := []session.Summary{source, copied(session.Codex, "x1", from, now, 10), copied(session.Gemini, "g1", from, now, 10)}
	settleBorrowed(sums)
	for _, s := range sums[1:] {
		if !s.Usage.IsZero() || s.Borrowed != nil {
			t.Errorf("with the source: the %s copy counts %+v (borrowed %v)", s.CLI, s.Usage, s.Borrowed)
		}
	}
	// A fork cut early holds less of the history than a whole copy.
	sums = []session.Summary{copied(session.Codex, "x1", from, now, 4), copied(session.Gemini, "g1", from, now.Add(time.Hour), 10),
		copied(session.Kimi, "k1", from, now, 10)}
	settleBorrowed(sums)
	got := map[string]int64{}
	for _, s := range sums {
		got[s.CLI] = s.Usage.Input
	}
	if got[session.Codex] != 0 || got[session.Gemini] != 0 || got[session.Kimi] != 10 {
		t.Errorf("without the source: %v, want the earliest whole copy (kimi) to count 10", got)
	}
	if h := sums[2].History; h.Adopted.Input != 10 || h.AdoptedModels["m"].Input != 10 {
		t.Errorf("the adopted history: %+v", h)
	}
}

// TestSelectAdoptedHistory: a copy that counts its source's history
// counts it in the history's own period only.
func TestSelectAdoptedHistory(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := copied(session.Codex, "x1", session.OriginKey(session.Claude, "c1"), now, 10)
	s.AddUsage(now.Add(time.Minute), "own", session.Usage{Input: 3})
	s.Turns = 1
	sums := []session.Summary{s}
	settleBorrowed(sums)
	s = sums[0]
	if s.Usage.Input != 13 {
		t.Fatalf("usage %+v, want own and adopted", s.Usage)
	}
	for _, tt := range []struct {
		f      Filter
		keep   bool
		input  int64
		turns  int
		models int
	}{
		{Filter{}, true, 13, 1, 2},
		{Filter{Since: now.Add(-time.Hour)}, true, 3, 1, 1},
		{Filter{Until: now.AddDate(0, 0, -1)}, true, 10, 0, 1},
		{Filter{Since: now.AddDate(0, 0, -5)}, true, 13, 1, 2},
		{Filter{Since: now.AddDate(0, 0, -3), Until: now.AddDate(0, 0, -2)}, false, 0, 0, 0},
	} {
		got, keep := tt.f.Select(s)
		if keep != tt.keep || keep && (got.Usage.Input != tt.input || got.Turns != tt.turns || len(got.Models) != tt.models) {
			t.Errorf("since %v until %v: keep %v, input %d, turns %d, models %v", tt.f.Since, tt.f.Until, keep, got.Usage.Input, got.Turns, got.Models)
		}
		if u, _ := session.SumBuckets(got.Buckets); keep && u != got.Usage {
			t.Errorf("since %v until %v: buckets add up to %+v, usage %+v", tt.f.Since, tt.f.Until, u, got.Usage)
		}
	}
	if s.Usage.Input != 13 || len(s.Models) != 2 {
		t.Errorf("Select changed the summary it was given: %+v", s)
	}
}
