package homes

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// Home is a home of CLIs' stores beyond the user's own.
type Home struct {
	// Name names it on the bus beside the machine's own name:
	// "win-<user>".
	Name string
	// Env reads it: Home is the folder, and the user's variables that
	// point a CLI at its store are left out.
	Env session.Env
}

// notUsers are the folders of C:\Users that are no user's.
var notUsers = []string{"All Users", "Default", "Default User", "Public", "defaultuser0", "desktop.ini"}

// WindowsUsers is where WSL sees the Windows users' homes, unless
// STEAD_WINDOWS_USERS names another folder.
const WindowsUsers = "/mnt/c/Users"

// Find lists the homes beyond env's own that this machine can read: on
// WSL (or wherever STEAD_WINDOWS_USERS is set), each Windows user's home
// that holds a CLI's store. It lists none elsewhere.
func Find(env session.Env) []Home {
	root := env.Get("STEAD_WINDOWS_USERS")
	if root == "" {
		if !InWSL(env) {
			return nil
		}
		root = WindowsUsers
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []Home
	for _, d := range dirs {
		if !d.IsDir() || slices.Contains(notUsers, d.Name()) || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		home := filepath.Join(root, d.Name())
		if home == env.Home || !holdsStore(home) {
			continue
		}
		vars := make(map[string]string, len(env.Vars))
		for k, v := range env.Vars {
			vars[k] = v
		}
		// The user's variables that point a CLI at another store (its
		// adapter's Roots change without them) are not this home's.
		for k := range env.Vars {
			without := maps.Clone(vars)
			delete(without, k)
			if !slices.Equal(roots(session.Env{Home: home, Vars: vars}), roots(session.Env{Home: home, Vars: without})) {
				delete(vars, k)
			}
		}
		out = append(out, Home{Name: "win-" + d.Name(), Env: session.Env{Home: home, Vars: vars}})
	}
	return out
}

// holdsStore reports whether home has a CLI's store (a folder one of
// the adapters' Roots names).
func holdsStore(home string) bool {
	for _, r := range roots(session.Env{Home: home, Vars: map[string]string{}}) {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// roots are every adapter's store folders under env.
func roots(env session.Env) []string {
	var out []string
	for _, a := range adapters.All {
		if a.Roots != nil {
			out = append(out, a.Roots(env)...)
		}
	}
	return out
}

// InWSL reports whether this is Linux under WSL.
func InWSL(env session.Env) bool {
	if env.Get("WSL_DISTRO_NAME") != "" {
		return true
	}
	_, err := os.Stat("/proc/sys/fs/binfmt_misc/WSLInterop")
	return err == nil
}

// LinuxPath is the path WSL sees a Windows path at: C:\Users\me\proj is
// /mnt/c/Users/me/proj (the drive's letter in lower case). A path that is
// not a Windows drive path is returned as it is, with ok false.
func LinuxPath(p string) (string, bool) {
	if len(p) < 2 || p[1] != ':' || !(p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z') {
		return p, false
	}
	if len(p) > 2 && p[2] != '\\' && p[2] != '/' {
		return p, false // C:relative is no place
	}
	// Cleaned as a rooted path first: no .. leads above the drive.
	rest := path.Clean("/" + strings.ReplaceAll(p[2:], `\`, "/"))
	return strings.TrimSuffix("/mnt/"+strings.ToLower(p[:1])+rest, "/"), true
}

// WindowsPath is the Windows path of a path WSL sees on a Windows drive:
// /mnt/c/Users/me/proj is C:\Users\me\proj. Any other path is returned as
// it is, with ok false.
func WindowsPath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/mnt/")
	if !ok || len(rest) == 0 || !(rest[0] >= 'a' && rest[0] <= 'z') || len(rest) > 1 && rest[1] != '/' {
		return p, false
	}
	drive := strings.ToUpper(rest[:1]) + `:`
	tail := path.Clean("/" + rest[1:])
	return drive + strings.ReplaceAll(tail, "/", `\`), true
}
