package homes

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

func TestLinuxPath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`C:\Users\me\proj`, "/mnt/c/Users/me/proj", true},
		{`d:/work/x`, "/mnt/d/work/x", true},
		{`C:\`, "/mnt/c", true},
		{`C:\Users\me\..\..\..\etc`, "/mnt/c/etc", true}, // never above the drive
		{"/home/me/proj", "/home/me/proj", false},
		{`C:relative`, `C:relative`, false},
		{`\\server\share`, `\\server\share`, false},
		{"", "", false},
	} {
		got, ok := LinuxPath(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LinuxPath(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWindowsPath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"/mnt/c/Users/me/proj", `C:\Users\me\proj`, true},
		{"/mnt/d", `D:\`, true},
		{"/mnt/c/Users/me/../../../etc", `C:\etc`, true}, // never above the drive
		{"/mnt/wsl/x", "/mnt/wsl/x", false},
		{"/home/me/proj", "/home/me/proj", false},
		{"proj", "proj", false},
		{"", "", false},
	} {
		got, ok := WindowsPath(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("WindowsPath(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if back, _ := LinuxPath(got); ok && back != strings.TrimSuffix(path.Clean(tc.in), "/") && !strings.Contains(tc.in, "..") {
			t.Errorf("LinuxPath(WindowsPath(%q)) = %q", tc.in, back)
		}
	}
}

// TestFind: the Windows users' homes that hold a CLI's store, each read
// as a home of its own, without the user's store variables; none off WSL.
func TestFind(t *testing.T) {
	users := t.TempDir()
	for _, d := range []string{"alice/.claude/projects", "bob/.codex/sessions", "carol/Documents", "Public/.claude", "Default/.codex"} {
		if err := os.MkdirAll(filepath.Join(users, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"STEAD_WINDOWS_USERS": users, "CLAUDE_CONFIG_DIR": "/mine", "PATH": "/bin"}}
	got := Find(env)
	if len(got) != 2 || got[0].Name != "win-alice" || got[1].Name != "win-bob" {
		t.Fatalf("Find = %+v; want win-alice and win-bob", got)
	}
	if got[0].Env.Home != filepath.Join(users, "alice") || got[0].Env.Get("CLAUDE_CONFIG_DIR") != "" || got[0].Env.Get("PATH") != "/bin" {
		t.Errorf("alice's home is read as %+v", got[0].Env)
	}
	if InWSL(session.Env{}) {
		t.Skip("this machine is WSL")
	}
	if got := Find(session.Env{Home: env.Home, Vars: map[string]string{}}); got != nil {
		t.Errorf("Find off WSL = %+v", got)
	}
}
