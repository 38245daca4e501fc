package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/session"
)

// timelineOf decodes data with dec and returns the part of its timeline
// a conversion carries (no context snapshots), without native records.
func timelineOf(t *testing.T, dec *Decoder) []session.Entry {
	t.Helper()
	s, err := read(dec, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []session.Entry
	for _, e := range s.WithoutNative().Timeline {
		if e.Type == session.System && (e.Kind == session.KindContext || e.Kind == session.KindInstructions) {
			continue
		}
		e.ParentID = "" // a skipped record's entry may have been a parent
		out = append(out, e)
	}
	return out
}

func sameTimeline(t *testing.T, name string, data []byte) {
	t.Helper()
	want := timelineOf(t, NewDecoder(bytes.NewReader(data)))
	got := timelineOf(t, NewStreamDecoder(bytes.NewReader(data)))
	if len(got) != len(want) {
		t.Fatalf("%s: stream decoder gave %d entries, decoder %d", name, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			w, _ := json.Marshal(want[i])
			g, _ := json.Marshal(got[i])
			t.Errorf("%s: entry %d differs:\ndecoder %s\nstream  %s", name, i, w, g)
			return
		}
	}
}

// TestStreamDecoderAgrees checks the stream decoder yields the decoder's
// conversation on every testdata file and on a generated session.
func TestStreamDecoderAgrees(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") && strings.HasSuffix(f.Name, ".jsonl") {
				sameTimeline(t, c+":"+f.Name, f.Data)
			}
		}
	}
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 7, Files: 3, TotalBytes: 6 << 20, ClaudeShare: 1}); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			data, _ := os.ReadFile(p)
			sameTimeline(t, p, data)
		}
		return nil
	})
}
