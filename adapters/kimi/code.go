package kimi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

// Kimi Code's records (kimi.md §3.5-§3.8).

// knownCode lists the Kimi Code record types that make no entry of their
// own (wire-manifest.d.ts, 2.1.0's extras); others are reported once.
var knownCode = wordSet(`agent.switched config.update context.append_loop_event
		context.append_message context.apply_compaction context.clear context.undo context.undone
		cron.add cron.cursor cron.delete environment.set_binding file_history.checkpoint
		file_history.tracked forked full_compaction.begin full_compaction.cancel
		full_compaction.complete goal.clear goal.create goal.update interaction.request
		interaction.resolved interruptionReminder.recorded llm.request llm.tools_snapshot
		mcp.tools_discovered micro_compaction.apply permission.record_approval_result
		permission.set_mode plan.revision plan_mode.cancel plan_mode.enter plan_mode.exit
		plugin.session_start profile.bind prompt.aborted prompt.accepted prompt.completed
		prompt.steered runtime.set_binding subagent.cancelled subagent.completed subagent.failed
		subagent.spawned subagent.started swarm_mode.enter swarm_mode.exit task.started
		task.terminated task.waitDelivered token_counting.measured token_counting.rebased
		token_counting.truncated token_counting.turn_recorded tools.register_user_tool
		tools.reset_active_tools tools.set_active_tools tools.unregister_user_tool
		tools.update_store tower_mode.enter tower_mode.exit turn.cancel turn.ended turn.prompt
		turn.steer turn.step.interrupted turn.step.retrying usage.record`)

func isKnownCode(t string) bool {
	return knownCode[t] || strings.HasPrefix(t, "staleGuard.") || strings.HasPrefix(t, "swarm_mode.") || strings.HasPrefix(t, "tower_mode.")
}

// code converts a Kimi Code record (kimi.md §3.7, §3.8).
func (d *Decoder) code(rec *record, ev *session.Event) []session.Entry {
	switch rec.Type {
	case "context.append_message":
		if rec.in != nil && rec.in.msgOK {
			return d.message(&rec.in.msg, ev, (*Decoder).codeUserKind)
		}
		return d.appendMessage(rec.Message, ev)
	case "context.append_loop_event":
		return d.loop(rec.Event, ev)
	case "profile.bind", "config.update":
		if rec.ModelAlias != "" {
			d.alias = rec.ModelAlias
			if d.model == "" && d.shown != rec.ModelAlias {
				d.shown = rec.ModelAlias
				addInfo(ev).Model = rec.ModelAlias
			}
		}
		if rec.EnvironmentDisclosure != nil && rec.EnvironmentDisclosure.Cwd != "" {
			addInfo(ev).Path = rec.EnvironmentDisclosure.Cwd
		}
		if rec.SystemPrompt != "" {
			return d.one(session.Entry{Type: session.System, Kind: session.KindInstructions, Content: rec.SystemPrompt})
		}
	case "llm.request":
		if rec.ModelAlias != "" {
			d.alias = rec.ModelAlias
		}
		if rec.Model != "" {
			d.model = rec.Model
			if d.shown != rec.Model {
				d.shown = rec.Model
				addInfo(ev).Model = rec.Model
			}
		}
	case "usage.record":
		u := rec.Usage.universal()
		if d.step.open {
			// The step's step.end repeats it.
			d.step.rec.Add(u)
			return nil
		}
		return d.usage(ev, u)
	case "turn.ended":
		d.step = step{}
		if rec.Reason == "cancelled" {
			d.interrupt(ev)
		}
		d.pending = d.pending[:0]
		return d.one(turnEnded(rec))
	case "turn.step.interrupted":
		text := "Step " + strconv.Itoa(rec.Step) + " " + rec.Reason
		if m := jsonText(rec.Message); m != "" {
			text += ": " + m
		}
		kind := session.KindInterrupt
		if rec.Reason == "error" {
			kind = session.KindError
		}
		return d.one(session.Entry{Type: session.System, Kind: kind, Content: text})
	case "turn.step.retrying":
		text := fmt.Sprintf("Retrying step %d (attempt %d of %d) after %s", rec.Step, rec.NextAttempt, rec.MaxAttempts, rec.ErrorName)
		if rec.ErrorMessage != "" {
			text += ": " + rec.ErrorMessage
		}
		return d.one(session.Entry{Type: session.System, Kind: session.KindError, Content: text})
	case "context.apply_compaction":
		text := rec.ContextSummary
		if s := jsonText(rec.Summary); s != "" {
			text = s
		} else if text == "" {
			var m contextMessage
			if json.Unmarshal(rec.Summary, &m) == nil {
				text = d.content(m.Content).text
			}
		}
		return d.one(session.Entry{Type: session.System, Kind: session.KindCompaction, Content: text})
	case "context.clear":
		return d.one(session.Entry{Type: session.System, Kind: session.KindCompaction, Content: "Context cleared"})
	case "context.undo":
		text := "Undid the last turn"
		if rec.Count != 1 {
			text = fmt.Sprintf("Undid the last %d turns", rec.Count)
		}
		return d.one(session.Entry{Type: session.System, Content: text})
	case "context.undone":
		return d.one(session.Entry{Type: session.System, Content: "Turns from " + string(rec.FromTurnID) + " on were undone"})
	case "subagent.spawned":
		d.link(ev, rec.SubagentID, rec.ParentToolCallID)
	case "task.started", "task.terminated":
		var info struct {
			Kind             string `json:"kind"`
			AgentID          string `json:"agentId"`
			ParentToolCallID string `json:"parentToolCallId"`
		}
		if json.Unmarshal(rec.Info, &info) == nil && info.Kind == "agent" {
			d.link(ev, info.AgentID, info.ParentToolCallID)
		}
	case "permission.record_approval_result":
		var r struct {
			Decision string `json:"decision"`
		}
		_ = json.Unmarshal(rec.Result, &r)
		switch r.Decision {
		case "rejected":
			ev.Updates = append(ev.Updates, session.Update{EntryID: rec.ToolCallID, Status: session.StatusDenied})
		case "cancelled":
			ev.Updates = append(ev.Updates, session.Update{EntryID: rec.ToolCallID, Status: session.StatusInterrupted})
		}
	case "forked":
		d.forked++
	default:
		if !isKnownCode(rec.Type) {
			d.warnOnce(ev, rec.Type, fmt.Sprintf("unknown record type %q kept verbatim", rec.Type))
		}
	}
	return nil
}

// turnEnded describes how a turn ended.
func turnEnded(rec *record) session.Entry {
	e := session.Entry{Type: session.System}
	switch rec.Reason {
	case "completed":
		e.Kind, e.Content = session.KindTurn, "Turn completed"
		if rec.DurationMs > 0 {
			e.Content = "Turn took " + (time.Duration(rec.DurationMs) * time.Millisecond).String()
		}
	case "cancelled":
		e.Kind, e.Content = session.KindInterrupt, "Turn cancelled"
	default:
		e.Kind, e.Content = session.KindError, "Turn "+rec.Reason
		var er struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(rec.Error, &er) == nil && (er.Code != "" || er.Message != "") {
			e.Content += ": " + strings.TrimPrefix(er.Code+": "+er.Message, ": ")
		}
	}
	return e
}

// appendMessage converts a message appended to the context: the user's
// prompt, injected reminders, and whole assistant and tool messages in
// migrated, forked and subagent journals.
func (d *Decoder) appendMessage(raw json.RawMessage, ev *session.Event) []session.Entry {
	var m contextMessage
	if !readMessage(d, raw, &m, ev) {
		return nil
	}
	return d.message(&m, ev, (*Decoder).codeUserKind)
}

// readMessage reads raw, a message, into m with the decoder's parser, or
// with encoding/json where the parser gives up (from a zero m, keeping
// what it reads beside fields of the wrong type). It reports false, with a
// warning on ev, when raw cannot be read at all.
func readMessage[T any, P interface {
	*T
	jsonread.Object
}](d *Decoder, raw json.RawMessage, m P, ev *session.Event) bool {
	if d.jp.Parse(raw, m) {
		return true
	}
	var zero T
	*m = zero
	if err := json.Unmarshal(raw, m); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			ev.Warning = d.warn(ev.Line, "unreadable message: "+err.Error())
			return false
		}
	}
	return true
}

// codeUserKind classifies a Kimi Code user message by its origin.
func (d *Decoder) codeUserKind(m *contextMessage, _ string) (session.EntryType, string) {
	return codeKind(d.origin(m.Origin))
}

// codeKind classifies a user message by its origin's kind, name and
// trigger (kimi.md §3.6): what the user typed, a slash command, or
// something the CLI injected. A subagent's task prompt is its user's
// prompt.
func codeKind(kind, name, trigger string) (session.EntryType, string) {
	switch kind {
	case "", "user":
		return session.User, ""
	case "system_trigger":
		if name == "subagent" {
			return session.User, ""
		}
	case "skill_activation", "plugin_command":
		if trigger == "user-slash" {
			return session.User, session.KindCommand
		}
	case "shell_command":
		return session.User, session.KindCommand
	case "compaction_summary":
		return session.System, session.KindSummary
	}
	return session.User, session.KindMeta
}

// origin reads a PromptOrigin: an object with kind (and name, trigger), or
// a bare kind.
func (d *Decoder) origin(raw json.RawMessage) (kind, name, trigger string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", "", ""
	}
	if raw[0] == '"' {
		if s, ok := jsonread.QuickString(raw); ok {
			return s, "", ""
		}
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, "", ""
	}
	o := &d.po // not a variable of its own, which Parse would move to the heap
	*o = promptOrigin{}
	if !d.jp.Parse(raw, o) {
		*o = promptOrigin{}
		_ = json.Unmarshal(raw, o)
	}
	return o.Kind, o.Name, o.Trigger
}

// promptOrigin is a PromptOrigin object.
type promptOrigin struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Trigger string `json:"trigger"`
}

// loop converts the assistant side of the loop: step.begin opens a model
// response, content.part and tool.call add to it, tool.result answers a
// call, step.end closes it with its usage.
func (d *Decoder) loop(le *loopEvent, ev *session.Event) []session.Entry {
	if le == nil {
		le = &loopEvent{}
	}
	switch le.Type {
	case "step.begin":
		d.step = step{open: true}
	case "content.part":
		p := le.Part
		if p == nil {
			p = &part{}
		}
		e, ok := d.partEntry(p, le.UUID)
		if !ok {
			return nil
		}
		d.stepEntry(&e, ev.Line)
		return d.one(e)
	case "tool.call":
		id := le.ToolCallID
		if id == "" {
			id = le.UUID
		}
		e := session.Entry{ID: id, Type: session.ToolCall, Tool: UniversalTool(le.Name), OriginalTool: le.Name, Input: objectInput(le.Args, "args")}
		d.stepEntry(&e, ev.Line)
		return d.one(e)
	case "tool.result":
		r := le.Result
		if r == nil {
			r = &toolOutcome{}
		}
		c := d.content(r.Output)
		text := c.text
		if r.IsError && text == "" {
			text = r.Note
		}
		d.resolve(le.ToolCallID)
		return d.one(toolResultEntry(le.ToolCallID, !r.IsError, text, c.atts))
	case "step.end":
		u := le.Usage.universal()
		if u.IsZero() {
			u = d.step.rec
		}
		entries := d.usage(ev, u)
		d.step = step{}
		return entries
	default:
		d.warnOnce(ev, "loop/"+le.Type, fmt.Sprintf("unknown loop event %q kept verbatim", le.Type))
	}
	return nil
}
