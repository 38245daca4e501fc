package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// WorkVersion is the version of WorkRequest and WorkReply. A worker
// refuses a request of a later version than its own, saying which it
// speaks.
const WorkVersion = 1

// WorkRequest is what a worker gets, on bus.WorkSubject, to start a
// detached run.
type WorkRequest struct {
	V    int  `json:"v"`
	Spec Spec `json:"spec"`
	// Env is the environment of the command that asked for the run:
	// the run's CLI gets it (its PATH, homes, keys, STEAD_*), not the
	// worker's.
	Env *session.Env `json:"env,omitempty"`
	// Host is the machine of the command that asked: the run starts
	// there, where its project and environment are, unless that
	// machine's worker does not take it (Worker).
	Host string `json:"host,omitempty"`
}

// WorkReply is a worker's answer: the run's record once its CLI runs,
// or why it did not start, with the code of the sentinel error it wraps
// (bus.ErrBadRequest for a request the worker refused), as a
// supervisor's Reply.
type WorkReply struct {
	bus.Reply
	Run *live.Run `json:"run,omitempty"`
}

// workReply is the reply to a work request that started run, or ended in
// err.
func workReply(run *live.Run, err error) WorkReply {
	return WorkReply{Reply: bus.ReplyOf(err), Run: run}
}

// The requests a daemon takes from the bus, read by pure functions so
// that the handlers act only on checked values and the parsing can be
// fuzzed (work_test.go). Anyone holding the bus's token can send them.

// ParseWorkRequest reads a work request (a JSON WorkRequest, as Detach
// sends it) and checks its spec: the run id is a bus subject token, the
// CLI is one stead runs, the project directory is an absolute path, the
// source is the run's stored session and the model cannot be taken for a
// flag of the CLI.
func ParseWorkRequest(data []byte) (Spec, error) {
	spec, _, err := ParseWork(data)
	return spec, err
}

// ParseWork is ParseWorkRequest, also returning the environment the
// request carries (nil from a client that sends none: the worker's own is
// used then). A home that is not an absolute path is refused.
func ParseWork(data []byte) (Spec, *session.Env, error) {
	req, err := parseWork(data)
	return req.Spec, req.Env, err
}

// parseWork reads and checks a whole work request.
func parseWork(data []byte) (WorkRequest, error) {
	var req WorkRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return WorkRequest{}, fmt.Errorf("bad work request: %w", err)
	}
	switch {
	case req.V < 1:
		return WorkRequest{}, errors.New("bad work request: it has no version (from a stead older than this worker?)")
	case req.V > WorkVersion:
		return WorkRequest{}, fmt.Errorf("bad work request: version %d; this worker speaks version %d (is it an older stead?)", req.V, WorkVersion)
	}
	if req.Env != nil && (!filepath.IsAbs(req.Env.Home) || strings.ContainsRune(req.Env.Home, 0)) {
		return WorkRequest{}, fmt.Errorf("bad work request: home %s is not an absolute path", safetext.QuoteN(req.Env.Home, 200))
	}
	if req.Host != "" && !bus.ValidHost(req.Host) {
		return WorkRequest{}, fmt.Errorf("bad work request: host %s", safetext.QuoteN(req.Host, 80))
	}
	spec, err := checkSpec(req.Spec)
	if err != nil {
		return WorkRequest{}, err
	}
	req.Spec = spec
	return req, nil
}

// checkSpec checks a work request's spec.
func checkSpec(spec Spec) (Spec, error) {
	if !bus.ValidRun(spec.ID) {
		return Spec{}, fmt.Errorf("bad run id %s", safetext.QuoteN(spec.ID, 80))
	}
	if err := Runnable(spec.To); err != nil {
		return Spec{}, fmt.Errorf("bad work request: to: %w", err)
	}
	for _, cli := range spec.Fallback {
		if err := Runnable(cli); err != nil {
			return Spec{}, fmt.Errorf("bad work request: fallback: %w", err)
		}
	}
	switch {
	case !filepath.IsAbs(spec.Dir) || strings.ContainsRune(spec.Dir, 0):
		return Spec{}, fmt.Errorf("bad work request: dir %s is not an absolute path", safetext.QuoteN(spec.Dir, 200))
	case spec.Source != HistoryObject(spec.ID):
		// Detach stores the session under this name just before it
		// asks; another name would start the run from another session.
		return Spec{}, fmt.Errorf("bad work request: source %s is not run %s's session", safetext.QuoteN(spec.Source, 80), spec.ID)
	case strings.HasPrefix(spec.Model, "-") || strings.IndexFunc(spec.Model, unicode.IsControl) >= 0:
		// The model goes on the CLI's command line.
		return Spec{}, fmt.Errorf("bad work request: model %s", safetext.QuoteN(spec.Model, 80))
	}
	return spec, nil
}
