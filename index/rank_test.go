package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// prompts writes a Claude session of user prompts (id: each prompt's
// entry id) in a store below dir.
func prompts(t *testing.T, dir, sid string, ps []prompt) {
	t.Helper()
	data, err := promptLines(sid, ps)
	if err != nil {
		t.Fatal(err)
	}
	samples.Write(t, promptsFile(dir, sid), data)
}

func promptsFile(dir, sid string) string {
	return filepath.Join(dir, "projects", "-work-rank", sid+".jsonl")
}

// promptLines is a Claude session of user prompts.
func promptLines(sid string, ps []prompt) ([]byte, error) {
	var b strings.Builder
	parent := any(nil)
	for _, p := range ps {
		rec, err := json.Marshal(map[string]any{"type": "user", "uuid": p.id, "parentUuid": parent, "sessionId": sid,
			"timestamp": p.at.UTC().Format(time.RFC3339Nano), "cwd": "/work/rank",
			"message": map[string]any{"role": "user", "content": p.text}})
		if err != nil {
			return nil, err
		}
		b.Write(rec)
		b.WriteByte('\n')
		parent = p.id
	}
	return []byte(b.String()), nil
}

type prompt struct {
	id   string
	at   time.Time
	text string
}

func uuid(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// TestSearchRanks: hits come best first by BM25 (a word said more often
// in a shorter entry first, a rare word before a common one) weighed by
// age (of two equal entries the newer first); a word found in more
// entries than index.Candidates is ranked among its most recent matches.
func TestSearchRanks(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	day := now.Add(-24 * time.Hour)
	filler := strings.Repeat("some unrelated words about other things ", 20)
	ps := []prompt{
		{uuid(1), day, "the migration failed"},
		{uuid(2), day, "migration migration migration again"},
		{uuid(3), day, filler + "and a migration " + filler},
		{uuid(4), day, "deploy the build"},
		{uuid(5), now.Add(-400 * 24 * time.Hour), "deploy the build"},
		{uuid(6), day, "a quokka note"},
	}
	for i := range 10 {
		ps = append(ps, prompt{uuid(100 + i), day, "a zebra note"})
	}
	prompts(t, dir, "11111111-0000-4000-8000-000000000001", ps)
	var many []prompt
	for i := range index.Candidates + 100 {
		many = append(many, prompt{uuid(10000 + i), day.Add(time.Duration(i) * time.Second), "a commonplace remark"})
	}
	prompts(t, dir, "11111111-0000-4000-8000-000000000002", many)
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": dir}}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	refresh(t, ix, env)

	order := func(q string, n int) []string {
		var ids []string
		for _, h := range search(t, ix, index.Query{Text: q, Limit: n}) {
			ids = append(ids, h.Entry)
		}
		return ids
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"migration", []string{uuid(2), uuid(1), uuid(3)}},
		{"deploy", []string{uuid(4), uuid(5)}},
		{"quokka OR zebra", []string{uuid(6)}},
	} {
		got := order(c.query, 20)
		if len(got) < len(c.want) || strings.Join(got[:len(c.want)], " ") != strings.Join(c.want, " ") {
			t.Errorf("search %s: hits %v; want first %v", c.query, got, c.want)
		}
	}
	got := order("commonplace", 30)
	if len(got) != 30 {
		t.Fatalf("search commonplace: %d hits; want 30", len(got))
	}
	oldest := uuid(10000 + 100) // the first of the Candidates most recent
	for _, id := range got {
		if id < oldest {
			t.Errorf("search commonplace: hit %s is older than the %d most recent matches", id, index.Candidates)
		}
	}
	if got[0] != uuid(10000+index.Candidates+99) {
		t.Errorf("search commonplace: first hit %s; want the newest of equal entries, %s", got[0], uuid(10000+index.Candidates+99))
	}
}

// TestSearchFresh: a search brought up to date finds what was written
// after the index was last refreshed, and what was removed since is not
// found.
func TestSearchFresh(t *testing.T) {
	dir := t.TempDir()
	day := time.Now().Add(-24 * time.Hour)
	prompts(t, dir, "22222222-0000-4000-8000-000000000001", []prompt{{uuid(1), day, "an okapi sighting"}})
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": dir}}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	refresh(t, ix, env)
	prompts(t, dir, "22222222-0000-4000-8000-000000000002", []prompt{{uuid(2), day, "another okapi sighting"}})
	hits, res, err := ix.SearchFresh(context.Background(), env, index.Query{Text: "okapi"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || len(hits) != 2 {
		t.Errorf("after a session was written: refresh %+v, %d hits; want 1 added, 2 hits", res, len(hits))
	}
	if err := os.Remove(promptsFile(dir, "22222222-0000-4000-8000-000000000001")); err != nil {
		t.Fatal(err)
	}
	hits, res, err = ix.SearchFresh(context.Background(), env, index.Query{Text: "okapi"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || len(hits) != 1 || hits[0].Entry != uuid(2) {
		t.Errorf("after a session was removed: refresh %+v, hits %+v; want 1 removed, the other session's hit", res, hits)
	}
}

// TestSearchBesideRefresh: searches running while refreshes rewrite the
// session they find never fail and always find it. (A search reads in one
// transaction; before it did, a refresh could drop a candidate's session
// between two of its queries, a window too narrow for this test to hit
// reliably.)
func TestSearchBesideRefresh(t *testing.T) {
	dir := t.TempDir()
	day := time.Now().Add(-24 * time.Hour)
	ps := []prompt{{uuid(1), day, "an okapi sighting"}}
	prompts(t, dir, "44444444-0000-4000-8000-000000000001", ps)
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": dir}}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	refresh(t, ix, env)
	ctx := context.Background()
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		for i := range 10 {
			ps = append(ps, prompt{uuid(2 + i), day, "another okapi sighting"})
			data, err := promptLines("44444444-0000-4000-8000-000000000001", ps)
			if err == nil {
				err = os.WriteFile(promptsFile(dir, "44444444-0000-4000-8000-000000000001"), data, 0o644)
			}
			if err == nil {
				_, err = ix.Refresh(ctx, env, nil)
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	searches := 0
	for running := true; running; searches++ {
		select {
		case <-done:
			running = false
		default:
		}
		hits, err := ix.Search(ctx, index.Query{Text: "okapi"})
		if err != nil {
			t.Fatalf("search %d beside a refresh: %v", searches, err)
		}
		if len(hits) == 0 {
			t.Fatalf("search %d beside a refresh found nothing", searches)
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	t.Logf("%d searches beside 10 refreshes", searches)
}

// TestPhrases: a phrase's words in order, whatever lies between them but
// words, found however many more recent entries hold them otherwise; a
// term such as src/main.go is a phrase.
func TestPhrases(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	texts := []string{
		"run the tests now",            // 1
		"the tests run",                // 2: the words, not in order
		"Run, the TESTS!",              // 3: punctuation and case between
		"edit src/main.go then build",  // 4
		"src main go, all three words", // 5: a phrase too, for the tokenizer
		"go main src in reverse",       // 6
		"run the testsuite",            // 7: a prefix of the last word
		"ran the tests",                // 8
		"a needle in order, found behind its decoys",
	}
	var ps []prompt
	for i, text := range texts {
		ps = append(ps, prompt{uuid(i + 1), day.Add(time.Duration(i) * time.Minute), text})
	}
	// More recent than the needle, more decoys than a search ranks: all
	// the words, not in order.
	for i := range index.Candidates + 100 {
		ps = append(ps, prompt{uuid(100 + i), day.Add(time.Hour + time.Duration(i)*time.Second), "in order, a needle"})
	}
	prompts(t, dir, "11111111-0000-4000-8000-000000000009", ps)
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": dir}}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	refresh(t, ix, env)
	for _, c := range []struct {
		query string
		want  []int
	}{
		{`"run the tests"`, []int{1, 3}},
		{`"run the tests"*`, []int{1, 3, 7}},
		{`"the tests"`, []int{1, 2, 3, 8}},
		{`src/main.go`, []int{4, 5}},
		{`"main src"`, []int{6}},
		{`tests -"run the"`, []int{2, 8}},
		{`"run the tests" OR "go main"`, []int{1, 3, 6}},
		{`the -"the tests"`, []int{7}},
		{`"tests run" OR "src main" -go`, []int{2}},
		{`"tests now" src`, nil},
		{`"a needle in order"`, []int{9}},
	} {
		var got []string
		for _, h := range search(t, ix, index.Query{Text: c.query}) {
			got = append(got, h.Entry)
		}
		var want []string
		for _, n := range c.want {
			want = append(want, uuid(n))
		}
		slices.Sort(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("search %s: %v; want %v", c.query, got, want)
		}
	}
}
