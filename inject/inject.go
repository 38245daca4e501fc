package inject

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stead-dev/stead/session"
)

// Encoder writes a native session, one normalised entry at a time. Tool
// calls arrive with OriginalTool and Input in the target's own terms, each
// followed by its result before anything else of a later turn.
type Encoder interface {
	Encode(e *session.Entry) error
	// Close finishes the native file.
	Close() error
}

// Sidecars is implemented by encoders whose CLI needs small files beside
// the session that only the whole session determines (an index entry, a
// state file). Install creates them after the session file.
type Sidecars interface {
	Files() []session.File
}

// Writer is what inject needs of the target CLI's adapter.
type Writer struct {
	CLI string
	// Place chooses the new session's id (when t.ID is empty) and where it
	// goes in the store env points at.
	Place func(env session.Env, t *session.Target) (session.Placement, error)
	// NewEncoder writes the native session to w; lost reports what the
	// target cannot hold (thinking it cannot sign, images, ...).
	NewEncoder func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder
	// ToolCall turns a universal tool call into the target's own: its
	// tool name and input. ok is false when the target has no such tool.
	ToolCall func(tool session.Tool, args map[string]any) (name string, input json.RawMessage, ok bool)
	// Commit, when set, installs the native file written at tmp itself
	// (a CLI whose store is a database imports it) instead of Install
	// linking it to Placement.Path.
	Commit func(env session.Env, p session.Placement, t session.Target, tmp string) error
}

// Reader is what inject needs of the source CLI's adapter.
type Reader struct {
	CLI string
	// ToolArgs reads the source CLI's native tool calls.
	ToolArgs ToolArgs
	// ToolArgsOf, when set, gives the ToolArgs of another CLI, for the
	// entries of a session that another CLI made (Entry.CLI): a session
	// chained across CLIs holds each one's native tool calls.
	ToolArgsOf func(cli string) ToolArgs
}

// ToolArgs reads a native tool call into universal arguments. ok is
// false when the tool has no universal form.
type ToolArgs func(name string, input json.RawMessage) (tool session.Tool, args map[string]any, ok bool)

// toolArgs is how to read e's tool call, and the CLI that made it.
func (r Reader) toolArgs(e session.Entry) (string, ToolArgs) {
	if e.CLI == "" || e.CLI == r.CLI || r.ToolArgsOf == nil {
		return r.CLI, r.ToolArgs
	}
	return e.CLI, r.ToolArgsOf(e.CLI)
}

// Fidelity is how much structure a conversion keeps.
type Fidelity string

// Fidelity levels.
const (
	// Native keeps tool calls as the target's own structured calls.
	Native Fidelity = "native"
	// Text flattens the conversation to user and assistant text, which
	// every CLI loads.
	Text Fidelity = "text"
)

// Options configures a conversion. The zero value converts at native
// fidelity into the source's project directory.
type Options struct {
	Fidelity Fidelity
	// Dir is the project directory of the new session; empty means the
	// source's.
	Dir string
	// Env is the environment the target's store is found from.
	Env session.Env
	// ID is the new session's id; empty lets the target choose.
	ID string
	// Format is the target's storage format, when it has several.
	Format string
	// Tool names the converter in the provenance record.
	Tool string
	// At records, for a fork, the entry the session was cut at (the
	// caller cuts it).
	At string
	// Model is the model the target CLI is to resume the session with
	// (--model); empty means the one the target CLI is configured with
	// (its configuration files and environment, from Env), else the
	// CLI's own default. The source's model is never used: it is another
	// provider's when the CLIs differ. The writer's Place settles it; the
	// report's Target.Model and Target.ModelFrom say which it is.
	Model string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Report says what a conversion did.
type Report struct {
	Source    session.Origin    `json:"source"`
	Target    session.Target    `json:"target"`
	Placement session.Placement `json:"placement"`
	// Installed is true when the session was placed in the store.
	Installed bool     `json:"installed"`
	Fidelity  Fidelity `json:"fidelity"`
	// Entries counts the entries written, ToolCalls the tool calls
	// carried as calls.
	Entries   int `json:"entries"`
	ToolCalls int `json:"toolCalls"`
	// Losses lists everything dropped or changed, in order.
	Losses []session.Loss `json:"losses"`
	// Warnings lists what reading the source reported: lines skipped,
	// invalid UTF-8 read as U+FFFD, files not followed. What they name
	// is not carried as it is in the source.
	Warnings []session.Warning `json:"warnings"`
}

// ModelFlag is Target.ModelFrom for a model the caller asked for.
const ModelFlag = "--model"

// ErrEmpty is returned for a session with nothing a CLI could resume.
var ErrEmpty = errors.New("nothing to convert: the session has no user or assistant messages")

// target builds the Target of a conversion of s.
func target(s *session.Session, w Writer, opts Options) session.Target {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	// When stead writes the session: every record it writes is history,
	// timed at or before it, so summaries tell the history from what the
	// target CLI adds later (session.Origin.Written).
	written := now().UTC()
	t := session.Target{
		CLI:            w.CLI,
		ID:             opts.ID,
		Dir:            opts.Dir,
		Created:        s.Metadata.Created,
		Model:          opts.Model,
		SourceModel:    s.Model.Model,
		SourceProvider: s.Model.Provider,
		Title:          s.Title,
		Origin:         session.Origin{CLI: s.Source.CLI, ID: s.ID, Tool: opts.Tool, At: opts.At, Written: written},
		Format:         opts.Format,
	}
	if t.Model != "" {
		t.ModelFrom = ModelFlag
	}
	if t.Dir == "" {
		t.Dir = s.Project.Path
	}
	if t.Created.IsZero() {
		for _, e := range s.Timeline {
			if !e.Timestamp.IsZero() {
				t.Created = e.Timestamp
				break
			}
		}
	}
	if t.Created.IsZero() {
		t.Created = written
	}
	return t
}

// Stream yields the events of a native session, one record at a time,
// and io.EOF at the end: an adapter's decoder.
type Stream interface {
	Decode() (session.Event, error)
}

// Convert writes s as a native session of w's CLI to out, without placing
// it in a store: the target's id and placement are still chosen (from
// opts.Env), so the output is what Install would write.
func Convert(s *session.Session, r Reader, w Writer, opts Options, out io.Writer) (*Report, error) {
	return convert(s, nil, r, w, opts, out)
}

// ConvertStream is Convert for a session read as it goes: meta holds what
// is known of the whole session up front (id, source, project, model,
// title, created; its timeline is ignored), and events the entries, in
// order. Memory stays bounded by the normaliser's window, whatever the
// session's size.
func ConvertStream(meta *session.Session, events Stream, r Reader, w Writer, opts Options, out io.Writer) (*Report, error) {
	return convert(meta, events, r, w, opts, out)
}

func convert(s *session.Session, events Stream, r Reader, w Writer, opts Options, out io.Writer) (*Report, error) {
	rep, t, err := prepare(s, w, opts)
	if err != nil {
		return nil, err
	}
	if err := encode(s, events, r, w, t, out, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

func prepare(s *session.Session, w Writer, opts Options) (*Report, session.Target, error) {
	if opts.Fidelity == "" {
		opts.Fidelity = Native
	}
	if opts.Fidelity != Native && opts.Fidelity != Text {
		return nil, session.Target{}, fmt.Errorf("inject: unknown fidelity %q (want native or text)", opts.Fidelity)
	}
	t := target(s, w, opts)
	if t.Dir == "" {
		return nil, t, fmt.Errorf("inject: the session records no project directory: name one")
	}
	p, err := w.Place(opts.Env, &t)
	if err != nil {
		return nil, t, fmt.Errorf("inject: placing the session in %s's store: %w", w.CLI, err)
	}
	if err := checkPlacement(p); err != nil {
		return nil, t, err
	}
	t.Path = p.Path
	rep := &Report{Source: t.Origin, Target: t, Placement: p, Fidelity: opts.Fidelity, Losses: []session.Loss{},
		Warnings: append([]session.Warning{}, s.Warnings...)}
	return rep, t, nil
}

// encode normalises the session (s's timeline, or events when set) and
// streams it through w's encoder to out.
func encode(s *session.Session, events Stream, r Reader, w Writer, t session.Target, out io.Writer, rep *Report) error {
	lost := func(l session.Loss) { rep.Losses = append(rep.Losses, l) }
	enc := w.NewEncoder(out, t, lost)
	var werr error
	n := newNormalizer(r, w, rep.Fidelity, lost, func(e *session.Entry) {
		if werr != nil {
			return
		}
		if e.Type == session.ToolCall {
			rep.ToolCalls++
		}
		rep.Entries++
		werr = enc.Encode(e)
	})
	if events == nil {
		n.run(s.Timeline)
	} else {
		for werr == nil {
			ev, err := events.Decode()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("inject: reading the %s session: %w", r.CLI, err)
			}
			if ev.Warning != nil {
				rep.Warnings = append(rep.Warnings, *ev.Warning)
			}
			for _, e := range ev.Entries {
				n.push(e)
			}
			for _, u := range ev.Updates {
				n.update(u)
			}
		}
		n.finish()
	}
	if werr != nil {
		return fmt.Errorf("inject: writing %s session: %w", w.CLI, werr)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("inject: writing %s session: %w", w.CLI, err)
	}
	if n.conversational == 0 {
		return ErrEmpty
	}
	if sc, ok := enc.(Sidecars); ok {
		rep.Placement.Files = append(rep.Placement.Files, sc.Files()...)
	}
	return nil
}

// ModelLine says, for a person, which model the target CLI will continue
// the session with, where that choice comes from, and the source's model
// when it differs.
func (r *Report) ModelLine() string {
	t := r.Target
	var b strings.Builder
	switch {
	case t.Model == "":
		fmt.Fprintf(&b, "%s will use its default model", t.CLI)
	case t.ModelFrom == "" || t.ModelFrom == "default":
		fmt.Fprintf(&b, "%s will use %s, its default", t.CLI, t.Model)
	case t.ModelFrom == ModelFlag:
		fmt.Fprintf(&b, "%s will use %s, as asked (--model)", t.CLI, t.Model)
	default:
		fmt.Fprintf(&b, "%s will use %s, its configured model (%s)", t.CLI, t.Model, t.ModelFrom)
	}
	if t.SourceModel != "" && t.SourceModel != t.Model {
		fmt.Fprintf(&b, "; the source used %s", t.SourceModel)
	}
	return b.String()
}

// Summary describes a report in a few lines for people.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%s -> %s:%s (%d entries, %d tool calls, fidelity %s)\n", r.Source.CLI, r.Source.ID, r.Target.CLI, r.Target.ID, r.Entries, r.ToolCalls, r.Fidelity)
	b.WriteString(r.ModelLine() + "\n")
	if len(r.Warnings) > 0 {
		fmt.Fprintf(&b, "%d warnings reading the source:\n", len(r.Warnings))
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	if len(r.Losses) == 0 {
		if len(r.Warnings) == 0 {
			b.WriteString("nothing was lost\n")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%d items lost or changed:\n", len(r.Losses))
	for _, l := range r.Losses {
		id := ""
		if l.Entry != "" {
			id = " [" + l.Entry + "]"
		}
		fmt.Fprintf(&b, "  %s %s%s: %s\n", l.What, l.How, id, l.Detail)
	}
	return b.String()
}
