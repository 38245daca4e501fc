package clitest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
)

// Binary is an installed CLI.
type Binary struct {
	Name string
	// Path is the executable, or the script Runtime runs.
	Path string
	// Runtime, when set, runs Path (Kimi Code's Node 22).
	Runtime string
	// Spec is the npm package spec it was installed from.
	Spec string
}

// Root returns the repository root (the folder holding go.mod).
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// CacheDir is where scripts/install-clis.sh installs the CLIs.
func CacheDir() string {
	if d := os.Getenv("STEAD_CLI_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "stead", "clis")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "stead", "clis")
}

// Find locates the pinned CLI name. When it is not installed the test is
// skipped, or fails when STEAD_REQUIRE_CLIS=1.
func Find(tb testing.TB, name string) Binary {
	tb.Helper()
	pin, ok := scenarios.Pins()[name]
	if !ok {
		tb.Fatalf("%s is not in scenarios/clis.txt", name)
	}
	argv, ok := scenarios.Installed(session.Env{Vars: map[string]string{"STEAD_CLI_CACHE": CacheDir()}}, name)
	if !ok {
		msg := pin.Spec + " is not installed in " + CacheDir() + ": run scripts/install-clis.sh " + name
		if os.Getenv("STEAD_REQUIRE_CLIS") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	b := Binary{Name: name, Spec: pin.Spec, Path: argv[len(argv)-1]}
	if len(argv) > 1 {
		b.Runtime = argv[0]
	}
	return b
}

// Env is one CLI set up to run in a test against a stub.
type Env struct {
	tb      testing.TB
	CLI     string
	Adapter adapters.Adapter
	Bin     Binary
	// Home is the CLI's home, Dir the project it runs in, Tmp its
	// temporary directory; all are removed after the test.
	Home, Dir, Tmp string
	Stub           *modelstub.Stub
	// Model is the model the CLI is told to use ("" for its default).
	Model string
	// Timeout bounds each run (default 3 minutes).
	Timeout time.Duration
	log     *os.File
	setup   live.Setup
}

// Option changes how New sets up a test.
type Option func(*config)

type config struct {
	root    string
	project string
}

// Project names the project directory, below the test's directory
// (default "project"); it may hold slashes.
func Project(name string) Option {
	return func(c *config) { c.project = filepath.FromSlash(name) }
}

// In puts the test's directory (home, project, request log) in dir
// instead of a temporary directory of the test's own, so that it outlives
// a subtest: the caller removes it.
func In(dir string) Option {
	return func(c *config) { c.root = dir }
}

// New finds the CLI, starts a stub playing script, and seeds a home and a
// project directory for it.
func New(tb testing.TB, cli string, script *modelstub.Script, opts ...Option) *Env {
	tb.Helper()
	a, ok := adapters.Lookup(cli)
	if !ok || a.Driver == nil || a.Setup == nil || a.Argv == nil {
		tb.Fatalf("no adapter can launch %q", cli)
	}
	bin := Find(tb, cli)
	cfg := config{project: "project"}
	for _, o := range opts {
		o(&cfg)
	}
	root := cfg.root
	if root == "" {
		root = tb.TempDir()
	}
	// Resolve symlinks: CLIs record the physical cwd.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	e := &Env{tb: tb, CLI: cli, Adapter: a, Bin: bin, Timeout: 3 * time.Minute,
		Home: filepath.Join(root, "home"), Dir: filepath.Join(root, cfg.project), Tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{e.Home, e.Dir, e.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	var err error
	e.log, err = os.Create(filepath.Join(root, "requests.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	e.Stub, err = modelstub.Start(modelstub.Options{Script: script, Log: e.log,
		ToolNames: adapters.NativeTools, ToolCall: adapters.NativeCall, Dir: e.Dir})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		e.Stub.Close()
		e.log.Close()
		e.keep(root)
	})
	e.setup = a.Setup(e.launch("", ""))
	for name, data := range e.setup.Files {
		p := filepath.Join(e.Home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return e
}

// keep copies the test's directory (home, project, request log) to
// $STEAD_E2E_KEEP/<test name>/<cli>, when that is set, to look at after the test.
func (e *Env) keep(root string) {
	dir := os.Getenv("STEAD_E2E_KEEP")
	if dir == "" {
		return
	}
	// A test may drive several CLIs: each is kept apart.
	dst := filepath.Join(dir, strings.ReplaceAll(e.tb.Name(), "/", "_"), e.CLI)
	os.RemoveAll(dst)
	if err := os.CopyFS(dst, os.DirFS(root)); err != nil {
		e.tb.Logf("keeping %s: %v", root, err)
		return
	}
	e.tb.Logf("kept the CLI's home, project and the request log in %s", dst)
}

// LogPath is the stub's request log.
func (e *Env) LogPath() string { return e.log.Name() }

func (e *Env) launch(prompt, resume string) live.Launch {
	return live.Launch{Home: e.Home, Dir: e.Dir, BaseURL: e.Stub.URL(), Model: e.Model, Prompt: prompt, Resume: resume}
}

// Result is what a run produced.
type Result struct {
	Args           []string
	Stdout, Stderr string
	Code           int
	Took           time.Duration
	TimedOut       bool
	// SessionID is the session the run printed it used, if any.
	SessionID string
	// Failure is the error the CLI reported, when it exited non-zero.
	Failure string
}

// Env returns the process environment of a run: PATH and locale from the
// test's environment, nothing else of it, and the CLI's setup.
func (e *Env) Environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "TMPDIR=" + e.Tmp, "USER=stead"}
	return append(env, e.setup.Env...)
}

// Run runs the CLI headless with the prompt (continuing resume when set),
// in the project directory, stdin from /dev/null, within the timeout.
func (e *Env) Run(prompt, resume string) Result {
	e.tb.Helper()
	args := e.Adapter.Argv(e.launch(prompt, resume))
	name := e.Bin.Path
	if e.Bin.Runtime != "" {
		args = append([]string{e.Bin.Path}, args...)
		name = e.Bin.Runtime
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	cmd.Stdin = nil // /dev/null
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// Run in a process group of its own, so a timeout kills helpers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := Result{Args: append([]string{name}, args...), Stdout: out.String(), Stderr: errOut.String(), Took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.TimedOut, r.Code = true, -1
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		e.tb.Fatalf("running %s: %v", e.CLI, err)
	}
	r.SessionID = e.Adapter.SessionID(out.Bytes())
	if r.Code != 0 {
		r.Failure = e.Adapter.Failure(out.Bytes(), errOut.Bytes())
		if r.TimedOut {
			r.Failure = "timed out after " + e.Timeout.String()
		}
	}
	e.tb.Logf("%s %s: exit %d in %s", e.CLI, strings.Join(redact(args), " "), r.Code, r.Took.Round(time.Millisecond))
	return r
}

func redact(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 60 {
			a = a[:57] + "..."
		}
		out[i] = a
	}
	return out
}

// Sessions discovers the native session files the CLI wrote, with the
// adapter's reader, when stead reads this CLI.
func (e *Env) Sessions() []session.Ref {
	e.tb.Helper()
	if !e.Adapter.Reads() {
		return nil
	}
	refs, warns := e.Adapter.Discover(e.StoreEnv())
	for _, w := range warns {
		e.tb.Logf("discover: %s", w)
	}
	return refs
}

// StoreEnv is the environment the CLI's runs see, for finding its store.
func (e *Env) StoreEnv() session.Env {
	vars := map[string]string{}
	for _, kv := range e.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return session.Env{Home: e.Home, Vars: vars}
}

// Explain describes a run with everything needed to see why it failed.
func (r Result) Explain() string {
	var b strings.Builder
	b.WriteString("command: " + strings.Join(redact(r.Args), " ") + "\n")
	if r.TimedOut {
		b.WriteString("timed out\n")
	}
	b.WriteString("exit code: " + strconv.Itoa(r.Code) + "\n")
	if r.Failure != "" {
		b.WriteString("failure: " + r.Failure + "\n")
	}
	b.WriteString("--- stdout ---\n" + tail(r.Stdout) + "\n--- stderr ---\n" + tail(r.Stderr))
	return b.String()
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
