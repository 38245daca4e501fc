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

// TestOpenOutline reads every testdata session of each CLI with
// OpenOutline twice over: for its outline, then its entries again with
// NewDecoder, each completed by the outline. The result is what Open
// gives, field for field.
func TestOpenOutline(t *testing.T) {
	for _, a := range adapters.All {
		if !a.Reads() || a.OpenOutline == nil {
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
				outline := session.NewOutline()
				s, oneFile, err := a.OpenOutline(env, ref, session.ReadOptions{Outline: outline,
					Records: func(r session.Record) { records = append(records, r) }})
				if err != nil {
					t.Fatal(err)
				}
				if len(s.Timeline) != 0 {
					t.Fatalf("%d entries kept beside the outline", len(s.Timeline))
				}
				fork := strings.HasPrefix(filepath.Base(c), "fork-paginated-")
				if oneFile == fork {
					t.Fatalf("OpenOutline says one file: %v, for a case that is a fork: %v", oneFile, fork)
				}
				if !oneFile {
					// Entries come from the parent's file too: an export
					// reads such a session whole.
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
				if len(raw) != outline.Len() {
					t.Fatalf("%d entries read again, %d outlined", len(raw), outline.Len())
				}
				if n := len(raw); n > 1 {
					last := raw[n-1]
					if outline.Complete(&last) {
						t.Fatal("the last entry passes for the first")
					}
				}
				for i := range raw {
					if !outline.Complete(&raw[i]) {
						t.Fatalf("entry %d (%s %s) is not the one outlined", i, raw[i].Type, raw[i].ID)
					}
				}
				s.Timeline = raw
				s.Records = records
				if got, want := jsonOf(t, s), jsonOf(t, whole); got != want {
					t.Errorf("read for its outline then again:\n%.2000s\nread whole:\n%.2000s", got, want)
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
