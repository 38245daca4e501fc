package adapters_test

import (
	"strings"
	"testing"

	"github.com/stead-dev/stead/live"
)

func launch(t *testing.T) live.Launch {
	return live.Launch{Home: t.TempDir(), Dir: t.TempDir(), BaseURL: "http://127.0.0.1:4242", Prompt: "fix the bug"}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}
