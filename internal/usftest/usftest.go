package usftest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/stead-dev/stead/session"
)

// Update makes golden tests rewrite their golden files: go test -update.
var Update = flag.Bool("update", false, "rewrite golden files")

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiled() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(session.Schema))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("usf.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("usf.schema.json")
	})
	return schema, schemaErr
}

// Validate checks a universal session document against the JSON Schema
// shipped in session/usf.schema.json.
func Validate(t testing.TB, doc []byte) {
	t.Helper()
	if err := ValidateErr(doc); err != nil {
		t.Fatalf("document does not match the USF schema: %v", err)
	}
}

// ValidateErr is Validate returning the error.
func ValidateErr(doc []byte) error {
	sch, err := compiled()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// ValidateSession encodes s canonically and validates it.
func ValidateSession(t testing.TB, s *session.Session) {
	t.Helper()
	b, err := session.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	Validate(t, b)
}

// Golden compares got with the golden file at path, or rewrites the file
// with -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking the change):\n%s", path, firstDiff(want, got))
	}
}

func firstDiff(want, got []byte) string {
	wl := bytes.Split(want, []byte("\n"))
	gl := bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + itoa(i+1) + ":\n  want: " + string(clip(w)) + "\n   got: " + string(clip(g))
		}
	}
	return "(no difference found)"
}

func clip(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "…"...)
	}
	return b
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Figures are what a fast summary reports, derived instead from a full
// session, so the two code paths can be checked against each other.
type Figures struct {
	Messages, Turns, ToolErrors int
	Tools                       map[session.Tool]int
	Usage                       session.Usage
}

// Derive computes Figures from a full session, counting the entries whose
// records are in the session's own file (a summary reads one file).
func Derive(s *session.Session) Figures {
	f := Figures{Tools: map[session.Tool]int{}}
	for _, e := range s.Timeline {
		if e.Native != nil && e.Native.Path != "" {
			continue
		}
		switch e.Type {
		case session.User:
			if e.Kind == "" && e.Content != "" {
				f.Turns++
				f.Messages++
			}
		case session.Assistant:
			if e.Content != "" {
				f.Messages++
			}
		case session.ToolCall:
			f.Tools[e.Tool]++
		case session.ToolResult:
			if e.Status != session.StatusOK {
				f.ToolErrors++
			}
		}
	}
	if s.Metadata.Tokens != nil {
		f.Usage = *s.Metadata.Tokens
	}
	return f
}

// SummaryFigures extracts the same figures from a summary.
func SummaryFigures(sum session.Summary) Figures {
	f := Figures{Messages: sum.Messages, Turns: sum.Turns, ToolErrors: sum.ToolErrors, Tools: map[session.Tool]int{}, Usage: sum.Usage}
	for k, v := range sum.Tools {
		f.Tools[k] = v
	}
	return f
}
