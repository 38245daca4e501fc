package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// counting counts the summaries a cache answered.
type counting struct {
	*index.Cache
	hits atomic.Int64
}

func (c *counting) Summary(ref session.Ref, d session.Detail) (session.Summary, bool) {
	s, ok := c.Cache.Summary(ref, d)
	if ok {
		c.hits.Add(1)
	}
	return s, ok
}

// shown is what list or stats shows of a scan: at list detail the
// listing's fields, at full detail whole summaries with their usage
// buckets and responses; and the warnings.
func shown(t *testing.T, res *catalog.Result, d session.Detail) string {
	t.Helper()
	var b strings.Builder
	for _, s := range res.Summaries {
		var v any = struct {
			session.Summary
			Buckets   []session.UsageBucket
			Responses []session.ResponseUsage
		}{s, s.Buckets, s.Responses}
		if d == session.DetailList {
			v = []any{s.CLI, s.ID, s.Project, s.Title, s.Start, s.End, s.Messages, s.Turns, s.Path, s.Size, s.Parent}
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// TestCacheAnswersAsAScan: list and stats give the same sessions, figures
// and warnings from a fresh index as from a scan of the stores, over the
// store of every CLI's testdata case, the stores of the five real CLIs'
// conversation, and a generated store of all five; and the index answered
// every session it holds.
func TestCacheAnswersAsAScan(t *testing.T) {
	stores := map[string]func(t *testing.T) (session.Env, bool){
		"all-clis": func(t *testing.T) (session.Env, bool) { return samples.AllCLIs(t), true },
		"corpus": func(t *testing.T) (session.Env, bool) {
			dir := t.TempDir()
			if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 5, Files: 60, TotalBytes: 8 << 20, Mix: corpusgen.EqualMix()}); err != nil {
				t.Fatal(err)
			}
			env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
			for _, kv := range corpusgen.Env(dir) {
				k, v, _ := strings.Cut(kv, "=")
				env.Vars[k] = v
			}
			return env, true
		},
	}
	_, here, _, _ := runtime.Caller(0)
	for _, a := range adapters.All {
		cases, _ := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "adapters", a.Name, "testdata", "*.txtar"))
		for _, c := range cases {
			stores[a.Name+"/"+strings.TrimSuffix(filepath.Base(c), ".txtar")] = func(t *testing.T) (session.Env, bool) {
				return samples.Store(t, a.Name, c)
			}
		}
	}
	ctx := context.Background()
	stored := 0
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			env, ok := store(t)
			if !ok {
				t.Skip("no store: the case is an export or a lone file")
			}
			path := filepath.Join(t.TempDir(), "index.db")
			ix := openIndex(t, path)
			res := refresh(t, ix, env)
			if res.Sessions == 0 {
				t.Fatalf("the store holds no session the index found: %+v", res)
			}
			stored++
			for _, watched := range []bool{false, true} {
				if watched {
					// A watcher says nothing changed: the stores are
					// listed from the index too.
					watch(t, path, env)
				}
				for _, d := range []session.Detail{session.DetailList, session.DetailFull} {
					want, err := catalog.Scan(ctx, catalog.Options{Env: env, Detail: d})
					if err != nil {
						t.Fatal(err)
					}
					listEnv, cache, err := ix.Cache(ctx, env, d)
					if err != nil {
						t.Fatal(err)
					}
					if cache.Watched() != watched {
						t.Fatalf("detail %d: the cache says watched %v; want %v", d, cache.Watched(), watched)
					}
					c := &counting{Cache: cache}
					got, err := catalog.Scan(ctx, catalog.Options{Env: listEnv, Detail: d, Cache: c})
					if err != nil {
						t.Fatal(err)
					}
					if w, g := shown(t, want, d), shown(t, got, d); w != g {
						t.Errorf("detail %d: the index answers otherwise than a scan:\n%s", d, lineDiff(w, g))
					}
					if n := int(c.hits.Load()); n != res.Sessions-countWarned(res) {
						t.Errorf("detail %d: the index answered %d of the %d sessions it holds", d, n, res.Sessions-countWarned(res))
					}
				}
			}
		})
	}
	if stored < len(stores)-5 {
		t.Errorf("only %d stores held sessions", stored)
	}
}

// lineDiff shows the lines of want and got that differ, a few at most.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 4; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			p := 0
			for p < min(len(wl), len(gl)) && wl[p] == gl[p] {
				p++
			}
			p = max(0, p-80)
			fmt.Fprintf(&b, "line %d, from byte %d:\n  scan:  %s\n  index: %s\n", i+1, p, wl[min(p, len(wl)):], gl[min(p, len(gl)):])
			shown++
		}
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "%d lines from a scan, %d from the index\n", len(w), len(g))
	}
	return b.String()
}
