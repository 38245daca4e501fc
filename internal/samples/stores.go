package samples

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite", for OpenCode's store

	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/session"
)

// testdata is the folder of an adapter's testdata.
func testdata(cli string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "adapters", cli, "testdata")
}

// ClaudeCodex builds a Claude config dir and a Codex home from the
// adapters' testdata (real files the CLIs wrote, and hand-written cases),
// laid out as the CLIs lay them out, and returns the environment pointing
// at them.
func ClaudeCodex(tb testing.TB) session.Env {
	tb.Helper()
	root := tb.TempDir()
	claudeDir := filepath.Join(root, "claude")
	codexDir := filepath.Join(root, "codex")
	cases, _ := filepath.Glob(filepath.Join(testdata("claude"), "*.txtar"))
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			tb.Fatal(err)
		}
		project := ""
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "native/") {
				continue
			}
			if project == "" {
				project = claude.EncodeProjectDir(firstCwd(f.Data))
			}
			Write(tb, filepath.Join(claudeDir, "projects", project, strings.TrimPrefix(f.Name, "native/")), f.Data)
		}
	}
	cases, _ = filepath.Glob(filepath.Join(testdata("codex"), "*.txtar"))
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") {
				Write(tb, filepath.Join(codexDir, strings.TrimPrefix(f.Name, "native/")), f.Data)
			}
		}
	}
	return session.Env{Home: filepath.Join(root, "home"), Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": claudeDir, "CODEX_HOME": codexDir,
	}}
}

// AllCLIs extends ClaudeCodex with a store of each other CLI, holding the
// sessions the real CLIs wrote in the end-to-end conversation.
func AllCLIs(tb testing.TB) session.Env {
	tb.Helper()
	env := ClaudeCodex(tb)
	root := tb.TempDir()
	LayOut(tb, filepath.Join(testdata("gemini"), "e2e-conversation.txtar"), filepath.Join(root, "gemini"))
	LayOut(tb, filepath.Join(testdata("kimi"), "code-e2e-conversation.txtar"), filepath.Join(root, "kimi-code"))
	LayOut(tb, filepath.Join(testdata("kimi"), "legacy-wire.txtar"), filepath.Join(root, "kimi-share"))
	OpenCodeDB(tb, filepath.Join(testdata("opencode"), "conversation-db.txtar"), filepath.Join(root, "data", "opencode", "opencode.db"))
	env.Vars["GEMINI_CLI_HOME"] = filepath.Join(root, "gemini")
	env.Vars["KIMI_CODE_HOME"] = filepath.Join(root, "kimi-code")
	env.Vars["KIMI_SHARE_DIR"] = filepath.Join(root, "kimi-share")
	env.Vars["XDG_DATA_HOME"] = filepath.Join(root, "data")
	return env
}

// LayOut writes the native/ files of an adapter's testdata case below dir,
// as the case names them.
func LayOut(tb testing.TB, txtarPath, dir string) {
	tb.Helper()
	ar, err := txtar.ParseFile(txtarPath)
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "native/"); ok {
			Write(tb, filepath.Join(dir, filepath.FromSlash(name)), f.Data)
		}
	}
}

// OpenCodeDB builds an opencode.db from the real schema and the rows of a
// testdata case (dumped from a database OpenCode 1.18.33 wrote).
func OpenCodeDB(tb testing.TB, txtarPath, path string) {
	tb.Helper()
	ddl, err := os.ReadFile(filepath.Join(testdata("opencode"), "schema.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	ar, err := txtar.ParseFile(txtarPath)
	if err != nil {
		tb.Fatal(err)
	}
	var rows string
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "native/") && strings.HasSuffix(f.Name, ".sql") {
			rows += string(f.Data)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(ddl)); err != nil {
		tb.Fatalf("schema: %v", err)
	}
	if _, err := db.Exec("BEGIN;\n" + rows + "\nCOMMIT;"); err != nil {
		tb.Fatalf("rows: %v", err)
	}
}

// Write writes a file, making its folders.
func Write(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func firstCwd(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Cwd != "" {
			return r.Cwd
		}
	}
	return "/unknown"
}

// Store lays out one testdata case of a CLI as that CLI keeps its store,
// alone in a fresh folder, and returns the environment pointing at it:
// Claude's files in the project folder of their first working directory,
// Codex's, Gemini's and OpenCode's storage tree below their homes, a Kimi
// case named code-* in Kimi Code's home and one named legacy-* in
// kimi-cli's share dir, and OpenCode's rows in a database of the real
// schema. It reports false for a case that holds no store (an export, a
// single file of no store).
func Store(tb testing.TB, cli, txtarPath string) (session.Env, bool) {
	tb.Helper()
	root := tb.TempDir()
	env := session.Env{Home: filepath.Join(root, "home"), Vars: map[string]string{}}
	ar, err := txtar.ParseFile(txtarPath)
	if err != nil {
		tb.Fatal(err)
	}
	sql, storage, native := false, false, false
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "native/") {
			native = true
			sql = sql || strings.HasSuffix(f.Name, ".sql")
			storage = storage || strings.HasPrefix(f.Name, "native/storage/")
		}
	}
	if !native {
		return env, false
	}
	dir := filepath.Join(root, cli)
	switch cli {
	case "claude":
		env.Vars["CLAUDE_CONFIG_DIR"] = dir
		project := ""
		for _, f := range ar.Files {
			if name, ok := strings.CutPrefix(f.Name, "native/"); ok {
				if project == "" {
					project = claude.EncodeProjectDir(firstCwd(f.Data))
				}
				Write(tb, filepath.Join(dir, "projects", project, filepath.FromSlash(name)), f.Data)
			}
		}
		return env, true
	case "codex":
		env.Vars["CODEX_HOME"] = dir
	case "gemini":
		env.Vars["GEMINI_CLI_HOME"] = dir
	case "kimi":
		switch base := filepath.Base(txtarPath); {
		case strings.HasPrefix(base, "code-"):
			env.Vars["KIMI_CODE_HOME"] = dir
		case strings.HasPrefix(base, "legacy-"):
			env.Vars["KIMI_SHARE_DIR"] = dir
		default:
			return env, false
		}
	case "opencode":
		env.Vars["XDG_DATA_HOME"] = root
		dir = filepath.Join(root, "opencode")
		if sql {
			OpenCodeDB(tb, txtarPath, filepath.Join(dir, "opencode.db"))
			return env, true
		}
		if !storage {
			return env, false
		}
	default:
		return env, false
	}
	LayOut(tb, txtarPath, dir)
	return env, true
}
