package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/corpusgen"
)

func TestParseMix(t *testing.T) {
	for _, c := range []struct {
		clis, mix string
		want      map[string]float64
		err       bool
	}{
		{clis: "claude,codex", want: nil}, // -claude-share splits them
		{clis: "all", want: corpusgen.EqualMix()},
		{clis: "gemini, kimi", want: map[string]float64{"gemini": 1, "kimi": 1}},
		{clis: "claude", want: map[string]float64{"claude": 1}},
		{mix: "claude=3,opencode=1", want: map[string]float64{"claude": 3, "opencode": 1}},
		{clis: "cursor", err: true},
		{mix: "claude", err: true},
		{mix: "claude=-1", err: true},
		{mix: "aider=1", err: true},
	} {
		got, err := parseMix(c.clis, c.mix)
		if (err != nil) != c.err || !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseMix(%q, %q) = %v, %v; want %v (error %v)", c.clis, c.mix, got, err, c.want, c.err)
		}
	}
}

// TestRunAllCLIs writes a small corpus of all five CLIs and checks what
// the command prints: the counts and the variables that point stead at it.
func TestRunAllCLIs(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-out", dir, "-clis", "all", "-files", "10", "-size", "2M"}, &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"wrote 10 sessions (2 claude, 2 codex, 2 gemini, 2 opencode, 2 kimi)",
		"export GEMINI_CLI_HOME=" + filepath.Join(dir, "gemini"), "export XDG_DATA_HOME=" + dir,
		"export KIMI_CODE_HOME=" + filepath.Join(dir, "kimi")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var m corpusgen.Manifest
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil || len(m.CLIs) != 5 {
		t.Fatalf("manifest: %v, %d CLIs", err, len(m.CLIs))
	}

	// -force clears every store before writing again.
	if err := run([]string{"-out", dir, "-files", "4", "-size", "400K"}, &stdout, &stderr); err == nil {
		t.Error("wrote into a non-empty directory without -force")
	}
	if err := run([]string{"-out", dir, "-force", "-files", "4", "-size", "400K"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"gemini", "opencode", "kimi"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("-force left %s", gone)
		}
	}
}
