package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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
