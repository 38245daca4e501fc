package scenarios

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stead-dev/stead/adapters"
)

// fileLine is how the parser's own errors start: the file and a line.
var fileLine = regexp.MustCompile(`^fuzz\.yaml:([0-9]+): `)

// FuzzParse parses scenario files, seeded with the ones stead ships. An
// error names the file, and each of the parser's own errors a line of it;
// a scenario it accepts has what running one needs: a name, one start,
// steps of a known kind that each name CLIs stead runs, and project files
// inside the project.
func FuzzParse(f *testing.F) {
	names, _ := fs.Glob(builtin, "*.yaml")
	if len(names) == 0 {
		f.Fatal("no built-in scenarios")
	}
	for _, n := range names {
		data, err := fs.ReadFile(builtin, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\nstart: {file: a.jsonl}\nsteps:\n  - ab: [codex, gemini]\n    prompt: hi\n    model: [{text: ok}]\n  - resume: codex\n    prompt: hi\n    model: [{text: ok}]\n"))
	f.Add([]byte("name: x\nstart: {prompt: hi, cli: claude, model: [{text: a}]}\nsteps:\n  - chain: [{cli: codex, prompt: p, model: [{tools: [{tool: bash}]}]}]\n    expect: {tokens: native, files: {a: b}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(fstest.MapFS{"fuzz.yaml": {Data: data}}, "fuzz.yaml")
		if err != nil {
			checkErrors(t, err, data)
			return
		}
		if _, err := json.Marshal(sc); err != nil {
			t.Fatalf("the scenario does not encode: %v", err)
		}
		n := 0
		for _, v := range []string{sc.Start.File, sc.Start.Ref, sc.Start.Prompt} {
			if v != "" {
				n++
			}
		}
		if sc.Name == "" || n != 1 || len(sc.Steps) == 0 {
			t.Fatalf("accepted a scenario with name %q, %d starts and %d steps", sc.Name, n, len(sc.Steps))
		}
		for rel := range sc.Project.Files {
			if !fs.ValidPath(rel) || rel == "." {
				t.Fatalf("accepted project file %q", rel)
			}
		}
		for i, st := range sc.Steps {
			if !slices.Contains([]string{Resume, Fork, AB, Chain}, st.Kind) || len(st.To) == 0 {
				t.Fatalf("step %d: accepted kind %q with targets %q", i+1, st.Kind, st.To)
			}
			for _, to := range st.To {
				if a, ok := adapters.Lookup(to); !ok || !a.Runs() {
					t.Fatalf("step %d: accepted CLI %q", i+1, to)
				}
			}
			if st.Kind == AB && i+1 < len(sc.Steps) && !sc.Steps[i+1].FromStart {
				t.Fatalf("step %d: a step after an A/B step does not start from the start", i+2)
			}
		}
	})
}

// checkErrors checks that err names the file, and that each error of
// the parser's own names a line of data.
func checkErrors(t *testing.T, err error, data []byte) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), "fuzz.yaml:") {
		t.Fatalf("the error does not name the file: %v", err)
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return // a YAML error, which says where it can
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, e := range joined.Unwrap() {
		m := fileLine.FindStringSubmatch(e.Error())
		if m == nil {
			t.Fatalf("the error does not name a line: %v", e)
		}
		if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
			t.Fatalf("the error names line %d of %d: %v", n, lines, e)
		}
	}
}
