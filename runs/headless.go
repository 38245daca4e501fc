package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Headless runs a new session of cli in its headless mode (a prompt in,
// an answer out, no terminal) in dir, as run id: its record and entries
// go on the bus like a supervised run's, and its session is stored
// whole. It returns the session the CLI wrote.
func (sv *Supervisor) Headless(ctx context.Context, id, cli, prompt, dir, model string) (*session.Session, error) {
	b, log := sv.Bus, sv.logger()
	a, _ := adapters.Lookup(cli)
	if a.Driver == nil || a.Argv == nil || a.SessionID == nil || !a.Reads() {
		return nil, fmt.Errorf("%s has no headless mode stead knows: start the chain --from a session", cli)
	}
	bin, prefix, err := Program(sv.Env, cli)
	if err != nil {
		return nil, err
	}
	host := sv.host()
	rec := live.Run{ID: id, CLI: cli, Dir: dir, Host: host, Supervisor: SupervisorName(host),
		State: live.RunBusy, Started: time.Now().UTC()}
	PutRun(b, rec, log)
	cmd := exec.CommandContext(ctx, bin, append(prefix, a.Argv(live.Launch{Home: sv.Env.Home, Dir: dir, Prompt: prompt, Model: model})...)...)
	cmd.Dir, cmd.Env = dir, Environ(sv.Env)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	rec.Ended = time.Now().UTC()
	if cmd.ProcessState != nil {
		code := cmd.ProcessState.ExitCode()
		rec.ExitCode = &code
	}
	fail := func(err error) (*session.Session, error) {
		rec.State, rec.Reason = live.RunFailed, err.Error()
		ended(b, rec, "headless", log)
		return nil, err
	}
	if runErr != nil {
		switch cerr := ctx.Err(); {
		case errors.Is(cerr, context.DeadlineExceeded):
			return fail(fmt.Errorf("%s did not finish in the time it was given", cli))
		case cerr != nil:
			rec.State, rec.Reason = live.RunInterrupted, "interrupted while busy (stead was interrupted)"
			ended(b, rec, "headless", log)
			return nil, fmt.Errorf("%s: %s: %w", id, rec.Reason, context.Canceled)
		}
		return fail(fmt.Errorf("%s %s: %w: %s", cli, strings.Join(cmd.Args[1:], " "), runErr, safetext.ClipLine(errOut.String(), 500)))
	}
	sid := a.SessionID(out.Bytes())
	if sid == "" {
		return fail(fmt.Errorf("%s printed no session id", cli))
	}
	ref, err := a.Locate(sv.Env, sid)
	if err != nil {
		return fail(err)
	}
	s, err := a.Open(sv.Env, ref)
	if err != nil {
		return fail(err)
	}
	for i := range s.Timeline {
		if s.Timeline[i].CLI == "" {
			s.Timeline[i].CLI = cli
		}
	}
	rec.SessionID, rec.Path, rec.Entries = sid, ref.Path, len(s.Timeline)
	ev, _ := json.Marshal(session.Event{Entries: s.Timeline})
	if err := b.Publish(ctx, id, bus.Entry, ev, id+":e:all"); err != nil {
		log.Warn("publishing the headless step's entries", "run", id, "err", err)
	}
	data, err := json.Marshal(s.WithoutNative())
	if err != nil {
		return fail(err)
	}
	if err := b.PutSession(ctx, id, bytes.NewReader(data)); err != nil {
		return fail(err)
	}
	rec.State, rec.Reason = live.RunExited, "headless run"
	ended(b, rec, "headless", log)
	return s, nil
}

// ended stores the final record of a run that was not captured (a
// headless run, a run that did not start) and says on its status subject
// that it ended, as a captured run's last status does: a watcher of the
// run stops there.
func ended(b *bus.Bus, rec live.Run, signal string, log *slog.Logger) {
	PutRun(b, rec, log)
	st, _ := json.Marshal(live.Status{Run: rec.ID, State: rec.State, Time: rec.Ended, Signal: signal, Detail: rec.Reason, ExitCode: rec.ExitCode})
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if err := b.Publish(ctx, rec.ID, bus.Status, st, ""); err != nil {
		log.Warn("publishing the run's end", "run", rec.ID, "err", err)
	}
}

// AnswerOf is the last text the model gave in the entries of s from
// index from on (those a run added to its history): not an error, not
// the history's.
func AnswerOf(s *session.Session, from int) string {
	for i := len(s.Timeline) - 1; i >= from && i >= 0; i-- {
		e := s.Timeline[i]
		if e.Type == session.Assistant && e.Kind != session.KindError && e.Content != "" {
			return e.Content
		}
	}
	return ""
}

// TurnError is the error that ended the entries of s from index from on:
// the last error after the last answer, if any.
func TurnError(s *session.Session, from int) string {
	for i := len(s.Timeline) - 1; i >= from && i >= 0; i-- {
		e := s.Timeline[i]
		// Claude records an API error as an assistant message.
		if (e.Type == session.System || e.Type == session.Assistant) && e.Kind == session.KindError {
			return e.Content
		}
		if e.Type == session.Assistant && e.Content != "" {
			return ""
		}
	}
	return ""
}
