package stead_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/stead-dev/stead"

// rules is the import policy of STYLE.md §8: for each package (a prefix
// ending in "/" covers the packages below it), the non-standard packages it
// may import. It is a statement of policy: do not change it to make a build
// pass; change the code.
var rules = map[string][]string{
	"session":             {},
	"live":                {"session"},
	"adapters/internal/":  {"session"},
	"adapters/adapter":    {"session", "live"},
	"adapters/":           {"session", "live", "adapters/adapter", "adapters/internal/", "internal/safetext"},
	"adapters/opencode":   {"session", "live", "adapters/adapter", "adapters/internal/", "internal/safetext", "modernc.org/sqlite"},
	"adapters":            {"session", "live", "adapters/"},
	"catalog":             {"session", "adapters", "internal/safetext"},
	"pricing":             {"session"},
	"internal/corpusgen":  {"adapters/kimi", "adapters/opencode", "modernc.org/sqlite"},
	"internal/usftest":    {"session", "github.com/santhosh-tekuri/jsonschema/v6", "github.com/rogpeppe/go-internal/txtar"},
	"cmd/stead-corpus":    {"internal/corpusgen"},
	"modelstub":           {"session", "internal/safetext"},
	"inject":              {"session", "internal/atomicfile"},
	"internal/atomicfile": {},
	// Quoting for a shell and neutralising text for a terminal: a leaf
	// that every package printing untrusted text may use.
	"internal/safetext": {},
	"internal/redact":   {},
	"vt":                {},
	// The interchange formats of seeds 000 (CUSF) and 003 (agent-history
	// NDJSON): universal sessions in and out, nothing else.
	"cusf":              {"session"},
	"agenthistory":      {"session"},
	"templates":         {"session", "go.yaml.in/yaml/v3"},
	"bus":               {"session", "live", "internal/safetext", "github.com/nats-io/"},
	"supervisor":        {"session", "github.com/oklog/run", "github.com/creack/pty", "golang.org/x/term"},
	"capture":           {"session", "live"},
	"internal/samples":  {"session", "adapters", "adapters/claude", "internal/corpusgen", "github.com/rogpeppe/go-internal/txtar", "modernc.org/sqlite"},
	"internal/heappeak": {},
	"internal/clitest":  {"session", "live", "adapters", "modelstub", "scenarios"},
	// scenarios plays each step's model script on stubs and checks what
	// the model got (modelstub's requests): STYLE.md §8 allows it session
	// and adapters; the stub is the other half of an offline scenario.
	"scenarios": {"session", "live", "adapters", "modelstub", "go.yaml.in/yaml/v3"},
	"e2e":       {"session", "live", "adapters", "adapters/", "catalog", "inject", "modelstub", "scenarios", "runs", "bus", "internal/clitest", "internal/usftest", "github.com/chromedp/"},
	// The library for runs: a session placed in a CLI's store, the CLI
	// run under a terminal, driven and captured onto the bus.
	"runs": {"session", "live", "adapters", "catalog", "inject", "supervisor", "capture", "bus", "vt", "scenarios", "pricing",
		"internal/atomicfile", "internal/safetext", "github.com/oklog/run", "golang.org/x/sys/unix", "golang.org/x/term"},
	"daemon": {"session", "live", "bus", "runs", "index", "pricing", "web", "hosts", "homes", "catalog", "internal/atomicfile", "github.com/oklog/run"},
	// The homes of CLIs' stores beyond the user's own (Windows homes
	// seen from WSL): found on disk, read by the adapters as any home.
	"homes": {"session", "adapters"},
	// Every machine's sessions over the bus: a host's answer, and the
	// gathering of all hosts' answers.
	"hosts": {"session", "live", "bus", "catalog", "adapters", "index"},
	"web":   {"session", "live", "adapters", "catalog", "index", "bus", "runs", "pricing", "cusf", "agenthistory", "internal/notify", "internal/safetext", "github.com/oklog/run"},
	"index": {"session", "adapters", "catalog", "internal/notify", "internal/safetext", "modernc.org/sqlite", "github.com/oklog/run", "golang.org/x/sys/unix",
		"github.com/klauspost/compress/zstd", "github.com/klauspost/compress/dict"},
	"internal/testdisk": {},
	"internal/notify":   {"golang.org/x/sys/unix"},
	"cmd/stead":         {"*"},
	"":                  {},
}

// ruleFor returns the rule of the most specific key matching pkg.
func ruleFor(pkg string) ([]string, bool) {
	best, found := "", false
	for k := range rules {
		match := k == pkg || (strings.HasSuffix(k, "/") && strings.HasPrefix(pkg, k))
		if match && (!found || len(k) > len(best)) {
			best, found = k, true
		}
	}
	return rules[best], found
}

func allowed(rule []string, imp string) bool {
	for _, a := range rule {
		switch {
		case a == "*", a == imp:
			return true
		case strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a):
			return true
		}
	}
	return false
}

func TestDependencies(t *testing.T) {
	// Stat every Go file so the test cache knows this test depends on
	// them (it cannot see what go list reads).
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".go") {
			os.Stat(p)
		}
		return nil
	})
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		rule, ok := ruleFor(pkg)
		if !ok {
			t.Errorf("package %q has no rule in deps_test.go", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			first := strings.Split(imp, "/")[0]
			if !strings.Contains(first, ".") {
				continue // standard library
			}
			local := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if !strings.HasPrefix(imp, module) {
				local = imp
			}
			if !allowed(rule, local) {
				t.Errorf("%s imports %s, which the policy does not allow", fields[0], imp)
			}
		}
	}
}
