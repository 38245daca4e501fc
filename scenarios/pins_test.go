package scenarios

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// TestFindCLI: the pinned install is found with an empty PATH, with the
// runtime a CLI needs first; a variable names another program; nothing
// found says how to install it.
func TestFindCLI(t *testing.T) {
	cache := t.TempDir()
	pins := Pins()
	install := func(name string) string {
		p := pins[name]
		dir := filepath.Join(cache, name)
		bin := filepath.Join(dir, filepath.FromSlash(p.Bin))
		os.MkdirAll(filepath.Dir(bin), 0o700)
		os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o700)
		os.WriteFile(filepath.Join(dir, ".installed"), []byte(p.Spec+"\n"), 0o600)
		return bin
	}
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"STEAD_CLI_CACHE": cache, "PATH": ""}}
	if _, _, err := FindCLI(env, "codex"); !errors.Is(err, ErrMissingCLI) {
		t.Fatalf("nothing installed: %v", err)
	}
	codex := install("codex")
	if argv, from, err := FindCLI(env, "codex"); err != nil || len(argv) != 1 || argv[0] != codex {
		t.Errorf("pinned codex: %v, %q, %v", argv, from, err)
	}
	kimi := install("kimi")
	if _, _, err := FindCLI(env, "kimi"); !errors.Is(err, ErrMissingCLI) {
		t.Errorf("kimi without the Node it needs: %v", err)
	}
	node := install(pins["kimi"].Runtime)
	if argv, _, err := FindCLI(env, "kimi"); err != nil || len(argv) != 2 || argv[0] != node || argv[1] != kimi {
		t.Errorf("pinned kimi: %v, %v", argv, err)
	}
	env.Vars["STEAD_CODEX_BIN"] = "/opt/codex --flag"
	if argv, from, err := FindCLI(env, "codex"); err != nil || len(argv) != 2 || argv[0] != "/opt/codex" || from != "STEAD_CODEX_BIN" {
		t.Errorf("STEAD_CODEX_BIN: %v, %q, %v", argv, from, err)
	}
}

// TestPrograms: every CLI stead runs is pinned, as npm's link to the
// command its package installs, and that command, not the CLI's name, is
// what FindCLI looks for on PATH.
func TestPrograms(t *testing.T) {
	pins := Pins()
	for _, a := range adapters.All {
		if a.Driver == nil {
			continue
		}
		p, ok := pins[a.Name]
		if !ok {
			t.Errorf("%s has no pin in clis.txt", a.Name)
			continue
		}
		if dir := path.Dir(p.Bin); dir != "node_modules/.bin" {
			t.Errorf("%s: program %s is not npm's link to its command", a.Name, p.Bin)
		}
		if Program(a.Name) != p.Program() {
			t.Errorf("%s: Program = %q, want its pin's %q", a.Name, Program(a.Name), p.Program())
		}
	}
	if got := (Pin{Name: "x", Bin: "node_modules/.bin/x-agent"}).Program(); got != "x-agent" {
		t.Errorf("Program = %q, want x-agent", got)
	}
	if got := Program("unpinned"); got != "unpinned" {
		t.Errorf("Program of a CLI with no pin = %q", got)
	}
	dir := t.TempDir()
	codex := filepath.Join(dir, Program("codex"))
	os.WriteFile(codex, []byte("#!/bin/sh\n"), 0o700)
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"STEAD_CLI_CACHE": t.TempDir(), "PATH": dir}}
	if argv, from, err := FindCLI(env, "codex"); err != nil || len(argv) != 1 || argv[0] != codex || !strings.HasPrefix(from, "PATH") {
		t.Errorf("codex on PATH: %v, %q, %v", argv, from, err)
	}
}
