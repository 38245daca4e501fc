package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// abVariant is what stead ab --json says of a variant.
type abVariant struct {
	Name, CLI, Run, State, Error, Answer string
	Tokens                               session.Usage
	Tools                                map[string]int
	Changes                              struct {
		Files, Insertions, Deletions int
		Diff                         string
	}
	Workspace struct{ Dir string }
	TookNs    int64
}

// TestAB runs one prompt through the five CLIs at once with stead ab, each
// continuing the same Claude session in its own worktree of a git
// project: each writes a file with its own shell tool and answers. The report's
// figures are those each variant's native session records, the diffs
// are each variant's own, and the HTML page renders in Chromium.
func TestAB(t *testing.T) {
	clis := []string{"claude", "codex", "gemini", "opencode", "kimi"}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	src := clitest.New(t, "claude", sourceScript(), clitest.In(filepath.Join(root, "src")))
	r := src.Run(sourceScript().Prompts[0], "")
	succeeded(t, r, "LIVE-SOURCE-FINAL")

	// The source is named by its file: the Claude variant's own home
	// is another one.
	from := ""
	for _, ref := range src.Sessions() {
		if ref.ID == r.SessionID {
			from = ref.Path
		}
	}
	if from == "" {
		t.Fatalf("stead found no session %s", r.SessionID)
	}
	l := &steadCmd{t: t, bin: steadBinary(t)}
	var all []*clitest.Env
	for i, cli := range clis {
		out := int64(40 + i)
		e := clitest.New(t, cli, &modelstub.Script{Turns: []modelstub.Turn{
			// A shell command, which runs in the variant's copy (the
			// stub makes a write's relative path absolute in the CLI's
			// own test project).
			{Text: "Writing it.", Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "echo from " + cli + " > ab-" + cli + ".txt"}}},
				Usage: &session.Usage{Input: 1000, Output: 20}},
			{Text: "Wrote ab-" + cli + ".txt. AB-ANSWER-" + cli, Usage: &session.Usage{Input: 1100, Output: out}},
		}}, clitest.In(filepath.Join(root, cli)))

		all = append(all, e)
	}
	// The project: a git repository with one commit.
	l.dir = filepath.Join(root, "project")
	os.MkdirAll(l.dir, 0o755)
	os.WriteFile(filepath.Join(l.dir, "README"), []byte("the project\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", l.dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	l.env = cliEnv(root, all...)
	l.startDaemon(root)

	page := filepath.Join(root, "ab.html")
	args := []string{"ab", "--from", from, "--from-cli", "claude", "--to", strings.Join(abCLIs(clis), ","), "--prompt", "Write your file. AB-PROMPT",
		"--auto-approve", "--cwd", l.dir, "--json", "--html", page, "--timeout", "150s"}
	cmd := exec.Command(l.bin, args...)
	cmd.Env, cmd.Dir = l.env, l.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	out := string(stdout)
	var ab struct {
		ID       string
		Variants []abVariant
	}
	if jerr := json.Unmarshal(stdout, &ab); jerr != nil || err != nil {
		// What each failed variant's run went through says why.
		for _, v := range ab.Variants {
			if v.Error != "" && v.Run != "" {
				watched, _ := l.steadErr("watch", v.Run)
				t.Logf("%s's run %s, as stead watch shows it:\n%s", v.Name, v.Run, watched)
			}
		}
		t.Fatalf("stead %s: %v %v\n%s%s", strings.Join(args, " "), err, jerr, out, stderr.String())
	}
	for _, v := range ab.Variants {
		t.Logf("%s: %s in %s; %+v tokens; tools %v; %d files; error %q", v.Name, v.State, time.Duration(v.TookNs).Round(time.Millisecond), v.Tokens, v.Tools, v.Changes.Files, v.Error)
	}
	if len(ab.Variants) != len(abCLIs(clis)) {
		t.Fatalf("%d variants, want %d", len(ab.Variants), len(clis))
	}
	for _, v := range ab.Variants {
		t.Run(v.CLI, func(t *testing.T) {
			if v.Error != "" || !strings.Contains(v.Answer, "AB-ANSWER-"+v.CLI) {
				t.Fatalf("%s: state %s, error %q, answer %q", v.Name, v.State, v.Error, v.Answer)
			}
			// Its own file, in its own worktree, and nothing else.
			if v.Changes.Files != 1 || !strings.Contains(v.Changes.Diff, "ab-"+v.CLI+".txt") || !strings.Contains(v.Changes.Diff, "+from "+v.CLI) {
				t.Errorf("changes %d files:\n%s", v.Changes.Files, v.Changes.Diff)
			}
			if v.Tools[string(session.ToolBash)] != 1 {
				stored, _ := session.Unmarshal([]byte(l.stead("session", "show", "run:"+v.Run, "--json", "--no-native")))
				var got []string
				if stored != nil {
					for _, e := range stored.Timeline {
						got = append(got, string(e.Type)+"/"+e.Kind+":"+string(e.Tool)+":"+clip(e.Content))
					}
				}
				t.Errorf("tool calls %v, want one bash; the stored session: %q", v.Tools, got)
			}
			// The figures are what the variant's native session records
			// for its turn: the usage of the entries after the prompt.
			var run live.Run
			for _, rr := range mustRuns(t, l) {
				if rr.ID == v.Run {
					run = rr
				}
			}
			native, err := session.Unmarshal([]byte(l.stead("session", "show", v.CLI+":"+run.SessionID, "--json", "--no-native")))
			if err != nil {
				t.Fatal(err)
			}
			var want session.Usage
			after := false
			for _, e := range native.Timeline {
				if e.Type == session.User && strings.Contains(e.Content, "AB-PROMPT") {
					after = true
				}
				if after && e.Usage != nil {
					want.Add(*e.Usage)
				}
			}
			if v.Tokens != want || want.Output == 0 {
				t.Errorf("the report says %+v tokens; the native session records %+v", v.Tokens, want)
			}
		})
	}
	// The page renders in a real browser, with a chart per figure.
	chrome := chromium(t)
	dom := headless(t, chrome, "--dump-dom", "file://"+page)
	for _, want := range []string{`id="summary"`, `<svg class="bars"`, "AB-ANSWER-kimi", "ab-opencode.txt"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	shot := filepath.Join(root, "ab.png")
	headless(t, chrome, "--window-size=1200,900", "--screenshot="+shot, "file://"+page)
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Errorf("the screenshot is missing or blank (%v)", err)
	}

	// No variant touched the project itself.
	if stray, _ := filepath.Glob(filepath.Join(l.dir, "ab-*.txt")); len(stray) > 0 {
		t.Errorf("variants wrote into the project: %v", stray)
	}
	// Pick one: its file lands in the project; clean removes the copies.
	l.stead("ab", "pick", ab.ID, "codex")
	if data, err := os.ReadFile(filepath.Join(l.dir, "ab-codex.txt")); err != nil || string(data) != "from codex\n" {
		t.Errorf("after pick, ab-codex.txt = %q (%v)", data, err)
	}
	if _, err := os.Stat(filepath.Join(l.dir, "ab-claude.txt")); err == nil {
		t.Error("another variant's file reached the project")
	}
	l.stead("ab", "clean", ab.ID)
	for _, v := range ab.Variants {
		if _, err := os.Stat(v.Workspace.Dir); err == nil {
			t.Errorf("%s's copy is still there after clean", v.Name)
		}
	}
}

func mustRuns(t *testing.T, l *steadCmd) []live.Run {
	var runs []live.Run
	if err := json.Unmarshal([]byte(l.stead("runs", "--json")), &runs); err != nil {
		t.Fatal(err)
	}
	return runs
}

// chromium finds headless Chromium: skipped locally when it is missing,
// a failure in CI (STEAD_REQUIRE_CLIS).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("STEAD_REQUIRE_CLIS") != "" {
		t.Fatal("Chromium is not installed (the CI installs Debian's chromium)")
	}
	t.Skip("Chromium is not installed: the page is not rendered (apt-get install chromium)")
	return ""
}

// headless runs Chromium headless with args, each time with a profile of
// its own, and returns what it printed on stdout. A browser that dies by a
// signal is tried again, twice at most: Chromium 148's one-shot
// --screenshot has crashed (SIGSEGV) once in CI on a page it renders every
// other time, and a browser crash is not a fault of the page. Any other
// failure fails the test.
func headless(t *testing.T, chrome string, args ...string) []byte {
	t.Helper()
	const tries = 3
	for i := 1; ; i++ {
		cmd := exec.Command(chrome, append([]string{"--headless", "--no-sandbox", "--disable-gpu",
			"--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil {
			return out
		}
		var exit *exec.ExitError
		crashed := errors.As(err, &exit) && !exit.Exited()
		if !crashed || i == tries {
			t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		t.Logf("chromium crashed (%v), try %d of %d", err, i+1, tries)
	}
}

// abCLIs is every CLI, or those STEAD_AB_ONLY names (to look at one).
func abCLIs(all []string) []string {
	if v := os.Getenv("STEAD_AB_ONLY"); v != "" {
		return strings.Split(v, ",")
	}
	return all
}
