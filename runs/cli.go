package runs

import (
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
)

// SignalName names a signal as a person looks it up: SIGKILL (killed).
func SignalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name + " (" + sig.String() + ")"
	}
	return sig.String()
}

// Program finds the program of a CLI as a scenario does (see
// scenarios.FindCLI): $STEAD_<CLI>_BIN, the pinned install, then PATH.
func Program(env session.Env, cli string) (string, []string, error) {
	argv, _, err := scenarios.FindCLI(env, cli)
	if err != nil {
		return "", nil, err
	}
	return argv[0], argv[1:], nil
}

// Environ is env as a process environment.
func Environ(env session.Env) []string {
	out := make([]string, 0, len(env.Vars))
	for k, v := range env.Vars {
		out = append(out, k+"="+v)
	}
	return out
}
