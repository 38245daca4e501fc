package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	_ "modernc.org/sqlite"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// layOut writes the native/ files of an adapter's testdata case below dir,
// as the case names them.
func layOut(t *testing.T, txtarPath, dir string) {
	t.Helper()
	ar, err := txtar.ParseFile(txtarPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "native/"); ok {
			write(t, filepath.Join(dir, filepath.FromSlash(name)), f.Data)
		}
	}
}

// openCodeDB builds an opencode.db from the real schema and the rows of a
// testdata case (dumped from a database OpenCode 1.18.33 wrote).
func openCodeDB(t *testing.T, txtarPath, path string) {
	t.Helper()
	ddl, err := os.ReadFile("../../adapters/opencode/testdata/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile(txtarPath)
	if err != nil {
		t.Fatal(err)
	}
	var rows string
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "native/") && strings.HasSuffix(f.Name, ".sql") {
			rows += string(f.Data)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(ddl)); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if _, err := db.Exec("BEGIN;\n" + rows + "\nCOMMIT;"); err != nil {
		t.Fatalf("rows: %v", err)
	}
}

// allHomes extends homes with a store of each other CLI, holding the
// sessions the real CLIs wrote in the end-to-end conversation.
func allHomes(t *testing.T) session.Env {
	env := homes(t)
	root := t.TempDir()
	layOut(t, "../../adapters/gemini/testdata/e2e-conversation.txtar", filepath.Join(root, "gemini"))
	layOut(t, "../../adapters/kimi/testdata/code-e2e-conversation.txtar", filepath.Join(root, "kimi-code"))
	layOut(t, "../../adapters/kimi/testdata/legacy-wire.txtar", filepath.Join(root, "kimi-share"))
	openCodeDB(t, "../../adapters/opencode/testdata/conversation-db.txtar", filepath.Join(root, "data", "opencode", "opencode.db"))
	env.Vars["GEMINI_CLI_HOME"] = filepath.Join(root, "gemini")
	env.Vars["KIMI_CODE_HOME"] = filepath.Join(root, "kimi-code")
	env.Vars["KIMI_SHARE_DIR"] = filepath.Join(root, "kimi-share")
	env.Vars["XDG_DATA_HOME"] = filepath.Join(root, "data")
	return env
}

// TestListAndShowAllCLIs lists the stores of all five CLIs at once and
// shows a session of each new reader as universal JSON.
func TestListAndShowAllCLIs(t *testing.T) {
	env := allHomes(t)
	var got listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	// (The Claude and Codex cases hold deliberately malformed lines.)
	for _, w := range got.Warnings {
		if !strings.Contains(w.Path, "/claude/") && !strings.Contains(w.Path, "/codex/") {
			t.Errorf("warning: %v", w)
		}
	}
	byCLI := map[string]int{}
	for _, s := range got.Sessions {
		byCLI[s.CLI]++
	}
	for _, a := range adapters.All {
		if a.Reads() && byCLI[a.Name] == 0 {
			t.Errorf("no %s session listed; listed %v", a.Name, byCLI)
		}
	}

	for _, ref := range []string{
		"gemini:dcbf5910-a865-4dd8-abbd-d405de752b46",
		"opencode:ses_dfff632e1ffeNW6YJ7eJ603fa4",
		"kimi:session_c977f4b3-f78a-4432-bcc2-6713f58ac0fd",
		"kimi:3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f", // legacy kimi-cli, which stores no model name
	} {
		t.Run(strings.ReplaceAll(ref, ":", "_"), func(t *testing.T) {
			out := mustRun(t, env, "session", "show", ref, "--json")
			usftest.Validate(t, []byte(out))
			s, err := session.Unmarshal([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			cli, id, _ := strings.Cut(ref, ":")
			if s.Source.CLI != cli || s.ID == "" || !strings.Contains(s.ID+s.Source.OriginalID, id) {
				t.Errorf("source %+v, id %q; want %s", s.Source, s.ID, ref)
			}
			counts := map[session.EntryType]int{}
			calls := map[string]bool{}
			thinking := false
			var usage session.Usage
			for _, e := range s.Timeline {
				counts[e.Type]++
				thinking = thinking || e.Thinking != ""
				if e.Usage != nil {
					usage.Add(*e.Usage)
				}
				switch e.Type {
				case session.ToolCall:
					calls[e.ID] = true
				case session.ToolResult:
					if !calls[e.CallID] {
						t.Errorf("result %s pairs with no call", e.CallID)
					}
				}
			}
			if counts[session.User] == 0 || counts[session.Assistant] == 0 || counts[session.ToolCall] == 0 ||
				counts[session.ToolResult] != counts[session.ToolCall] {
				t.Errorf("timeline counts %v: want users, assistants, and every call with its result", counts)
			}
			if !thinking {
				t.Error("no thinking")
			}
			if s.Model.Model == "" && !strings.HasPrefix(id, "3f2b8c1e") {
				t.Error("no model")
			}
			if usage.Input == 0 || usage.Output == 0 {
				t.Errorf("usage %+v", usage)
			}
		})
	}
}
