package adapters_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestOpenLean reads every testdata session of each CLI with OpenLean
// twice over: lean, then its entries again with NewDecoder, each lean
// entry given the content of its raw twin. The result is what Open gives,
// field for field, and the lean timeline holds no content.
func TestOpenLean(t *testing.T) {
	for _, a := range adapters.All {
		if a.OpenLean == nil {
			continue
		}
		cases, _ := filepath.Glob(filepath.Join(a.Name, "testdata", "*.txtar"))
		if len(cases) == 0 {
			t.Fatalf("%s: no testdata", a.Name)
		}
		for _, c := range cases {
			t.Run(a.Name+"/"+filepath.Base(c), func(t *testing.T) {
				env, ref := samples.Layout(t, a, c)
				// A Codex case lays out its store: a fork finds its parent there.
				env.Vars = map[string]string{"CODEX_HOME": env.Home}
				whole, err := a.Open(env, ref)
				if err != nil {
					t.Fatal(err)
				}
				var records []session.Record
				lean, oneFile, err := a.OpenLean(env, ref, session.ReadOptions{Lean: true,
					Records: func(r session.Record) { records = append(records, r) }})
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range lean.Timeline {
					if e.Content != "" || e.Output != "" || (e.Native != nil && e.Native.Record != nil) {
						t.Fatalf("lean entry %s keeps its content", e.ID)
					}
				}
				if fork := strings.HasPrefix(filepath.Base(c), "fork-paginated-with-parent"); oneFile == fork {
					t.Fatalf("OpenLean says one file: %v, for a case that is a fork read with its parent: %v", oneFile, fork)
				}
				if !oneFile {
					// Entries come from the parent's file too: an export
					// reads such a session whole.
					if len(lean.Timeline) != len(whole.Timeline) {
						t.Errorf("%d entries lean, %d whole", len(lean.Timeline), len(whole.Timeline))
					}
					return
				}
				f, err := os.Open(ref.Path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				dec := a.NewDecoder(f)
				var raw []session.Entry
				for {
					ev, err := dec.Decode()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					raw = append(raw, ev.Entries...)
				}
				if len(raw) != len(lean.Timeline) {
					t.Fatalf("%d entries read again, %d lean", len(raw), len(lean.Timeline))
				}
				for i := range raw {
					lean.Timeline[i] = lean.Timeline[i].WithContent(&raw[i])
				}
				lean.Records = records
				if got, want := jsonOf(t, lean), jsonOf(t, whole); got != want {
					t.Errorf("read lean then again:\n%.2000s\nread whole:\n%.2000s", got, want)
				}
			})
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
