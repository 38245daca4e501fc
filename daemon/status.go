package daemon

import (
	"context"
	"os"
	"time"

	"github.com/stead-dev/stead/session"
)

// Status is what is known of the local daemon.
type Status struct {
	Running bool      `json:"running"`
	PID     int       `json:"pid,omitempty"`
	URL     string    `json:"url,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Uptime  string    `json:"uptime,omitempty"`
	Version string    `json:"version,omitempty"`
	Build   string    `json:"build,omitempty"`
	// SameBuild is false when the daemon is another build of stead than
	// the program asking.
	SameBuild bool   `json:"sameBuild"`
	Program   string `json:"program,omitempty"`
	Store     string `json:"store"`
	Log       string `json:"log"`
	// Runs counts the runs on the bus; Active those not ended.
	Runs   int `json:"runs"`
	Active int `json:"active"`
}

// StatusOf says whether the local daemon of env runs, and if so what it
// is and how many runs its bus holds.
func StatusOf(ctx context.Context, env session.Env) Status {
	st := Status{Store: Store(env), Log: Log(env)}
	info, err := Read(env)
	if err != nil {
		return st
	}
	// A daemon of this process runs if it answers (see Dial).
	self := info.PID == os.Getpid()
	if !self && !info.Alive() {
		return st
	}
	b, err := Dial(ctx, env, nil)
	if self && err != nil {
		return st
	}
	st.Running, st.PID, st.URL, st.Started = true, info.PID, info.URL, info.Started
	st.Version, st.Build, st.Program = info.Version, info.Build, info.Program
	st.SameBuild = info.Build != "" && info.Build == Build()
	if !info.Started.IsZero() {
		st.Uptime = time.Since(info.Started).Round(time.Second).String()
	}
	if err != nil {
		return st
	}
	defer b.Close()
	if all, err := b.Runs(ctx); err == nil {
		st.Runs = len(all)
		for _, r := range all {
			if !r.State.Done() {
				st.Active++
			}
		}
	}
	return st
}
