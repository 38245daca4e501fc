package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// ErrNoDaemon is returned when no local daemon runs.
var ErrNoDaemon = errors.New("no stead daemon runs")

// ErrDiskFull is returned when the disk holding stead's state is full.
var ErrDiskFull = errors.New("the disk is full")

// StateDir is where stead keeps its state: the bus's store, the daemon's
// address and log, A/B runs.
func StateDir(env session.Env) string {
	if d := env.Get("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "stead")
	}
	return filepath.Join(env.Home, ".local", "state", "stead")
}

// File is where the local daemon publishes its Info.
func File(env session.Env) string { return filepath.Join(StateDir(env), "bus.json") }

// Log is the local daemon's log, when a command started it.
func Log(env session.Env) string { return filepath.Join(StateDir(env), "serve.log") }

// Store is the local daemon's JetStream store.
func Store(env session.Env) string { return filepath.Join(StateDir(env), "nats") }

// Info is what a running daemon publishes of itself in File (mode 0600:
// the token lets a process on the machine in).
type Info struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
	// Started is when the daemon started; Version and Build say which
	// stead it is (Build: a hash of its program), Program where it runs
	// from.
	Started time.Time `json:"started,omitzero"`
	Version string    `json:"version,omitempty"`
	Build   string    `json:"build,omitempty"`
	Program string    `json:"program,omitempty"`
	// Web is the control room's base URL (http://127.0.0.1:<port>), and
	// WebToken the token its API takes (stead ui signs a browser in).
	Web      string `json:"web,omitempty"`
	WebToken string `json:"webToken,omitempty"`
	// ClusterKey is the file of the key of the cluster the daemon's bus
	// is a member of (bus.ClusterKey): the local stead commands sign in
	// with it instead of Token. Node names this member.
	ClusterKey string `json:"clusterKey,omitempty"`
	Node       string `json:"node,omitempty"`
}

// Alive reports whether the daemon's process runs (and is not this one).
func (i Info) Alive() bool {
	return i.PID > 0 && i.PID != os.Getpid() && runs.ProcessRuns(i.PID)
}

// Read reads what the local daemon published of itself; ErrNoDaemon when
// it published nothing.
func Read(env session.Env) (Info, error) {
	var info Info
	data, err := os.ReadFile(File(env))
	if errors.Is(err, fs.ErrNotExist) {
		return info, ErrNoDaemon
	}
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s: %w", File(env), err)
	}
	return info, nil
}

// write publishes the daemon's address, atomically.
func write(env session.Env, info Info) error {
	data, _ := json.Marshal(info)
	path := File(env)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// Build is a hash of this program's bytes: two stead programs built from
// the same source (go run builds one each time) have the same; "" when
// the program cannot be read.
var Build = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
})

// minFree is the free space below which stead does not start work that
// writes to its state: JetStream cannot store a message on a full disk,
// and a command would otherwise wait for a daemon that cannot answer.
const minFree = 1 << 20

// CheckFree fails with ErrDiskFull when the file system holding dir (or
// its nearest existing parent) has less than 1 MiB free.
func CheckFree(dir string) error {
	free, err := bus.FreeBytes(dir)
	if err != nil || free >= minFree {
		return nil // what cannot be measured is not reported
	}
	return fmt.Errorf("the disk holding stead's state (%s) has %d KiB free: free some space and try again: %w",
		dir, free>>10, ErrDiskFull)
}
