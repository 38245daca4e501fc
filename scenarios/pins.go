package scenarios

import (
	"bufio"
	_ "embed"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/session"
)

// clis.txt pins the CLI versions stead's scenarios and end-to-end tests
// were measured against; scripts/install-clis.sh installs them.
//
//go:embed clis.txt
var clisTxt string

// Pin is a pinned npm package.
type Pin struct {
	Name string
	// Spec is the npm package spec, Bin the executable relative to the
	// install folder (npm's link node_modules/.bin/<program>), Runtime
	// the pin that runs Bin ("" when it runs itself; Kimi Code's script
	// needs a newer Node).
	Spec, Bin, Runtime string
}

// Program is the command the package installs: the name of its Bin, as
// npm links it in node_modules/.bin and as it is found on PATH.
func (p Pin) Program() string { return path.Base(p.Bin) }

// Program is the command that runs cli, as found on PATH: its pin's
// Program, else cli itself (a CLI stead pins none of).
func Program(cli string) string {
	if pin, ok := Pins()[cli]; ok {
		return pin.Program()
	}
	return cli
}

// Pins returns the pinned CLIs (and the Node that Kimi Code needs), by
// name.
func Pins() map[string]Pin {
	out := map[string]Pin{}
	sc := bufio.NewScanner(strings.NewReader(clisTxt))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		p := Pin{Name: f[0], Spec: f[1], Bin: f[2]}
		if len(f) > 3 {
			p.Runtime = f[3]
		}
		out[f[0]] = p
	}
	return out
}

// CacheDir is where scripts/install-clis.sh installs the pinned CLIs:
// $STEAD_CLI_CACHE, or stead/clis in the user's cache directory.
func CacheDir(env session.Env) string {
	if d := env.Get("STEAD_CLI_CACHE"); d != "" {
		return d
	}
	if d := env.Get("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "stead", "clis")
	}
	return filepath.Join(env.Home, ".cache", "stead", "clis")
}

// Installed returns the command that runs the pinned cli from the cache
// (a runtime first, for Kimi Code), if it is installed at its pinned
// version.
func Installed(env session.Env, cli string) ([]string, bool) {
	pins := Pins()
	pin, ok := pins[cli]
	if !ok {
		return nil, false
	}
	cache := CacheDir(env)
	bin, ok := installedPin(cache, pin)
	if !ok {
		return nil, false
	}
	if pin.Runtime == "" {
		return []string{bin}, true
	}
	runtime, ok := installedPin(cache, pins[pin.Runtime])
	if !ok {
		return nil, false
	}
	return []string{runtime, bin}, true
}

func installedPin(cache string, pin Pin) (string, bool) {
	dir := filepath.Join(cache, pin.Name)
	stamp, err := os.ReadFile(filepath.Join(dir, ".installed"))
	if err != nil || strings.TrimSpace(string(stamp)) != pin.Spec {
		return "", false
	}
	bin := filepath.Join(dir, filepath.FromSlash(pin.Bin))
	if _, err := os.Stat(bin); err != nil {
		return "", false
	}
	return bin, true
}
