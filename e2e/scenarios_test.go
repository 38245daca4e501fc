package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/scenarios"
)

// TestScenarios runs every scenario stead ships, as a user would:
// `stead scenario run <name> --json`, against the real CLIs and the stub.
// Each must pass every expectation, and exit 0. The demo, the README's
// first command, is among them.
func TestScenarios(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	bin := steadBinary(t)
	for _, name := range scenarios.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			for _, cli := range all[name].CLIs() {
				clitest.Find(t, cli) // skips, or fails in CI, naming what to install
			}
			root := t.TempDir()
			page := filepath.Join(root, "ab.html")
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "scenario", "run", name, "--json", "--keep", filepath.Join(root, "sandbox"), "--html", page)
			// Only what a user's shell would have: the sandbox takes
			// PATH and the CLI cache from it.
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "STEAD_CLI_CACHE=" + clitest.CacheDir()}
			var out, progress bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &progress
			runErr := cmd.Run()
			var rep scenarios.Report
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("stead scenario run %s: %v; printed %q\n%s", name, runErr, out.String(), progress.String())
			}
			checks := 0
			for _, s := range rep.Steps {
				for _, c := range s.Checks {
					checks++
					if !c.Pass {
						t.Errorf("step %q: %s: got %s", s.Name, c.What, c.Got)
					}
				}
				if s.Error != "" {
					t.Errorf("step %q: %s", s.Name, s.Error)
				}
			}
			if !rep.Pass || runErr != nil || t.Failed() {
				t.Fatalf("the scenario failed (%v)\n%s", runErr, progress.String())
			}
			if len(rep.Steps) != len(all[name].Steps) || checks < 2*len(rep.Steps) {
				t.Errorf("%d steps with %d checks reported, for a scenario of %d steps", len(rep.Steps), checks, len(all[name].Steps))
			}
			for _, s := range all[name].Steps {
				if s.Kind == scenarios.AB {
					if fi, err := os.Stat(page); err != nil || fi.Size() < 1000 {
						t.Errorf("--html wrote no comparison page: %v", err)
					}
				}
			}
			// The live entries were printed as they happened.
			if !strings.Contains(progress.String(), " assistant: ") {
				t.Errorf("no live entry was printed:\n%s", progress.String())
			}
			t.Logf("%s: %d steps, %d expectations held, in %s", name, len(rep.Steps), checks, rep.Took.Round(100*time.Millisecond))
		})
	}
}
