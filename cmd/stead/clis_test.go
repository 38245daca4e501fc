package main

import (
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
)

// TestHelpNamesEveryCLI: the help that says which CLIs stead knows is
// made from the registry, so each CLI is in it without an edit: stead's
// long help, the stub's (the CLIs it serves) and --cli.
func TestHelpNamesEveryCLI(t *testing.T) {
	f := &Factory{}
	root := strings.Join(strings.Fields(newRootCmd(f).Long), " ")
	stub := strings.Join(strings.Fields(newStubCmd(f, nil).Long), " ")
	list := newListCmd(f, nil)
	cliFlag := list.Flags().Lookup("cli")
	for _, a := range adapters.All {
		if !strings.Contains(root, a.Title) {
			t.Errorf("stead --help does not name %s", a.Title)
		}
		if launchable(a) && !strings.Contains(stub, a.Title) {
			t.Errorf("stead stub --help does not name %s", a.Title)
		}
		if cliFlag == nil || !strings.Contains(cliFlag.Usage, a.Name) {
			t.Errorf("--cli does not name %s", a.Name)
		}
	}
}
