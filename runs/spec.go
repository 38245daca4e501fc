package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
)

// Spec is a run to start: a universal session resumed in a CLI.
type Spec struct {
	ID     string `json:"id"`
	To     string `json:"to"`
	Dir    string `json:"dir"`
	Prompt string `json:"prompt,omitempty"`
	Model  string `json:"model,omitempty"`
	Auto   bool   `json:"auto,omitempty"`
	// Source names the stored universal session to start from (the
	// object store), for a run a worker starts.
	Source string `json:"source,omitempty"`
	// Once ends the run when the prompt's turn is over: the CLI is asked
	// to quit once it is ready again.
	Once bool `json:"once,omitempty"`
	// Trust answers yes when the CLI asks whether to trust the project
	// folder: for folders stead made (an A/B variant's copy of the
	// project), never for the user's own.
	Trust bool `json:"trust,omitempty"`
	// Fallback names the CLIs to continue a detached run in, in order,
	// when its worker is lost and the machine that takes it over has no
	// To installed.
	Fallback []string `json:"fallback,omitempty"`
}

func NewID() string {
	var b [6]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// SupervisorName names this process as the supervisor of a run.
func SupervisorName(host string) string { return fmt.Sprintf("%s/%d", host, os.Getpid()) }

// failedRun records a run that failed before its CLI started, so that
// stead runs shows it with its error (a record Run stored is
// kept).
func failedRun(b *bus.Bus, host string, spec Spec, cause error, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if r, err := b.Run(ctx, spec.ID); err == nil && r.State.Done() {
		return
	}
	now := time.Now().UTC()
	ended(b, live.Run{ID: spec.ID, CLI: spec.To, Dir: spec.Dir, Host: host, Supervisor: SupervisorName(host),
		State: live.RunFailed, Started: now, Ended: now, Reason: "it did not start: " + cause.Error()}, "start", log)
}

// OutOfTime starts the reason of a run stopped by its deadline.
const OutOfTime = "it did not finish in the time it was given"

// ErrRunFailed is returned when the CLI of a run failed.
var ErrRunFailed = errors.New("the run failed")
