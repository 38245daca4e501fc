package corpusgen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Gemini CLI 0.61.0 (gemini.md §4): GEMINI_CLI_HOME/.gemini/tmp/<slug>/
// chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl, an append-only file of
// metadata, message and {"$set": …} records.
const (
	geminiStore = "gemini/.gemini"
	// geminiTurnCost is about what a Gemini turn costs beyond its budget.
	geminiTurnCost = 3_000
	// geminiOutputMax is the most of a tool's output the CLI keeps in the
	// session: the first 8,000 and the last 32,000 characters.
	geminiOutputMax = 40_000
	// geminiContextID is the id of the <session_context> message:
	// sha256("environment-context")[:32].
	geminiContextID = "d04923d38bb0f6017037e74183378ef4"
)

var geminiModels = []string{"gemini-2.5-pro", "gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-pro-preview"}

// geminiFallback is the model the CLI falls back to when the chosen one
// is out of quota.
const geminiFallback = "gemini-2.5-flash"

// Kinds of a Gemini message.
const (
	gemPrompt  = iota // a user's prompt
	gemResults        // a user message of functionResponse parts
	gemModel          // a gemini message
)

// gemMsg is a message as the CLI keeps it in its list, so that a resume
// can restate it.
type gemMsg struct {
	id       string
	ts       time.Time
	kind     int
	prompt   string // escaped
	thoughts []gemThought
	text     blob
	hasText  bool
	calls    []*gemCall
	tokens   gemTokens
	model    string
}

type gemThought struct {
	subject string // escaped
	desc    blob
	ts      time.Time
}

// gemTokens are a message's tokens as the CLI records them: input
// includes cached tokens, output excludes thoughts.
type gemTokens struct{ input, output, cached, thoughts, tool int64 }

func (t gemTokens) universal() Tokens {
	return Tokens{Input: t.input - t.cached + t.tool, Output: t.output + t.thoughts, CacheRead: t.cached, Reasoning: t.thoughts}
}

// gemCall is one tool call and its result. Its args object is head, then
// (when hasMid) mid's text, then tail.
type gemCall struct {
	id, name    string
	head, tail  []byte
	mid         blob
	hasMid      bool
	outPre      string // escaped
	out         blob
	hasOut      bool
	outPost     string // escaped
	errText     string // escaped; set for a call whose status is "error"
	display     string // escaped resultDisplay, unless the output is shown
	showOut     bool   // the resultDisplay is the output
	displayName string
	desc        string // escaped
	ts          time.Time
	failed      bool // a result stead reads as an error
}

type geminiGen struct {
	o       *out
	r       *rand.Rand
	p       *filePlan
	clock   time.Time
	t       tally
	ctx     int64
	malAt   int64
	msgs    []*gemMsg
	turnNo  int
	resumed bool
	home    string
}

// writeGemini writes a Gemini CLI session and returns what it holds and
// when it ended.
func writeGemini(o *out, r *rand.Rand, p *filePlan) (tally, time.Time) {
	g := &geminiGen{o: o, r: r, p: p, clock: p.start, malAt: -1, home: homeOf(p.cwd)}
	g.ctx = int64(9_000 + r.IntN(8_000))
	if p.malFrac >= 0 {
		g.malAt = int64(p.malFrac * float64(p.target))
	}
	g.header()
	runTurns(o, p.target, turnBudget(p.target, 2_000), geminiTurnCost, 1, func() int64 { return 0 }, g.turn)
	if g.malAt >= 0 { // the planned line never came: cut a last one
		g.malAt = 0
		g.lastUpdated()
	}
	return g.t, g.clock
}

// homeOf is the home folder a project directory lies in.
func homeOf(cwd string) string {
	if strings.HasPrefix(cwd, "/Users/sam/") {
		return "/Users/sam"
	}
	return "/home/dev"
}

func (g *geminiGen) tick(lo, hi time.Duration) { tick(g.r, &g.clock, lo, hi) }

// header writes the metadata line and the <session_context> message.
func (g *geminiGen) header() {
	o, p := g.o, g.p
	sum := sha256.Sum256([]byte(p.cwd))
	b := append(o.buf(), `{"sessionId":"`...)
	b = append(b, p.id...)
	b = append(b, `","projectHash":"`...)
	b = hex.AppendEncode(b, sum[:])
	b = append(b, `","startTime":`...)
	b = appendTS(b, g.clock)
	b = append(b, `,"lastUpdated":`...)
	b = appendTS(b, g.clock)
	o.end(append(b, `,"kind":"main"}`...))

	b = append(o.buf(), `{"$set":{"messages":[`...)
	b = g.appendContext(b)
	b = append(b, `],"lastUpdated":`...)
	b = appendTS(b, g.clock)
	o.end(append(b, `}}`...))
}

// appendContext appends the <session_context> message the CLI puts first.
func (g *geminiGen) appendContext(b []byte) []byte {
	b = append(b, `{"id":"`+geminiContextID+`","timestamp":`...)
	b = appendTS(b, g.clock)
	b = append(b, `,"type":"user","content":[{"text":"`...)
	ctx := "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is " +
		g.clock.UTC().Format("Monday, January 2, 2006") + " (formatted according to the user's locale).\nMy operating system is: linux\n" +
		"The project's temporary directory is: " + g.home + "/.gemini/tmp/" + g.p.slug + "\n- **Workspace Directories:**\n  - " + g.p.cwd +
		"\n- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n" + g.p.cwd + "/\n"
	for _, d := range []string{"cmd", "docs", "internal", "scripts"} {
		ctx += "├───" + d + "/\n"
	}
	ctx += "├───go.mod\n└───README.md\n\n</session_context>"
	b = appendEsc(b, ctx)
	return append(b, `"}]}`...)
}

// lastUpdated writes the {"$set":{"lastUpdated"}} the CLI writes after
// almost every message; the planned malformed line is one of them.
func (g *geminiGen) lastUpdated() {
	b := append(g.o.buf(), `{"$set":{"lastUpdated":`...)
	b = appendTS(b, g.clock.Add(time.Millisecond))
	b = append(b, `}}`...)
	if g.malAt >= 0 && g.o.logical >= g.malAt {
		g.malAt = -1
		g.o.truncate(b)
		return
	}
	g.o.end(b)
}

// turn writes a prompt, the tool rounds it leads to and the answer.
func (g *geminiGen) turn(budget int64) {
	r, o := g.r, g.o
	g.turnNo++
	if g.turnNo > 1 {
		g.tick(10*time.Second, 30*time.Minute)
		if !g.resumed && chance(r, 0.05) && o.logical < g.p.target/2 {
			g.resume()
		}
	}

	m := &gemMsg{id: uuid4(r), ts: g.clock, kind: gemPrompt, prompt: promptText(r, budget)}
	g.msgs = append(g.msgs, m)
	g.writeMsg(m, true)
	g.t.turns++
	g.t.messages++
	g.lastUpdated()

	rounds := drawRounds(r, budget, 3_000, 7_000, 25)
	per := max(300, (budget-3_000)/int64(max(rounds, 1))-2_500)
	for range rounds {
		g.toolRound(per)
	}

	// The answer.
	a := g.response(false)
	a.text, a.hasText = newBlob(r, sizeAround(r, 450, 0.9, 30, 6_000)), true
	g.writeMsg(a, true)
	g.t.messages++
	g.lastUpdated()
}

// response makes a gemini message: thoughts, usage and model.
func (g *geminiGen) response(tools bool) *gemMsg {
	r := g.r
	g.tick(300*time.Millisecond, 15*time.Second)
	m := &gemMsg{id: uuid4(r), ts: g.clock, kind: gemModel, model: g.p.model}
	if chance(r, 0.04) {
		m.model = geminiFallback
	}
	if chance(r, 0.7) {
		for range 1 + r.IntN(2) {
			m.thoughts = append(m.thoughts, gemThought{
				subject: string(appendEsc(nil, title(pick(r, verbs))+" "+pick(r, idents)+" "+pick(r, idents))),
				desc:    newBlob(r, sizeAround(r, 300, 0.7, 40, 2_500)),
				ts:      g.clock,
			})
		}
	}
	if tools && chance(r, 0.35) {
		m.text, m.hasText = newBlob(r, sizeAround(r, 120, 0.7, 20, 800)), true
	}
	g.ctx += int64(400 + r.IntN(5_000))
	if g.ctx > 700_000 {
		// The CLI compresses the history at 70% of the context window.
		g.ctx = int64(40_000 + r.IntN(60_000))
	}
	t := gemTokens{input: g.ctx}
	if chance(r, 0.6) {
		t.cached = int64(float64(g.ctx) * uniform(r, 0.4, 0.95))
	}
	t.output = int64(5 + r.IntN(900))
	if chance(r, 0.15) {
		t.output = int64(5 + r.IntN(5_000))
	}
	if len(m.thoughts) > 0 {
		t.thoughts = int64(50 + r.IntN(2_500))
	}
	m.tokens = t
	g.t.usage(m.model, t.universal())
	g.msgs = append(g.msgs, m)
	return m
}

// toolRound writes a model turn that calls tools: first without its
// calls, then again with them and their results once they ran, then the
// results as a user message, as 0.61.0 does.
func (g *geminiGen) toolRound(per int64) {
	r := g.r
	n := 1
	switch {
	case chance(r, 0.05):
		n = 3
	case chance(r, 0.15):
		n = 2
	}
	m := g.response(true)
	g.writeMsg(m, false)
	g.lastUpdated()
	for i := range n {
		c := g.planCall(per/int64(n), i)
		m.calls = append(m.calls, c)
		g.t.toolCalls++
		if c.failed {
			g.t.toolErrors++
		}
	}
	if m.hasText {
		g.t.messages++
	}
	g.writeMsg(m, true)

	g.tick(50*time.Millisecond, 2*time.Second)
	res := &gemMsg{id: uuid4(r), ts: g.clock, kind: gemResults, calls: m.calls}
	g.msgs = append(g.msgs, res)
	g.writeMsg(res, true)
	g.lastUpdated()
}

// planCall plans one tool call and its result.
func (g *geminiGen) planCall(per int64, idx int) *gemCall {
	r, cwd := g.r, g.p.cwd
	g.tick(100*time.Millisecond, 20*time.Second)
	c := &gemCall{ts: g.clock}
	outSize := func(f float64) int { return sizeAround(r, float64(per)*f, 1.0, 20, geminiOutputMax) }
	switch k := r.IntN(100); {
	case k < 40:
		c.name, c.displayName = "run_shell_command", "Shell"
		cmd := pick(r, commands)
		c.head = appendStr(append([]byte(nil), `{"command":`...), cmd)
		c.head = append(c.head, `,"description":`...)
		c.head = appendStr(c.head, title(sentence(r, 3+r.IntN(5))))
		c.head = append(c.head, '}')
		c.desc = string(appendEsc(nil, cmd))
		c.outPre = `<untrusted_context>\nOutput: `
		c.out, c.hasOut, c.showOut = newBlob(r, outSize(0.3)), true, true
		pgid := `\nProcess Group PGID: ` + strconv.Itoa(1_000+r.IntN(60_000)) + `\n</untrusted_context>`
		if chance(r, 0.08) {
			c.outPost, c.failed = `\nExit Code: `+strconv.Itoa(1+r.IntN(2))+pgid, true
		} else {
			c.outPost = pgid
		}
	case k < 60:
		c.name, c.displayName = "read_file", "ReadFile"
		p := filePath(r, cwd)
		c.head = appendStr(append([]byte(nil), `{"file_path":`...), p)
		c.head = append(c.head, '}')
		c.desc = string(appendEsc(nil, p))
		if chance(r, 0.04) {
			c.errText, c.failed = string(appendEsc(nil, "File not found: "+p)), true
			c.display = "File not found."
			break
		}
		c.out, c.hasOut = newBlob(r, outSize(0.3)), true
	case k < 72:
		c.name, c.displayName = "replace", "Edit"
		p := filePath(r, cwd)
		b := appendStr(append([]byte(nil), `{"file_path":`...), p)
		b = append(b, `,"instruction":`...)
		b = appendStr(b, title(sentence(r, 6+r.IntN(10))))
		b = append(b, `,"old_string":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 300, 0.8, 20, 3_000)))
		b = append(b, `","new_string":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 350, 0.8, 20, 3_000)))
		c.head = append(b, `"}`...)
		c.desc = string(appendEsc(nil, p))
		c.outPre = string(appendEsc(nil, "Successfully modified file: "+p+" (1 replacements)."))
		c.display = c.outPre
	case k < 78:
		c.name, c.displayName = "write_file", "WriteFile"
		p := filePath(r, cwd)
		c.head = appendStr(append([]byte(nil), `{"file_path":`...), p)
		c.head = append(c.head, `,"content":"`...)
		c.mid, c.hasMid = newBlob(r, sizeAround(r, float64(per)*0.3, 0.9, 50, 60_000)), true
		c.tail = []byte(`"}`)
		c.desc = string(appendEsc(nil, p))
		c.outPre = string(appendEsc(nil, "Successfully created and wrote to new file: "+p+"."))
		c.display = c.outPre
	case k < 86:
		c.name, c.displayName = "grep_search", "SearchText"
		pat := "func " + title(pick(r, idents))
		c.head = appendStr(append([]byte(nil), `{"pattern":`...), pat)
		c.head = append(c.head, `,"dir_path":`...)
		c.head = append(appendStr(c.head, cwd), '}')
		c.desc = string(appendEsc(nil, "'"+pat+"' within "+cwd))
		n := 1 + r.IntN(40)
		c.outPre = string(appendEsc(nil, "Found "+strconv.Itoa(n)+" matches for pattern \""+pat+"\" in path \""+cwd+"\":\n---\n"))
		c.out, c.hasOut = newBlob(r, outSize(0.2)), true
		c.display = string(appendEsc(nil, "Found "+strconv.Itoa(n)+" matches"))
	case k < 91:
		c.name, c.displayName = "glob", "FindFiles"
		pat := "**/*" + pick(r, fileExts)
		c.head = append(appendStr(append([]byte(nil), `{"pattern":`...), pat), '}')
		c.desc = string(appendEsc(nil, "'"+pat+"'"))
		n := 1 + r.IntN(80)
		c.outPre = string(appendEsc(nil, "Found "+strconv.Itoa(n)+" file(s) matching \""+pat+"\" within "+cwd+", sorted by modification time (newest first):\n"))
		c.out, c.hasOut = newBlob(r, outSize(0.05)), true
		c.display = string(appendEsc(nil, "Found "+strconv.Itoa(n)+" matching file(s)"))
	case k < 95:
		c.name, c.displayName = "list_directory", "ReadFolder"
		dir := cwd + "/" + pick(r, pkgs)
		c.head = append(appendStr(append([]byte(nil), `{"dir_path":`...), dir), '}')
		c.desc = string(appendEsc(nil, dir))
		c.outPre = string(appendEsc(nil, "Directory listing for "+dir+":\n"))
		c.out, c.hasOut = newBlob(r, outSize(0.03)), true
		c.display = "Listed 12 item(s)."
	default:
		c.name, c.displayName = "write_todos", "WriteTodos"
		b := append([]byte(nil), `{"todos":[`...)
		for i := range 2 + r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"description":`...)
			b = appendStr(b, pick(r, verbs)+" "+pick(r, idents)+" in "+pick(r, pkgs))
			b = append(b, `,"status":"`...)
			b = append(b, pick(r, []string{"pending", "in_progress", "completed"})...)
			b = append(b, `"}`...)
		}
		c.head = append(b, `]}`...)
		c.desc = "Set 3 todo(s)"
		c.outPre = "Successfully updated the todo list. The current list is now shown to the user."
		c.display = c.desc
	}
	c.id = c.name + "__" + c.name + "_" + strconv.FormatInt(c.ts.UnixMilli(), 10) + "_" + strconv.Itoa(idx)
	return c
}

// writeMsg writes a message record. A gemini message is written without
// its tool calls when withCalls is false.
func (g *geminiGen) writeMsg(m *gemMsg, withCalls bool) {
	g.putMsg(m, withCalls, false)
	g.o.end(g.o.buf())
}

// putMsg writes a message's object (no newline). restated is the form a
// resume's {"$set":{"messages"}} gives it: a gemini message's content
// becomes the parts the model sent (thoughts, text, function calls).
func (g *geminiGen) putMsg(m *gemMsg, withCalls, restated bool) {
	o := g.o
	b := append(o.buf(), `{"id":"`...)
	b = append(b, m.id...)
	b = append(b, `","timestamp":`...)
	b = appendTS(b, m.ts)
	switch m.kind {
	case gemPrompt:
		b = append(b, `,"type":"user","content":[{"text":"`...)
		b = append(b, m.prompt...)
		o.put(append(b, `"}]}`...))
	case gemResults:
		o.put(append(b, `,"type":"user","content":`...))
		g.putResponses(m.calls)
		o.put(append(o.buf(), '}'))
	case gemModel:
		o.put(append(b, `,"type":"gemini","content":`...))
		if restated {
			g.putParts(m)
		} else {
			b = append(o.buf(), '"')
			if m.hasText {
				b = appendBlob(b, m.text)
			}
			o.put(append(b, '"'))
		}
		o.put(append(o.buf(), `,"thoughts":[`...))
		for i, t := range m.thoughts {
			b = o.buf()
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"subject":"`...)
			b = append(b, t.subject...)
			b = append(b, `","description":"`...)
			b = appendBlob(b, t.desc)
			b = append(b, `","timestamp":`...)
			b = appendTS(b, t.ts)
			o.put(append(b, '}'))
		}
		t := m.tokens
		b = append(o.buf(), `],"tokens":{"input":`...)
		b = appendInt(b, t.input)
		b = append(b, `,"output":`...)
		b = appendInt(b, t.output)
		b = append(b, `,"cached":`...)
		b = appendInt(b, t.cached)
		b = append(b, `,"thoughts":`...)
		b = appendInt(b, t.thoughts)
		b = append(b, `,"tool":`...)
		b = appendInt(b, t.tool)
		b = append(b, `,"total":`...)
		b = appendInt(b, t.input+t.output+t.thoughts+t.tool)
		b = append(b, `},"model":"`...)
		b = append(b, m.model...)
		b = append(b, '"')
		if withCalls && len(m.calls) > 0 {
			o.put(append(b, `,"toolCalls":[`...))
			for i, c := range m.calls {
				if i > 0 {
					o.put(append(o.buf(), ','))
				}
				g.putCall(c)
			}
			b = append(o.buf(), ']')
		}
		o.put(append(b, '}'))
	}
}

// putParts writes a gemini message's content as parts.
func (g *geminiGen) putParts(m *gemMsg) {
	o := g.o
	b := append(o.buf(), '[')
	n := 0
	for _, t := range m.thoughts {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"text":"**`...)
		b = append(b, t.subject...)
		b = append(b, `** `...)
		b = appendBlob(b, t.desc)
		b = append(b, `","thought":true}`...)
	}
	if m.hasText {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"text":"`...)
		b = appendBlob(b, m.text)
		b = append(b, `"}`...)
	}
	o.put(b)
	for _, c := range m.calls {
		b = o.buf()
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"functionCall":{"id":"`...)
		b = append(b, c.id...)
		b = append(b, `","name":"`...)
		b = append(b, c.name...)
		o.put(append(b, `","args":`...))
		g.putArgs(c)
		o.put(append(o.buf(), `}}`...))
	}
	o.put(append(o.buf(), ']'))
}

func (g *geminiGen) putArgs(c *gemCall) {
	o := g.o
	o.put(append(o.buf(), c.head...))
	if c.hasMid {
		o.blob(c.mid)
		o.put(append(o.buf(), c.tail...))
	}
}

// putResponse writes a call's functionResponse part.
func (g *geminiGen) putResponse(c *gemCall) {
	o := g.o
	b := append(o.buf(), `{"functionResponse":{"id":"`...)
	b = append(b, c.id...)
	b = append(b, `","name":"`...)
	b = append(b, c.name...)
	b = append(b, `","response":{`...)
	if c.errText != "" {
		b = append(b, `"error":"`...)
		b = append(b, c.errText...)
		o.put(append(b, `"}}}`...))
		return
	}
	b = append(b, `"output":"`...)
	o.put(append(b, c.outPre...))
	if c.hasOut {
		o.blob(c.out)
	}
	b = append(o.buf(), c.outPost...)
	o.put(append(b, `"}}}`...))
}

// putResponses writes a list of functionResponse parts.
func (g *geminiGen) putResponses(calls []*gemCall) {
	g.o.put(append(g.o.buf(), '['))
	for i, c := range calls {
		if i > 0 {
			g.o.put(append(g.o.buf(), ','))
		}
		g.putResponse(c)
	}
	g.o.put(append(g.o.buf(), ']'))
}

// putCall writes a toolCalls element: the call, its result and how the
// CLI showed it.
func (g *geminiGen) putCall(c *gemCall) {
	o := g.o
	b := append(o.buf(), `{"id":"`...)
	b = append(b, c.id...)
	b = append(b, `","name":"`...)
	b = append(b, c.name...)
	o.put(append(b, `","args":`...))
	g.putArgs(c)
	o.put(append(o.buf(), `,"result":[`...))
	g.putResponse(c)
	b = append(o.buf(), `],"status":"`...)
	if c.errText != "" {
		b = append(b, "error"...)
	} else {
		b = append(b, "success"...) // a failed command too: only its output says so
	}
	b = append(b, `","timestamp":`...)
	b = appendTS(b, c.ts)
	b = append(b, `,"resultDisplay":"`...)
	if c.showOut {
		o.put(b)
		o.blob(c.out)
		b = o.buf()
	} else {
		b = append(b, c.display...)
	}
	b = append(b, `","description":"`...)
	b = append(b, c.desc...)
	b = append(b, `","displayName":"`...)
	b = append(b, c.displayName...)
	o.put(append(b, `","renderOutputAsMarkdown":false}`...))
}

// resume writes what a resume adds to the file: the session id, then the
// whole list of messages rebuilt from the model's view, each gemini
// message with tool calls followed by its results as "<id>_response".
func (g *geminiGen) resume() {
	g.resumed = true
	o := g.o
	b := append(o.buf(), `{"$set":{"sessionId":"`...)
	b = append(b, g.p.id...)
	o.end(append(b, `"}}`...))

	o.put(g.appendContext(append(o.buf(), `{"$set":{"messages":[`...)))
	for _, m := range g.msgs {
		o.put(append(o.buf(), ','))
		g.putMsg(m, true, true)
		if m.kind == gemModel && len(m.calls) > 0 {
			b = append(o.buf(), `,{"id":"`...)
			b = append(b, m.id...)
			b = append(b, `_response","timestamp":`...)
			b = appendTS(b, g.clock)
			o.put(append(b, `,"type":"user","content":`...))
			g.putResponses(m.calls)
			o.put(append(o.buf(), '}'))
		}
	}
	b = append(o.buf(), `],"lastUpdated":`...)
	b = appendTS(b, g.clock)
	o.end(append(b, `}}`...))
}

// geminiSlugs gives each project of a Gemini session its folder under
// tmp/, as the CLI claims one for a new project: slugify(basename), with
// -1, -2, … added when that name is taken.
func geminiSlugs(plans []filePlan) map[string]string {
	slugs := map[string]string{}
	taken := map[string]bool{}
	for i := range plans {
		p := &plans[i]
		if p.cli != cliGemini || slugs[p.cwd] != "" {
			continue
		}
		base := geminiSlugify(path.Base(p.cwd))
		s := base
		for n := 1; taken[s]; n++ {
			s = base + "-" + strconv.Itoa(n)
		}
		taken[s] = true
		slugs[p.cwd] = s
	}
	return slugs
}

// geminiSlugify is the CLI's slugify: lower case, runs of characters
// other than [a-z0-9] made one "-", "-" trimmed, "project" for nothing.
func geminiSlugify(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return "project"
}

// writeGeminiProjects writes projects.json and each project's
// .project_root markers (tmp/<slug>/ and history/<slug>/).
func writeGeminiProjects(dir string, plans []filePlan) error {
	projects := map[string]string{}
	for i := range plans {
		if p := &plans[i]; p.cli == cliGemini {
			projects[p.cwd] = p.slug
		}
	}
	if len(projects) == 0 {
		return nil
	}
	root := filepath.Join(dir, filepath.FromSlash(geminiStore))
	cwds := make([]string, 0, len(projects))
	for cwd := range projects {
		cwds = append(cwds, cwd)
	}
	slices.Sort(cwds)
	for _, cwd := range cwds {
		for _, d := range []string{"tmp", "history"} {
			folder := filepath.Join(root, d, projects[cwd])
			if err := os.MkdirAll(folder, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(folder, ".project_root"), []byte(cwd), 0o644); err != nil {
				return err
			}
		}
	}
	// encoding/json sorts the keys: the file is the same every time.
	data, err := json.MarshalIndent(map[string]any{"projects": projects}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "projects.json"), data, 0o644); err != nil {
		return fmt.Errorf("write Gemini CLI's projects: %w", err)
	}
	return nil
}
