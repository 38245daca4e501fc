package samples

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/session"
)

// Repeated writes the testdata sessions of cli (Claude Code or Codex: real
// files and hand-written cases) repeated to about size bytes, one session
// file of records of everyday sizes, and returns its path.
func Repeated(tb testing.TB, cli string, size int64) string {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	cases, _ := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "..", "adapters", cli, "testdata", "*.txtar"))
	var one []byte
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") && strings.HasSuffix(f.Name, ".jsonl") {
				one = append(one, f.Data...)
			}
		}
	}
	if len(one) == 0 {
		tb.Fatalf("no %s testdata session files", cli)
	}
	path := filepath.Join(tb.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	for n := int64(0); n < size; n += int64(len(one)) {
		if _, err := f.Write(one); err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Generated writes one synthetic session of cli (any of corpusgen.CLIs) of
// about size bytes, made by the corpus generator (prompts, thinking, tool
// calls with outputs of up to 20 MB, attachments), and returns its path.
func Generated(tb testing.TB, cli string, size int64) string {
	tb.Helper()
	_, path := GeneratedStore(tb, cli, size)
	return path
}

// GeneratedStore is Generated, with the environment that points stead at
// the corpus it made (its home the corpus folder).
func GeneratedStore(tb testing.TB, cli string, size int64) (session.Env, string) {
	tb.Helper()
	dir := tb.TempDir()
	opts := corpusgen.Options{Seed: 1, Files: 1, TotalBytes: size, ClaudeShare: 1, MalformedEvery: -1}
	if cli != session.Claude {
		// (A ClaudeShare of 0 means the default share, 0.6: the one file
		// would be Claude's whatever cli is.)
		opts.Mix = map[string]float64{cli: 1}
	}
	if _, err := corpusgen.Generate(dir, opts); err != nil {
		tb.Fatal(err)
	}
	env := session.Env{Home: dir, Vars: make(map[string]string)}
	for _, kv := range corpusgen.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	var path string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Ext(p) == ".jsonl" {
			path = p
		}
		return nil
	})
	if path == "" {
		tb.Fatalf("no %s session generated", cli)
	}
	return env, path
}
