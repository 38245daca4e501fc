package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

type mdOptions struct {
	All  bool     // show injected context and instructions
	Full bool     // do not shorten long tool input and output
	Home string   // abbreviated as ~
	IDs  shortIDs // the entries' ids as shown; nil: whole
	// Window, when set, shows only the entries from First to Last (by
	// their place in the timeline), marking At.
	Window          bool
	First, Last, At int
}

// entryIDLen is the shortest an entry's id is cut to in a transcript.
const entryIDLen = 8

// shortIDs are the entries' ids as a transcript shows them, by their
// place in the timeline: each cut to a prefix that no other entry's id
// starts with (session.Abbrev), which fork --at takes. It keeps their
// lengths, not the ids: a transcript of a session too large to hold is
// written as its entries are read again.
type shortIDs []uint16

func newShortIDs(ids []string) shortIDs {
	s := make(shortIDs, len(ids))
	for i, a := range session.Abbrev(ids, entryIDLen) {
		if len(a) < len(ids[i]) && len(a) <= 0xffff {
			s[i] = uint16(len(a))
		}
	}
	return s
}

// of is entry i's id, id, as shown.
func (s shortIDs) of(i int, id string) string {
	if i < len(s) && s[i] > 0 && int(s[i]) < len(id) {
		return id[:s[i]]
	}
	return id
}

// mdMaxLines and mdMaxBytes are how much of a tool's input or output a
// transcript shows without --full: its first lines, and no more than its
// first bytes, for an output of one long line (minified code, a JSON
// document, a base64 blob) is as long as a thousand lines.
const (
	mdMaxLines = 40
	mdMaxBytes = 8 << 10
)

// writeMarkdown renders a session as a readable transcript: s's header
// (title gives the title when s has none: see promptTitle), then each
// entry entries gives, written as it comes, so that a transcript holds
// one entry at a time. Long texts go to w as they are, without copies: w
// should pass them on in pieces (see chunkWriter).
func writeMarkdown(w io.Writer, s *session.Session, title string, entries session.Entries, o mdOptions) error {
	if s.Title != "" {
		title = s.Title
	}
	if title == "" {
		title = "Session " + s.ID
	}
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintf(w, "- **Session:** %s:%s\n", s.Source.CLI, s.ID)
	if s.Project.Path != "" {
		p := shortPath(s.Project.Path, o.Home)
		if g := s.Project.Git; g != nil && g.Branch != "" {
			p += " (" + g.Branch + ")"
		}
		fmt.Fprintf(w, "- **Project:** %s\n", p)
	}
	if s.Model.Model != "" {
		m := s.Model.Model
		if s.Model.Provider != "" {
			m = s.Model.Provider + " / " + m
		}
		fmt.Fprintf(w, "- **Model:** %s\n", m)
	}
	if !s.Metadata.Created.IsZero() {
		fmt.Fprintf(w, "- **Started:** %s · **last activity:** %s (%s)\n", formatTime(s.Metadata.Created),
			formatTime(s.Metadata.LastModified), formatDuration(s.Metadata.LastModified.Sub(s.Metadata.Created)))
	}
	if t := s.Metadata.Tokens; t != nil {
		fmt.Fprintf(w, "- **Tokens:** %d in · %d out · %d cache read · %d cache write\n", t.Input, t.Output, t.CacheRead, t.CacheWrite)
	}
	if p := s.Parent; p != nil {
		label := "Fork of"
		if p.Kind == session.LinkSubagent {
			label = "Subagent of"
		}
		fmt.Fprintf(w, "- **%s:** %s:%s\n", label, cliOr(p.CLI, s.Source.CLI), p.ID)
	}
	for _, l := range s.Subagents {
		fmt.Fprintf(w, "- **Subagent:** %s:%s\n", cliOr(l.CLI, s.Source.CLI), l.ID)
	}
	if n := len(s.Warnings); n > 0 {
		fmt.Fprintf(w, "- **Warnings:** %d (shown on stderr)\n", n)
	}
	fmt.Fprintln(w, "- **Entry ids** (after each heading) are what `stead session fork --at` takes.")
	fmt.Fprintln(w)

	origin := ""
	for i := 0; ; i++ {
		e, err := entries.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if o.Window && i < o.First {
			continue
		}
		if o.Window && i > o.Last {
			return nil
		}
		if e.Origin != origin {
			if e.Origin != "" {
				fmt.Fprintf(w, "---\n\n_History copied from session %s:_\n\n", e.Origin)
			} else {
				fmt.Fprintf(w, "---\n\n_This session's own history:_\n\n")
			}
			origin = e.Origin
		}
		if o.Window && i == o.At {
			fmt.Fprintf(w, "**▶ entry %d, the one asked for:**\n\n", i+1)
		}
		writeEntry(w, e, o.IDs.of(i, e.ID), o)
	}
}

// promptTitle is the title a transcript gives a session that has none,
// when e is its first prompt: the prompt on one line, clipped.
func promptTitle(e *session.Entry) (string, bool) {
	if e.Type == session.User && e.Kind == "" && strings.TrimSpace(e.Content) != "" {
		return clipFields(e.Content, 80), true
	}
	return "", false
}

// timelineTitle is promptTitle of the first prompt of a timeline.
func timelineTitle(tl []session.Entry) string {
	for i := range tl {
		if t, ok := promptTitle(&tl[i]); ok {
			return t
		}
	}
	return ""
}

// clipFields is clip(strings.Join(strings.Fields(s), " "), n), reading
// no more of s than it keeps: a long text is never copied whole.
func clipFields(s string, n int) string {
	var b strings.Builder
	runes := 0
	for f := range strings.FieldsSeq(s) {
		if runes > 0 {
			b.WriteByte(' ')
			runes++
		}
		for i := 0; i < len(f) && runes <= n; runes++ {
			_, size := utf8.DecodeRuneInString(f[i:])
			b.WriteString(f[i : i+size])
			i += size
		}
		if runes > n {
			break
		}
	}
	return clip(b.String(), n)
}

func cliOr(cli, def string) string {
	if cli == "" {
		return def
	}
	return cli
}

// writeEntry writes e, whose id is shown as id: after its time, or its
// status, so that it can be forked at (fork --at).
func writeEntry(w io.Writer, e *session.Entry, id string, o mdOptions) {
	when := ""
	if !e.Timestamp.IsZero() {
		when = " · " + e.Timestamp.Local().Format("15:04:05")
	}
	if id != "" {
		id = " · `" + id + "`"
	}
	side := ""
	if e.Sidechain {
		side = " (sidechain)"
	}
	switch e.Type {
	case session.User:
		label := "User"
		if e.Kind != "" {
			label += " (" + e.Kind + ")"
		}
		fmt.Fprintf(w, "## %s%s%s%s\n\n", label, side, when, id)
		writeText(w, e.Content)
		writeAttachments(w, e.Attachments)
	case session.Assistant:
		label := "Assistant"
		if e.Kind == session.KindError {
			label += " (error)"
		}
		model := ""
		if e.Model != "" {
			model = " · " + e.Model
		}
		if e.Thinking == "" && e.Content == "" && len(e.Reasoning) == 0 && len(e.Attachments) == 0 {
			return
		}
		fmt.Fprintf(w, "## %s%s%s%s%s\n\n", label, side, when, model, id)
		if e.Thinking != "" {
			io.WriteString(w, "<details><summary>Thinking</summary>\n\n")
			io.WriteString(w, strings.TrimSpace(e.Thinking))
			io.WriteString(w, "\n\n</details>\n\n")
		} else if len(e.Reasoning) > 0 {
			fmt.Fprintf(w, "_(reasoning kept encrypted)_\n\n")
		}
		writeText(w, e.Content)
		writeAttachments(w, e.Attachments)
	case session.ToolCall:
		name := string(e.Tool)
		if e.OriginalTool != "" && e.OriginalTool != name {
			name += " (" + e.OriginalTool + ")"
		}
		status := ""
		if e.Status != "" && e.Status != session.StatusOK {
			status = " · " + string(e.Status)
		}
		fmt.Fprintf(w, "**Tool call** `%s`%s%s%s\n\n", name, side, status, id)
		if cmd := shellCommand(e.Input); cmd != "" {
			fence(w, "sh", "$ ", cmd, o.Full)
		} else {
			fence(w, "json", "", indentJSON(e.Input), o.Full)
		}
	case session.ToolResult:
		status := string(e.Status)
		if status == "" {
			status = "ok"
		}
		fmt.Fprintf(w, "**Result** (%s)%s%s\n\n", status, side, id)
		out := e.Output
		if e.Error != "" {
			if out != "" {
				out += "\n"
			}
			out += e.Error
		}
		if strings.TrimSpace(out) != "" {
			fence(w, "", "", out, o.Full)
		}
		writeAttachments(w, e.Attachments)
	case session.System:
		switch e.Kind {
		case session.KindContext, session.KindInstructions, session.KindTurn:
			if !o.All {
				return
			}
			fmt.Fprintf(w, "<details><summary>%s%s%s</summary>\n\n", e.Kind, when, id)
			fence(w, "", "", e.Content, o.Full)
			fmt.Fprintf(w, "</details>\n\n")
		case session.KindCompaction:
			fmt.Fprintf(w, "> **Compacted**%s%s: %s\n\n", when, id, oneLine(e.Content))
		case session.KindSummary:
			fmt.Fprintf(w, "> **Summary**%s%s\n>\n", when, id)
			for l := range strings.SplitSeq(strings.TrimSpace(e.Content), "\n") {
				io.WriteString(w, "> ")
				io.WriteString(w, l)
				io.WriteString(w, "\n")
			}
			fmt.Fprintln(w)
		case session.KindError:
			fmt.Fprintf(w, "> **Error**%s%s: %s\n\n", when, id, oneLine(e.Content))
		case session.KindInterrupt:
			fmt.Fprintf(w, "> _Interrupted_%s%s: %s\n\n", when, id, oneLine(e.Content))
		default:
			fmt.Fprintf(w, "> **System**%s%s: %s\n\n", when, id, oneLine(e.Content))
		}
	}
}

func writeText(w io.Writer, s string) {
	if s = strings.TrimSpace(s); s != "" {
		io.WriteString(w, s)
		io.WriteString(w, "\n\n")
	}
}

func writeAttachments(w io.Writer, atts []session.Attachment) {
	for _, a := range atts {
		desc := a.Type
		if a.MediaType != "" {
			desc += ", " + a.MediaType
		}
		if a.Data != "" {
			desc += ", " + humanBytes(int64(len(a.Data)*3/4)) + " embedded"
		}
		for _, s := range []string{a.Name, a.Path, a.URL} {
			if s != "" {
				desc += ", " + s
			}
		}
		fmt.Fprintf(w, "📎 %s\n\n", desc)
	}
}

func oneLine(s string) string { return clipFields(s, 200) }

// shellCommand returns the command of a shell tool input, if it has one.
func shellCommand(input json.RawMessage) string {
	var in struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{in.Command, in.Cmd} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
			return strings.Join(argv, " ")
		}
	}
	return ""
}

func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// fence writes head+text in a code fence longer than any backtick run
// inside it, shortened to mdMaxLines lines and mdMaxBytes bytes unless
// full. head (a prompt) holds no newline or backtick. Nothing is copied: a
// long output is written as it is.
func fence(w io.Writer, lang, head, text string, full bool) {
	text = strings.TrimRight(text, "\n")
	more := ""
	if !full {
		text, more = shorten(text)
	}
	ticks := 3
	run := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			if run >= ticks {
				ticks = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", ticks)
	io.WriteString(w, f+lang+"\n"+head)
	io.WriteString(w, text)
	io.WriteString(w, "\n"+f+"\n")
	if more != "" {
		fmt.Fprintf(w, "_… %s (--full shows all)_\n", more)
	}
	fmt.Fprintln(w)
}

// shorten cuts text after its mdMaxLines-th line, or at a character's
// start before mdMaxBytes, whichever comes first, and says what it left
// out: "12 more lines", or, cut within a line, how much more there is
// ("1.2 MB more, 12 more lines").
func shorten(text string) (string, string) {
	end := 0 // the end of line mdMaxLines, or -1 when there are fewer lines
	for n := 0; n < mdMaxLines; n++ {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			end = -1
			break
		}
		end += i + 1
	}
	if end >= 0 && end-1 <= mdMaxBytes {
		return text[:end-1], plural(strings.Count(text[end:], "\n")+1, "more line")
	}
	if len(text) <= mdMaxBytes {
		return text, ""
	}
	head := safetext.CutBytes(text, mdMaxBytes)
	rest := text[len(head):]
	more := humanBytes(int64(len(rest))) + " more"
	if n := strings.Count(rest, "\n"); n > 0 {
		more += ", " + plural(n, "more line")
	}
	return head, more
}

// chunkWriter passes what is written to it on in pieces of at most 64 KB,
// so that a writer that transforms its input (safetext's) holds a piece,
// never a whole long text.
type chunkWriter struct{ w io.Writer }

func (c chunkWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k, err := c.w.Write(p[:min(len(p), 64<<10)])
		n += k
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}
