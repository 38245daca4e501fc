package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// Sandbox is where a scenario runs: a home of its own that every CLI is
// set up in, talking to a model stub of its own on 127.0.0.1; a project
// directory; and stead's own state. Nothing outside Root is written.
type Sandbox struct {
	Root string
	// Dir is the project directory.
	Dir string
	// Env is the environment stead and the CLIs run with.
	Env session.Env
	// Bins says which executable runs each CLI, and where it was found.
	Bins  map[string]string
	stubs map[string]*modelstub.Stub
}

// SandboxOptions configure Prepare.
type SandboxOptions struct {
	// Root is the sandbox's folder: created, and expected to be empty.
	Root string
	// User is the user's environment: PATH, the locale and
	// STEAD_<CLI>_BIN pass into the sandbox, nothing else. (The CLIs
	// run in stead's terminal, an xterm-256color, not the user's.)
	User   session.Env
	Logger *slog.Logger
}

// passed are the variables of the user's environment a sandbox keeps
// (STEAD_<CLI>_BIN too).
var passed = []string{"PATH", "LANG", "LC_ALL", "USER", "LOGNAME", "STEAD_CLI_CACHE", "STEAD_DEBUG"}

// Prepare makes the sandbox for sc: the project, a home with every CLI
// the scenario runs set up against a stub of its own, and the
// environment. It fails, saying how to install it, when a CLI is
// missing.
func Prepare(sc *Scenario, opts SandboxOptions) (*Sandbox, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	// CLIs record the physical working directory.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	home := filepath.Join(root, "home")
	sb := &Sandbox{Root: root, Dir: filepath.Join(root, "project"), Bins: map[string]string{}, stubs: map[string]*modelstub.Stub{}}
	vars := map[string]string{"LANG": "C.UTF-8", "TERM": "xterm-256color", "USER": "stead"}
	for _, k := range passed {
		if v := opts.User.Get(k); v != "" {
			vars[k] = v
		}
	}
	for _, d := range []string{home, sb.Dir, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	var missing []string
	for _, cli := range sc.CLIs() {
		a, _ := adapters.Lookup(cli)
		argv, where, err := findCLI(opts.User, cli)
		if err != nil {
			missing = append(missing, err.Error())
			continue
		}
		vars["STEAD_"+strings.ToUpper(cli)+"_BIN"] = strings.Join(argv, " ")
		sb.Bins[cli] = where
		stub, err := modelstub.Start(modelstub.Options{Script: idle(), Dir: sb.Dir,
			ToolNames: adapters.NativeTools, ToolCall: adapters.NativeCall, Logger: log.With("stub", cli)})
		if err != nil {
			sb.Close()
			return nil, err
		}
		sb.stubs[cli] = stub
		st := a.Setup(live.Launch{Home: home, Dir: sb.Dir, BaseURL: stub.URL()})
		for name, data := range st.Files {
			p := filepath.Join(home, filepath.FromSlash(name))
			if !strings.HasPrefix(p, home+string(filepath.Separator)) {
				sb.Close()
				return nil, fmt.Errorf("%s's setup file %q is outside the home", cli, name)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				sb.Close()
				return nil, err
			}
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				sb.Close()
				return nil, err
			}
		}
		for _, kv := range st.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				vars[k] = v
			}
		}
	}
	if len(missing) > 0 {
		sb.Close()
		return nil, fmt.Errorf("%w: %s", ErrMissingCLI, strings.Join(missing, "; "))
	}
	// One home for every CLI (each keeps its store in a folder of its
	// own), and stead's state in the sandbox, whatever a CLI's setup
	// said of the XDG folders.
	vars["HOME"], vars["TMPDIR"], vars["XDG_STATE_HOME"] = home, filepath.Join(root, "tmp"), filepath.Join(root, "state")
	delete(vars, "NO_COLOR")
	sb.Env = session.Env{Home: home, Vars: vars}
	if err := sb.project(sc); err != nil {
		sb.Close()
		return nil, err
	}
	return sb, nil
}

// ErrMissingCLI says a CLI stead is asked to run is not installed.
var ErrMissingCLI = errors.New("a CLI stead runs is not installed")

// MissingCLIError says which CLI is missing and how to install it. It
// matches ErrMissingCLI.
type MissingCLIError struct {
	CLI string
	// Spec is the pinned npm package ("" for a CLI stead pins none of),
	// Cache where scripts/install-clis.sh installs it, Program the
	// command looked for on PATH (see Program), Var the variable that
	// names its program.
	Spec, Cache, Program, Var string
}

func (e *MissingCLIError) Error() string {
	if e.Spec == "" {
		return fmt.Sprintf("%s is not on PATH; set %s to its program", e.Program, e.Var)
	}
	return fmt.Sprintf("%s is not installed: install the pinned %s with scripts/install-clis.sh %s (into %s), put %s on PATH, or set %s to its program",
		e.CLI, e.Spec, e.CLI, e.Cache, e.Program, e.Var)
}

// Is makes a MissingCLIError match ErrMissingCLI.
func (e *MissingCLIError) Is(target error) bool { return target == ErrMissingCLI }

// FindCLI finds the command that runs cli: STEAD_<CLI>_BIN (which may be
// "runtime script"), the pinned install (scripts/install-clis.sh, with the
// runtime it needs), or its program (Program) on PATH, in that order; from
// says which. When
// none is there, the error, a *MissingCLIError, says how to install it and
// which variable names it.
func FindCLI(env session.Env, cli string) (argv []string, from string, err error) {
	key := "STEAD_" + strings.ToUpper(cli) + "_BIN"
	if v := env.Get(key); v != "" {
		return strings.Fields(v), key, nil
	}
	pin, pinned := Pins()[cli]
	if argv, ok := Installed(env, cli); ok {
		return argv, "pinned " + pin.Spec + " in " + CacheDir(env), nil
	}
	if p, err := lookPath(env, Program(cli)); err == nil {
		if !pinned {
			return []string{p}, "PATH", nil
		}
		if pin.Runtime != "" {
			// A script that needs a newer runtime than the system's
			// (Kimi Code on Node 22) runs on the pinned one when it is
			// installed.
			if rt, ok := installedPin(CacheDir(env), Pins()[pin.Runtime]); ok {
				if real, err := filepath.EvalSymlinks(p); err == nil {
					p = real
				}
				return []string{rt, p}, "PATH (not the pinned " + pin.Spec + "), run by the pinned " + Pins()[pin.Runtime].Spec, nil
			}
		}
		return []string{p}, "PATH (not the pinned " + pin.Spec + ")", nil
	}
	return nil, "", &MissingCLIError{CLI: cli, Spec: pin.Spec, Cache: CacheDir(env), Program: Program(cli), Var: key}
}

// findCLI is FindCLI for a sandbox.
func findCLI(user session.Env, cli string) ([]string, string, error) {
	return FindCLI(user, cli)
}

func lookPath(env session.Env, name string) (string, error) {
	for _, dir := range filepath.SplitList(env.Get("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// idle is a stub's script between steps: any request then gets a text
// saying nothing was scripted for it.
func idle() *modelstub.Script {
	return &modelstub.Script{Turns: []modelstub.Turn{{Text: "[stead scenario: no model answer is scripted for this request]"}}}
}

// project writes the project's files and makes it a git repository.
func (sb *Sandbox) project(sc *Scenario) error {
	for _, name := range sortedKeys(sc.Project.Files) {
		p := filepath.Join(sb.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(sc.Project.Files[name]), 0o644); err != nil {
			return err
		}
	}
	if !sc.Project.Git {
		return nil
	}
	if len(sc.Project.Files) == 0 {
		// git commits nothing in an empty folder.
		if err := os.WriteFile(filepath.Join(sb.Dir, "README"), []byte("A project made by a stead scenario.\n"), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=stead", "-c", "user.email=stead@localhost", "-c", "commit.gpgsign=false", "commit", "-qm", "the scenario's project"}} {
		cmd := exec.Command("git", append([]string{"-C", sb.Dir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+sb.Env.Home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("making the project a git repository: git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// copyStart copies the scenario's start file into the sandbox, so that
// a scenario built into stead has a real file to read.
func (sb *Sandbox) copyStart(sc *Scenario) (string, error) {
	if filepath.IsAbs(sc.Start.File) {
		return sc.Start.File, nil
	}
	data, err := fs.ReadFile(sc.Dir, relTo(sc.path, sc.Start.File))
	if err != nil {
		return "", fmt.Errorf("%s: start: %w", sc.File, err)
	}
	dir := filepath.Join(sb.Root, "start")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.Base(filepath.FromSlash(sc.Start.File)))
	return p, os.WriteFile(p, data, 0o600)
}

// relTo resolves rel against the folder of file, in an fs.FS.
func relTo(file, rel string) string {
	dir := filepath.ToSlash(filepath.Dir(filepath.FromSlash(file)))
	if dir == "." {
		return rel
	}
	return dir + "/" + rel
}

// play has cli's model answer turns next, {cli} in them naming cli.
func (sb *Sandbox) play(cli string, turns []modelstub.Turn) error {
	stub, ok := sb.stubs[cli]
	if !ok {
		return fmt.Errorf("no model stub for %s", cli)
	}
	return stub.Play(&modelstub.Script{Turns: named(turns, cli)})
}

// mark is how many requests each stub has had; lastRequest finds the
// last main request cli's model got since.
type mark map[string]int

func (sb *Sandbox) mark() mark {
	m := mark{}
	for cli, s := range sb.stubs {
		m[cli] = len(s.Requests())
	}
	return m
}

func (sb *Sandbox) lastRequest(cli string, since mark) *modelstub.Request {
	s, ok := sb.stubs[cli]
	if !ok {
		return nil
	}
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= since[cli] && i >= 0; i-- {
		if !reqs[i].Side {
			return &reqs[i]
		}
	}
	return nil
}

// Close stops the stubs.
func (sb *Sandbox) Close() error {
	var errs []error
	for _, s := range sb.stubs {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
