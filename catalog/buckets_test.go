package catalog

import (
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// nonZero is m without its models of no usage.
func nonZero(m map[string]session.Usage) map[string]session.Usage {
	out := map[string]session.Usage{}
	for k, u := range m {
		if !u.IsZero() {
			out[k] = u
		}
	}
	return out
}

// checkBuckets fails unless buckets add up to usage, in all and by
// model, and each bucket's responses lie in its quarter hour.
func checkBuckets(t *testing.T, what string, buckets []session.UsageBucket, usage session.Usage, models map[string]session.Usage) {
	t.Helper()
	u, m := session.SumBuckets(buckets)
	if u != usage {
		t.Errorf("%s: buckets add up to %+v, usage is %+v", what, u, usage)
	}
	if want := nonZero(models); !reflect.DeepEqual(m, want) {
		t.Errorf("%s: buckets by model %+v, models %+v", what, m, want)
	}
	for _, b := range buckets {
		if b.Start == session.NoTime {
			continue
		}
		if b.First < 0 || b.Last < b.First || time.Duration(b.Last)*time.Millisecond >= session.BucketSize {
			t.Errorf("%s: bucket %+v: responses outside its quarter hour", what, b)
		}
	}
}

// checkSummary checks a summary's own, borrowed and adopted buckets.
func checkSummary(t *testing.T, s *session.Summary) {
	t.Helper()
	name := s.CLI + ":" + s.ID + " (" + filepath.Base(s.Path) + ")"
	checkBuckets(t, name, s.Buckets, s.Usage, s.Models)
	for origin, b := range s.Borrowed {
		checkBuckets(t, name+" borrowed from "+origin, b.Buckets, b.Usage, b.Models)
	}
	if h := s.History; h != nil {
		checkBuckets(t, name+" adopted history", h.AdoptedBuckets, h.Adopted, h.AdoptedModels)
	}
}

// checkScan checks every summary of a scan, and that usage grouped by
// day, by block and by model adds up to the summaries' usage.
func checkScan(t *testing.T, res *Result) {
	t.Helper()
	var total session.Usage
	for i := range res.Summaries {
		checkSummary(t, &res.Summaries[i])
		total.Add(res.Summaries[i].Usage)
	}
	for _, opts := range []UsageOptions{{Period: Day}, {Period: Block, ByModel: true}, {Period: Month, ByCLI: true, ByProject: true}} {
		rep := UsageOver(res.Summaries, opts)
		var sum session.Usage
		for _, g := range rep.Groups {
			sum.Add(g.Usage)
		}
		if sum != total || rep.Total.Usage != total {
			t.Errorf("%+v: groups add up to %+v, total %+v, sessions %+v", opts, sum, rep.Total.Usage, total)
		}
	}
	if total.IsZero() {
		t.Error("no usage scanned")
	}
}

// TestBucketsAddUp checks that the usage a summary keeps by quarter hour
// and model adds up to its usage exactly, copied responses (Borrowed,
// History) left out of both alike: for every testdata case of every
// adapter summarised alone, for the testdata stores scanned together
// (forks settled, responses copied into several files counted once), and
// for a generated corpus of every CLI with forks and malformed lines.
func TestBucketsAddUp(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	for _, a := range adapters.All {
		if !a.Reads() {
			continue
		}
		cases, _ := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "adapters", a.Name, "testdata", "*.txtar"))
		if len(cases) == 0 {
			t.Errorf("%s: no testdata", a.Name)
		}
		for _, c := range cases {
			t.Run(a.Name+"/"+strings.TrimSuffix(filepath.Base(c), ".txtar"), func(t *testing.T) {
				_, ref := samples.Layout(t, a, c)
				sum, err := a.SummarizeFile(ref, session.DetailFull)
				if err != nil {
					t.Skip(err) // not a session file (an output sample, a sidecar)
				}
				checkSummary(t, &sum)
			})
		}
	}
	t.Run("stores", func(t *testing.T) {
		res, err := Scan(context.Background(), Options{Env: samples.AllCLIs(t)})
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, res)
	})
	t.Run("corpus", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 3, Files: 100, TotalBytes: 20 << 20, Mix: corpusgen.EqualMix()}); err != nil {
			t.Fatal(err)
		}
		env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
		for _, kv := range corpusgen.Env(dir) {
			k, v, _ := strings.Cut(kv, "=")
			env.Vars[k] = v
		}
		res, err := Scan(context.Background(), Options{Env: env})
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, res)
		clis := map[string]bool{}
		for _, s := range res.Summaries {
			if !s.Usage.IsZero() {
				clis[s.CLI] = true
			}
		}
		if len(clis) != len(corpusgen.CLIs) {
			t.Errorf("usage from %v, want every CLI's", clis)
		}
	})
}
