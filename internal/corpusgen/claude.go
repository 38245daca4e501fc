package corpusgen

import (
	"math/rand/v2"
	"strconv"
	"time"
)

const (
	claudeVersion = "2.1.330"
	// claudeTurnCost is about what a Claude turn costs beyond its budget:
	// prompt, attachments, answer and bookkeeping.
	claudeTurnCost = 8_000
)

// claudeGen writes the records of one Claude Code session.
//
// A fork is written by running its original's generator (same plan, same
// random source) in copying mode: conversation records are written with the
// fork's sessionId, assistant records gain requestSessionId, bookkeeping
// lines are left out and no usage is counted. Then a second generator, with
// the fork's own random source, adds the fork's new turns.
type claudeGen struct {
	o        *out
	r        *rand.Rand
	p        *filePlan // the plan driving generation (the original's while copying)
	sid      string    // sessionId written into records
	origSID  string    // while copying: the original's id, for requestSessionId
	copying  bool
	count    bool   // count usage
	t        *tally // what the file holds (shared by a fork and its copy)
	leaf     string // uuid of the last conversation record, "" for none
	promptID string
	clock    time.Time
	turnNo   int
	ctx      int64 // context size, for cache reads
	common   []byte
	huge     []hugeLine
	malAt    int64 // truncate the first bookkeeping line once logical passes this; -1 none
}

func newClaudeGen(o *out, r *rand.Rand, p *filePlan, sid string) *claudeGen {
	g := &claudeGen{o: o, r: r, p: p, sid: sid, clock: p.start, malAt: -1}
	g.ctx = int64(12_000 + r.IntN(14_000))
	c := []byte(`,"userType":"external","entrypoint":"cli","cwd":`)
	c = appendStr(c, p.cwd)
	c = append(c, `,"sessionId":"`...)
	c = append(c, sid...)
	c = append(c, `","version":"`+claudeVersion+`","gitBranch":`...)
	g.common = appendStr(c, p.branch)
	return g
}

// writeClaude writes plans[i]'s session and returns what it holds.
func writeClaude(o *out, seed int64, plans []filePlan, i int) (tally, time.Time) {
	p := &plans[i]
	t := &tally{}
	if p.forkOf < 0 {
		g := newClaudeGen(o, fileRand(seed, i), p, p.id)
		g.count, g.t = true, t
		g.session()
		return *t, g.clock
	}

	orig := &plans[p.forkOf]
	g := newClaudeGen(o, fileRand(seed, i), p, p.id)
	g.count, g.t = true, t
	g.meta(g.modeRec())
	g.meta(g.permRec())

	// Replay the original from its first byte, as it counted.
	o.logical = 0
	c := newClaudeGen(o, fileRand(seed, p.forkOf), orig, p.id)
	c.copying, c.origSID, c.t = true, orig.id, t
	c.session()
	o.logical = o.n // from here on logical == real

	g.leaf, g.turnNo, g.ctx = c.leaf, c.turnNo, c.ctx
	if c.clock.After(g.clock) {
		g.clock = c.clock.Add(time.Hour)
	}
	if p.malFrac >= 0 {
		g.malAt = int64(p.malFrac * float64(p.target))
	}
	runTurns(o, p.target, max(turnBudget(p.target-o.n, 0), 2_500), claudeTurnCost, 2, func() int64 { return 0 }, g.turn)
	g.closeMalformed()
	return *t, g.clock
}

// session writes a whole non-fork session (or replays one).
func (g *claudeGen) session() {
	p := g.p
	if p.malFrac >= 0 {
		g.malAt = int64(p.malFrac * float64(p.target))
	}
	g.huge = planHuge(g.r, p.target, true)
	g.meta(g.modeRec())
	g.meta(g.permRec())
	budget := turnBudget(p.target, 300+hugeCost(g.huge))
	runTurns(g.o, p.target, budget, claudeTurnCost, 1, func() int64 { return hugeCost(g.huge) }, g.turn)
	g.closeMalformed()
}

// closeMalformed truncates a final bookkeeping line if the planned one has
// not come yet.
func (g *claudeGen) closeMalformed() {
	if g.malAt >= 0 && !g.copying {
		g.malAt = 0
		g.meta(g.modeRec())
	}
}

// meta writes a bookkeeping line: skipped while copying, truncated when it
// is the planned malformed line.
func (g *claudeGen) meta(b []byte) {
	switch {
	case g.copying:
		g.o.skip(b)
	case g.malAt >= 0 && g.o.logical >= g.malAt:
		g.malAt = -1
		g.o.truncate(b)
	default:
		g.o.end(b)
	}
}

func (g *claudeGen) tick(lo, hi time.Duration) { tick(g.r, &g.clock, lo, hi) }

func (g *claudeGen) modeRec() []byte {
	b := append(g.o.buf(), `{"type":"mode","mode":"normal","sessionId":"`...)
	b = append(b, g.sid...)
	return append(b, `"}`...)
}

func (g *claudeGen) permRec() []byte {
	b := append(g.o.buf(), `{"type":"permission-mode","permissionMode":"auto","sessionId":"`...)
	b = append(b, g.sid...)
	return append(b, `"}`...)
}

// appendHead appends {"parentUuid":…,"isSidechain":false.
func (g *claudeGen) appendHead(b []byte) []byte {
	b = append(b, `{"parentUuid":`...)
	if g.leaf == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, g.leaf...)
		b = append(b, '"')
	}
	return append(b, `,"isSidechain":false`...)
}

// appendUUIDTime appends the uuid and timestamp members, uuid first or
// timestamp first as the record type has them.
func appendUUIDTime(b []byte, uuidFirst bool, u string, t time.Time) []byte {
	if uuidFirst {
		b = append(b, `,"uuid":"`...)
		b = append(b, u...)
		b = append(b, `","timestamp":`...)
		return appendTS(b, t)
	}
	b = append(b, `,"timestamp":`...)
	b = appendTS(b, t)
	b = append(b, `,"uuid":"`...)
	b = append(b, u...)
	return append(b, '"')
}

// turn writes one prompt and everything it leads to, aiming at budget
// bytes.
func (g *claudeGen) turn(budget int64) {
	r, o := g.r, g.o
	g.turnNo++
	if g.turnNo > 1 {
		g.tick(10*time.Second, 30*time.Minute)
	}
	promptUUID := uuid4(r)
	g.promptID = uuid4(r)

	if g.turnNo > 1 && chance(r, 0.3) {
		g.meta(g.modeRec())
		g.meta(g.permRec())
	}
	b := append(o.buf(), `{"type":"file-history-snapshot","messageId":"`...)
	b = append(b, promptUUID...)
	b = append(b, `","snapshot":{"messageId":"`...)
	b = append(b, promptUUID...)
	b = append(b, `","trackedFileBackups":{},"timestamp":`...)
	b = appendTS(b, g.clock)
	g.meta(append(b, `},"isSnapshotUpdate":false}`...))
	if g.turnNo == 1 && g.p.target >= 400_000 || budget >= 100_000 && chance(r, 0.12) {
		g.meta(g.shapeRec(sizeAround(r, 35_000, 0.35, 20_000, 60_000)))
	}

	// The prompt.
	prompt := promptText(r, budget)
	b = g.appendHead(o.buf())
	b = append(b, `,"promptId":"`...)
	b = append(b, g.promptID...)
	b = append(b, `","type":"user","message":{"role":"user","content":"`...)
	b = append(b, prompt...)
	b = append(b, `"}`...)
	b = appendUUIDTime(b, true, promptUUID, g.clock)
	b = append(b, `,"permissionMode":"auto"`...)
	b = append(b, g.common...)
	o.end(append(b, '}'))
	g.leaf = promptUUID
	g.t.turns++
	g.t.messages++

	// Attachments.
	if g.turnNo == 1 {
		g.attachment("environment", budget)
	}
	for range 1 + r.IntN(3) {
		kind := pick(r, []string{"date", "skill_listing", "deferred_tools_delta", "todo_reminder", "skill_listing"})
		if budget >= 40_000 && chance(r, 0.3) {
			kind = "prompt_snapshot"
		}
		g.attachment(kind, budget)
	}

	// Tool rounds, then the answer.
	rounds := drawRounds(r, budget, 4_000, 6_000, 24)
	if g.hugeDue() {
		rounds = max(rounds, 1)
	}
	per := max(300, (budget-5_000)/int64(max(rounds, 1))-2_800)
	for range rounds {
		g.toolRound(per)
	}
	g.final()

	if chance(r, 0.7) {
		u := uuid4(r)
		g.tick(100*time.Millisecond, time.Second)
		b = g.appendHead(o.buf())
		b = append(b, `,"type":"system","subtype":"turn_duration","durationMs":`...)
		b = appendInt(b, 2_000+r.Int64N(600_000))
		b = append(b, `,"messageCount":`...)
		b = appendInt(b, int64(4+rounds*3))
		b = appendUUIDTime(b, false, u, g.clock)
		b = append(b, `,"isMeta":false`...)
		b = append(b, g.common...)
		o.end(append(b, '}'))
		g.leaf = u
	}
	b = append(o.buf(), `{"type":"last-prompt","lastPrompt":"`...)
	b = append(b, prompt...)
	b = append(b, `","leafUuid":"`...)
	b = append(b, g.leaf...)
	b = append(b, `","sessionId":"`...)
	b = append(b, g.sid...)
	g.meta(append(b, `"}`...))
}

// shapeRec is an api-request-shape line of about n bytes.
func (g *claudeGen) shapeRec(n int) []byte {
	r := g.r
	b := append(g.o.buf(), `{"type":"api-request-shape","sessionId":"`...)
	b = append(b, g.sid...)
	b = append(b, `","shapeHash":"`...)
	for range 4 {
		b = strconv.AppendUint(b, r.Uint64()|1<<63, 16)
	}
	b = append(b, `","timestamp":`...)
	b = appendTS(b, g.clock)
	b = append(b, `,"version":"`+claudeVersion+`","shape":{"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude."},{"type":"text","text":"`...)
	b = appendBlob(b, newBlob(r, n/3))
	b = append(b, `"}],"tools":[`...)
	for i, name := range []string{"Bash", "Edit", "Glob", "Grep", "Read", "Task", "TodoWrite", "Write"} {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`...)
		b = append(b, name...)
		b = append(b, `","description":"`...)
		b = appendBlob(b, newBlob(r, n/12))
		b = append(b, `","input_schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{},"additionalProperties":false}}`...)
	}
	return append(b, `]}}`...)
}

// attachment writes an attachment record of the given kind.
func (g *claudeGen) attachment(kind string, budget int64) {
	r, o := g.r, g.o
	u := uuid4(r)
	g.tick(time.Millisecond, 40*time.Millisecond)
	b := g.appendHead(o.buf())
	b = append(b, `,"attachment":{"type":"`...)
	b = append(b, kind...)
	b = append(b, '"')
	var rendered []byte // escaped text inside <system-reminder>, nil for none
	switch kind {
	case "environment":
		b = append(b, `,"snapshot":{"workingDirectory":`...)
		b = appendStr(b, g.p.cwd)
		b = append(b, `,"isWorktree":false,"isGitRepo":true,"additionalWorkingDirectories":[],"platform":"linux","shell":"bash","osVersion":"Linux 6.8.0-45-generic"}}`...)
		rendered = appendEsc(nil, "# Environment\nYou have been invoked in the following environment: \n - Primary working directory: "+
			g.p.cwd+"\n - Is a git repository: true\n - Platform: linux\n - Shell: bash\n - OS Version: Linux 6.8.0-45-generic")
	case "date":
		d := g.clock.UTC().Format("2006-01-02")
		b = append(b, `,"date":"`...)
		b = append(b, d...)
		b = append(b, `"}`...)
		rendered = []byte("Today's date is " + d + ".")
	case "skill_listing":
		x := newBlob(r, sizeAround(r, 1_500, 0.6, 300, 6_000))
		b = append(b, `,"content":"`...)
		b = appendBlob(b, x)
		b = append(b, `"}`...)
		rendered = appendBlob(nil, x)
	case "deferred_tools_delta":
		names := []string{"CronCreate", "CronDelete", "EnterPlanMode", "ExitPlanMode", "NotebookEdit", "WebFetch", "WebSearch"}
		b = append(b, `,"addedNames":[`...)
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStr(b, n)
		}
		b = append(b, `],"removedNames":[],"pendingMcpServers":[],"failedMcpServers":[]}`...)
		rendered = []byte(`The following deferred tools are now available via ToolSearch:\nCronCreate\nCronDelete\nEnterPlanMode\nExitPlanMode\nNotebookEdit\nWebFetch\nWebSearch`)
	case "todo_reminder":
		b = append(b, `,"content":[{"content":`...)
		b = appendStr(b, pick(r, verbs)+" "+pick(r, idents)+" handling")
		b = append(b, `,"status":"in_progress","activeForm":"Working on it"}],"itemCount":1}`...)
		rendered = []byte(`The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool.`)
	case "prompt_snapshot":
		total := sizeAround(r, float64(min(budget/4, 30_000)), 0.5, 8_000, 60_000)
		parts := 2 + r.IntN(6)
		b = append(b, `,"systemPrompt":[`...)
		o.put(b)
		for i := range parts {
			if i > 0 {
				o.put(append(o.buf(), ','))
			}
			o.put(append(o.buf(), '"'))
			o.blob(newBlob(r, total/parts))
			o.put(append(o.buf(), '"'))
		}
		b = append(o.buf(), `],"reminderFold":false,"echoWireToolInputs":false,"contextRendering":"announced"}`...)
	}
	b = append(b, `,"type":"attachment"`...)
	b = appendUUIDTime(b, true, u, g.clock)
	if rendered != nil {
		b = append(b, `,"rendered":[{"content":"<system-reminder>\n`...)
		b = append(b, rendered...)
		b = append(b, `\n</system-reminder>"}],"renderedRole":"system"`...)
	}
	b = append(b, g.common...)
	o.end(append(b, '}'))
	g.leaf = u
}

// response is one API response: its records share id, requestId and usage.
type response struct {
	id, requestID, model string
	usage                []byte
}

func (g *claudeGen) newResponse() *response {
	r := g.r
	in := int64(1 + r.IntN(12))
	if chance(r, 0.15) {
		in = int64(1 + r.IntN(5_000))
	}
	cw := int64(r.IntN(3_000))
	switch {
	case chance(r, 0.1):
		cw = int64(r.IntN(20_001))
	case chance(r, 0.1):
		cw = 0
	}
	g.ctx = min(150_000, g.ctx+cw+int64(r.IntN(2_000)))
	cr := g.ctx
	if chance(r, 0.03) {
		cr = 0
	}
	outTok := int64(1 + r.IntN(800))
	if chance(r, 0.2) {
		outTok = int64(1 + r.IntN(4_000))
	}
	model := g.p.model
	if chance(r, 0.04) {
		model = "claude-haiku-4-5-20251001"
	}
	if g.count {
		g.t.usage(model, Tokens{Input: in, Output: outTok, CacheRead: cr, CacheWrite: cw})
	}
	u := []byte(`{"input_tokens":`)
	u = appendInt(u, in)
	u = append(u, `,"cache_creation_input_tokens":`...)
	u = appendInt(u, cw)
	u = append(u, `,"cache_read_input_tokens":`...)
	u = appendInt(u, cr)
	u = append(u, `,"output_tokens":`...)
	u = appendInt(u, outTok)
	u = append(u, `,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":`...)
	u = appendInt(u, cw)
	u = append(u, `},"inference_geo":""}`...)
	return &response{
		id:        randID(r, "msg_01", 22, alnum),
		requestID: randID(r, "req_011C", 20, alnum),
		model:     model,
		usage:     u,
	}
}

// assistant writes one assistant record holding the block that writeBlock
// writes, and returns its uuid.
func (g *claudeGen) assistant(resp *response, stop string, writeBlock func()) string {
	r, o := g.r, g.o
	u := uuid4(r)
	g.tick(50*time.Millisecond, 4*time.Second)
	b := g.appendHead(o.buf())
	b = append(b, `,"message":{"id":"`...)
	b = append(b, resp.id...)
	b = append(b, `","type":"message","role":"assistant","model":"`...)
	b = append(b, resp.model...)
	o.put(append(b, `","content":[`...))
	writeBlock()
	b = append(o.buf(), `],"stop_reason":"`...)
	b = append(b, stop...)
	b = append(b, `","stop_sequence":null,"usage":`...)
	b = append(b, resp.usage...)
	b = append(b, `},"requestId":"`...)
	b = append(b, resp.requestID...)
	b = append(b, `","type":"assistant"`...)
	b = appendUUIDTime(b, true, u, g.clock)
	b = append(b, g.common...)
	if g.copying {
		o.put(b)
		b = append(o.buf(), `,"requestSessionId":"`...)
		b = append(b, g.origSID...)
		o.putExtra(append(b, '"'))
		b = o.buf()
	}
	o.end(append(b, '}'))
	g.leaf = u
	return u
}

// textBlocks writes an optional thinking block and an optional text block.
func (g *claudeGen) textBlocks(resp *response, stop string, pThink, pText float64) {
	r, o := g.r, g.o
	if chance(r, pThink) {
		x := newBlob(r, sizeAround(r, 600, 0.9, 60, 6_000))
		sig := 200 + r.IntN(800)
		g.assistant(resp, stop, func() {
			b := append(o.buf(), `{"type":"thinking","thinking":"`...)
			b = appendBlob(b, x)
			b = append(b, `","signature":"`...)
			b = appendB64(b, r, sig)
			o.put(append(b, `"}`...))
		})
	}
	if chance(r, pText) {
		x := newBlob(r, sizeAround(r, 350, 0.9, 20, 5_000))
		g.assistant(resp, stop, func() {
			b := append(o.buf(), `{"type":"text","text":"`...)
			b = appendBlob(b, x)
			o.put(append(b, `"}`...))
		})
		g.t.messages++
	}
}

// final writes the turn's closing response.
func (g *claudeGen) final() {
	resp := g.newResponse()
	g.textBlocks(resp, "end_turn", 0.3, 1)
}

func (g *claudeGen) hugeDue() bool { return len(g.huge) > 0 && g.o.logical >= g.huge[0].at }

// toolCall is one planned tool use and its result.
type toolCall struct {
	id, name, path string
	input          []byte // the escaped input object, unless content is set
	content        blob   // Write content, streamed
	hasContent     bool
	result         blob // tool output
	resultPrefix   string
	resultText     string // fixed result text instead of a blob
	isErr          bool
	assistantUUID  string
}

func (g *claudeGen) planTool(per int64) *toolCall {
	r := g.r
	tc := &toolCall{id: randID(r, "toolu_01", 22, alnum)}
	outSize := func(f float64) int { return sizeAround(r, float64(per)*f, 1.0, 20, 256_000) }
	if g.hugeDue() {
		h := g.huge[0]
		g.huge = g.huge[1:]
		if h.write {
			tc.name, tc.path = "Write", filePath(r, g.p.cwd)
			tc.content, tc.hasContent = newBlob(r, h.size), true
			tc.resultText = "File created successfully at: " + tc.path
			return tc
		}
		tc.name = "Bash"
		tc.input = appendBashInput(nil, r)
		tc.result = newBlob(r, h.size/2)
		return tc
	}
	switch k := r.IntN(100); {
	case k < 40:
		tc.name = "Bash"
		tc.input = appendBashInput(nil, r)
		tc.result = newBlob(r, outSize(0.35))
		tc.isErr = chance(r, 0.08)
	case k < 60:
		tc.name, tc.path = "Read", filePath(r, g.p.cwd)
		tc.input = appendStr(append([]byte(nil), `{"file_path":`...), tc.path)
		tc.input = append(tc.input, '}')
		tc.result = newBlob(r, outSize(0.35))
	case k < 72:
		tc.name, tc.path = "Edit", filePath(r, g.p.cwd)
		b := appendStr(append([]byte(nil), `{"file_path":`...), tc.path)
		b = append(b, `,"old_string":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 300, 0.8, 20, 3_000)))
		b = append(b, `","new_string":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 350, 0.8, 20, 3_000)))
		tc.input = append(b, `"}`...)
		tc.resultText = "The file " + tc.path + " has been updated successfully."
	case k < 78:
		tc.name, tc.path = "Write", filePath(r, g.p.cwd)
		tc.content, tc.hasContent = newBlob(r, sizeAround(r, float64(per)*0.3, 0.9, 50, 200_000)), true
		tc.resultText = "File created successfully at: " + tc.path
	case k < 86:
		tc.name = "Grep"
		b := appendStr(append([]byte(nil), `{"pattern":`...), "func "+title(pick(r, idents)))
		b = append(b, `,"path":`...)
		tc.input = append(appendStr(b, g.p.cwd), `,"output_mode":"content","-n":true}`...)
		tc.result = newBlob(r, outSize(0.2))
	case k < 91:
		tc.name = "Glob"
		tc.input = appendStr(append([]byte(nil), `{"pattern":`...), "**/*"+pick(r, fileExts))
		tc.input = append(tc.input, '}')
		tc.result = newBlob(r, outSize(0.05))
	case k < 96:
		tc.name = "TodoWrite"
		b := append([]byte(nil), `{"todos":[`...)
		for i := range 2 + r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"content":`...)
			b = appendStr(b, pick(r, verbs)+" "+pick(r, idents)+" in "+pick(r, pkgs))
			b = append(b, `,"status":"`...)
			b = append(b, pick(r, []string{"pending", "in_progress", "completed"})...)
			b = append(b, `","activeForm":"Working"}`...)
		}
		tc.input = append(b, `]}`...)
		tc.resultText = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress."
	default:
		tc.name = "Task"
		b := appendStr(append([]byte(nil), `{"description":`...), "Explore "+pick(r, pkgs))
		b = append(b, `,"prompt":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 600, 0.7, 100, 4_000)))
		tc.input = append(b, `","subagent_type":"general-purpose"}`...)
		tc.result = newBlob(r, outSize(0.3))
	}
	return tc
}

func appendBashInput(b []byte, r *rand.Rand) []byte {
	b = append(b, `{"command":`...)
	b = appendStr(b, pick(r, commands))
	b = append(b, `,"description":`...)
	b = appendStr(b, title(sentence(r, 3+r.IntN(5))))
	return append(b, '}')
}

// toolRound writes a response that uses tools, and the tools' results.
func (g *claudeGen) toolRound(per int64) {
	r, o := g.r, g.o
	n := 1
	switch {
	case chance(r, 0.05):
		n = 3
	case chance(r, 0.15):
		n = 2
	}
	calls := make([]*toolCall, n)
	for i := range calls {
		calls[i] = g.planTool(per / int64(n))
	}
	resp := g.newResponse()
	g.textBlocks(resp, "tool_use", 0.5, 0.6)
	g.t.toolCalls += len(calls)
	for _, tc := range calls {
		tc.assistantUUID = g.assistant(resp, "tool_use", func() {
			b := append(o.buf(), `{"type":"tool_use","id":"`...)
			b = append(b, tc.id...)
			b = append(b, `","name":"`...)
			b = append(b, tc.name...)
			b = append(b, `","input":`...)
			if tc.hasContent {
				b = appendStr(append(b, `{"file_path":`...), tc.path)
				o.put(append(b, `,"content":"`...))
				o.blob(tc.content)
				o.put(append(o.buf(), `"}}`...))
				return
			}
			b = append(b, tc.input...)
			o.put(append(b, '}'))
		})
	}
	for _, tc := range calls {
		g.toolResult(tc)
	}
}

// toolResult writes the user record carrying tc's result.
func (g *claudeGen) toolResult(tc *toolCall) {
	r, o := g.r, g.o
	u := uuid4(r)
	g.tick(100*time.Millisecond, 20*time.Second)
	b := g.appendHead(o.buf())
	b = append(b, `,"promptId":"`...)
	b = append(b, g.promptID...)
	b = append(b, `","type":"user","message":{"role":"user","content":[{"tool_use_id":"`...)
	b = append(b, tc.id...)
	b = append(b, `","type":"tool_result","content":"`...)
	if tc.resultText != "" {
		b = appendEsc(b, tc.resultText)
	} else {
		if tc.isErr {
			b = append(b, `Exit code 1\n`...)
		}
		o.put(b)
		o.blob(tc.result)
		b = o.buf()
	}
	b = append(b, `","is_error":`...)
	b = strconv.AppendBool(b, tc.isErr)
	if tc.isErr {
		g.t.toolErrors++
	}
	b = append(b, `}]}`...)
	b = appendUUIDTime(b, true, u, g.clock)
	b = append(b, `,"toolUseResult":`...)
	switch {
	case tc.name == "Read":
		b = appendStr(append(b, `{"type":"text","file":{"filePath":`...), tc.path)
		o.put(append(b, `,"content":"`...))
		o.blob(tc.result)
		n := int64(tc.result.n/40 + 1)
		b = append(o.buf(), `","numLines":`...)
		b = appendInt(b, n)
		b = append(b, `,"startLine":1,"totalLines":`...)
		b = appendInt(b, n)
		b = append(b, `}}`...)
	case tc.name == "Write":
		b = appendStr(append(b, `{"type":"create","filePath":`...), tc.path)
		o.put(append(b, `,"content":"`...))
		o.blob(tc.content)
		b = append(o.buf(), `","structuredPatch":[]}`...)
	case tc.resultText != "":
		b = append(b, `{"stdout":`...)
		b = appendStr(b, tc.resultText)
		b = append(b, `,"stderr":"","interrupted":false,"isImage":false}`...)
	case tc.isErr:
		o.put(append(b, `{"stdout":"","stderr":"`...))
		o.blob(tc.result)
		b = append(o.buf(), `","interrupted":false,"isImage":false}`...)
	default:
		o.put(append(b, `{"stdout":"`...))
		o.blob(tc.result)
		b = append(o.buf(), `","stderr":"","interrupted":false,"isImage":false}`...)
	}
	b = append(b, `,"sourceToolAssistantUUID":"`...)
	b = append(b, tc.assistantUUID...)
	b = append(b, '"')
	b = append(b, g.common...)
	o.end(append(b, '}'))
	g.leaf = u
}
