package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/session"
)

// TestImportResumable exports the real sessions in examples/ as
// agent-history NDJSON and as CUSF, imports both files into a stead
// daemon, and reads each imported session back as a run: the same
// entries, in order, ready to show, fork or resume.
func TestImportResumable(t *testing.T) {
	root := t.TempDir()
	repo := clitest.Root(t)
	l := &steadCmd{t: t, bin: steadBinary(t), dir: root, env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(root, "home"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(repo, "examples", "claude"), "CODEX_HOME=" + filepath.Join(repo, "examples", "codex"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"),
	}}
	l.startDaemon(root)
	ndjson := filepath.Join(root, "all.ndjson")
	l.stead("session", "export", "--format", "ndjson", "-o", ndjson)
	cusfDir := filepath.Join(root, "cusf")
	os.MkdirAll(cusfDir, 0o755)
	l.stead("session", "export", "claude:6cccbe0a-a5b6-4c51-bd4c-d322261e2887", "--format", "cusf", "-o", cusfDir)
	cusfFiles, _ := filepath.Glob(filepath.Join(cusfDir, "*.jsonl"))
	if len(cusfFiles) != 1 {
		t.Fatalf("the CUSF export wrote %v", cusfFiles)
	}
	for _, file := range []string{ndjson, cusfFiles[0]} {
		var imp struct {
			Format   string
			Sessions []struct{ Run, CLI, ID string }
		}
		if err := json.Unmarshal([]byte(l.stead("session", "import", file, "--json")), &imp); err != nil {
			t.Fatal(err)
		}
		if len(imp.Sessions) == 0 {
			t.Fatalf("%s: nothing imported", file)
		}
		for _, s := range imp.Sessions {
			orig, err := session.Unmarshal([]byte(l.stead("session", "show", s.CLI+":"+s.ID, "--json", "--no-native")))
			if err != nil {
				t.Fatal(err)
			}
			got, err := session.Unmarshal([]byte(l.stead("session", "show", "run:"+s.Run, "--json", "--no-native")))
			if err != nil {
				t.Fatal(err)
			}
			if d := sameConversation(orig, got); d != "" {
				t.Errorf("%s, %s:%s imported as run:%s: %s", imp.Format, s.CLI, s.ID, s.Run, d)
			}
		}
		t.Logf("%s: %d sessions imported and read back", imp.Format, len(imp.Sessions))
	}
}

// sameConversation compares what a user reads of two sessions: each
// prompt, answer, tool call and result, in order.
func sameConversation(a, b *session.Session) string {
	texts := func(s *session.Session) []string {
		var out []string
		for _, e := range s.Timeline {
			switch e.Type {
			case session.User, session.Assistant:
				if e.Content != "" {
					out = append(out, string(e.Type)+": "+e.Content)
				}
			case session.ToolCall:
				out = append(out, "call: "+string(e.Tool))
			case session.ToolResult:
				out = append(out, "result: "+e.Output)
			}
		}
		return out
	}
	x, y := texts(a), texts(b)
	for i := range max(len(x), len(y)) {
		if i >= len(x) || i >= len(y) || x[i] != y[i] {
			return "differ at item " + strconv.Itoa(i) + ": " + strings.Join(pick(x, i), "") + " vs " + strings.Join(pick(y, i), "")
		}
	}
	return ""
}

func pick(s []string, i int) []string {
	if i < len(s) {
		return []string{clip(s[i])}
	}
	return []string{"(nothing)"}
}
