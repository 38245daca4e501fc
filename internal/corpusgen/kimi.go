package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/kimi"
)

// Kimi Code 2.1.0 (kimi.md §3): KIMI_CODE_HOME/sessions/wd_<slug>_<hash>/
// session_<uuid>/ holds state.json and agents/main/wire.jsonl, a journal of
// flat records {"type", …, "agentId", "time"}; session_index.jsonl and
// workspaces.json list the sessions and their directories.
const (
	kimiStore = "kimi"
	// kimiHome is the KIMI_CODE_HOME the absolute paths in state.json and
	// session_index.jsonl name, whatever folder the corpus is in, so that
	// a corpus is the same bytes wherever it is written. Kimi Code 2.1.0
	// reads neither path (the journal is always agents/<agent>/wire.jsonl).
	kimiHome = "/home/dev/.kimi-code"
	// kimiTurnCost is about what a Kimi turn costs beyond its budget.
	kimiTurnCost = 6_000
	// kimiOutputMax caps a tool's output. (Kimi Code's own limit was not
	// measured.)
	kimiOutputMax = 100_000
)

// kimiModels are provider model ids; kimiAlias gives the alias a
// configuration binds each to.
var kimiModels = []string{"kimi-for-coding", "kimi-for-coding", "kimi-k2-0905-preview", "kimi-k2-thinking-turbo"}

func kimiAlias(model string) string {
	if model == "kimi-for-coding" {
		return "kimi-code/kimi-for-coding"
	}
	return "moonshot/" + model
}

var kimiTools = []string{"Read", "Write", "Edit", "Grep", "Glob", "Bash", "TaskList", "TaskOutput", "TaskStop", "WaitFor",
	"CronCreate", "CronList", "CronDelete", "ReadMediaFile", "TodoList", "Skill", "WebSearch", "Agent", "AgentSwarm",
	"FetchURL", "AskUserQuestion", "NotifyUser", "EnterPlanMode", "ExitPlanMode", "CreateGoal", "GetGoal",
	"SetGoalBudget", "UpdateGoal"}

// kimiCall is a tool call and its result.
type kimiCall struct {
	id, uuid, name string
	args           []byte // the args object
	out            blob
	outPre         string // escaped, before the blob
	outPost        string // escaped, after it
	hasOut         bool
	isErr          bool
	command        string // a Bash call's command, for its display
}

// kimiStep is one model response, kept until the turn's derived
// agent.message.appended records restate it.
type kimiStep struct {
	think, text       blob
	hasThink, hasText bool
	calls             []*kimiCall
	usage             [4]int64 // inputOther, output, inputCacheRead, inputCacheCreation
	messageID         string
	finish            string
}

type kimiGen struct {
	o        *out
	r        *rand.Rand
	p        *filePlan
	clock    time.Time
	t        tally
	ctx      int64
	turnNo   int
	calls    int // tool calls so far, for their ids
	alias    string
	key      string // the working directory's folder
	sysHash  string
	title    string
	lastDate string
}

// writeKimi writes a Kimi Code session's main journal and returns what it
// holds, when it ended and its title.
func writeKimi(o *out, r *rand.Rand, p *filePlan) (tally, time.Time, string) {
	g := &kimiGen{o: o, r: r, p: p, clock: p.start, alias: kimiAlias(p.model), key: kimi.WorkDirKey(p.cwd)}
	g.ctx = int64(14_000 + r.IntN(8_000))
	g.header()
	runTurns(o, p.target, turnBudget(p.target, 38_000), kimiTurnCost, 1, func() int64 { return 0 }, g.turn)
	if p.malFrac >= 0 {
		// The process died while it recorded the next prompt: the last
		// line is cut short (Kimi Code ignores a cut last line).
		g.tick(time.Minute, 30*time.Minute)
		b := g.rec("turn.prompt")
		b = append(b, `,"input":[{"type":"text","text":"`...)
		b = append(b, promptText(r, 2_500)...)
		b = append(b, `"}],"origin":{"kind":"user"},"promptId":"`...)
		b = append(b, g.msgID()...)
		b = append(b, `","turnId":`...)
		b = appendInt(b, int64(g.turnNo))
		o.truncate(g.time(b))
	}
	return g.t, g.clock, g.title
}

func (g *kimiGen) tick(lo, hi time.Duration) { tick(g.r, &g.clock, lo, hi) }

// rec starts a record: {"type":…,"agentId":"main".
func (g *kimiGen) rec(typ string) []byte {
	b := append(g.o.buf(), `{"type":"`...)
	b = append(b, typ...)
	return append(b, `","agentId":"main"`...)
}

// time ends a record with its time.
func (g *kimiGen) time(b []byte) []byte {
	b = append(b, `,"time":`...)
	b = appendInt(b, g.clock.UnixMilli())
	return append(b, '}')
}

// msgID is a message id: "msg_" and a ULID.
func (g *kimiGen) msgID() string {
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	b := []byte("msg_")
	ms := uint64(g.clock.UnixMilli())
	for i := 9; i >= 0; i-- {
		b = append(b, crockford[(ms>>(5*uint(i)))&31])
	}
	for range 16 {
		b = append(b, crockford[g.r.IntN(32)])
	}
	return string(b)
}

func (g *kimiGen) header() {
	o, r, p := g.o, g.r, g.p
	b := append(o.buf(), `{"type":"metadata","protocol_version":"1.5","created_at":`...)
	b = appendInt(b, g.clock.UnixMilli())
	o.end(append(b, '}'))
	g.tick(2*time.Millisecond, 20*time.Millisecond)

	b = append(o.buf(), `{"type":"runtime.set_binding","workspaceId":"`...)
	b = append(b, g.key...)
	o.end(g.time(append(b, `","runtimeId":"local","agentId":"main"`...)))

	// The system prompt Kimi Code renders: several KB.
	sys := newBlob(r, sizeAround(r, 9_000, 0.2, 6_000, 14_000))
	g.sysHash = randHex(r, 64)
	b = g.rec("profile.bind")
	b = append(b, `,"modelAlias":"`...)
	b = append(b, g.alias...)
	o.put(append(b, `","profileName":"agent","thinkingEffort":"on","systemPrompt":"You are Kimi Code, an interactive coding agent running in the user's terminal.\n\n`...))
	o.blob(sys)
	b = append(o.buf(), `","environmentDisclosure":{"cwd":`...)
	b = appendStr(b, p.cwd)
	b = append(b, `},"agentsMdPaths":[],"activeToolNames":[`...)
	for i, n := range kimiTools {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, n)
	}
	o.end(g.time(append(b, `,"mcp__*"],"disallowedTools":[],"subagents":["coder","explore","plan"]`...)))

	b = g.rec("permission.set_mode")
	o.end(g.time(append(b, `,"mode":"auto"`...)))
}

// message writes a context.append_message of a user's text.
func (g *kimiGen) message(text, id, origin string) {
	b := g.rec("context.append_message")
	b = append(b, `,"message":{"role":"user","content":[{"type":"text","text":"`...)
	b = append(b, text...)
	b = append(b, `"}]`...)
	if id != "" {
		b = append(b, `,"id":"`...)
		b = append(b, id...)
		b = append(b, '"')
	}
	b = append(b, `,"toolCalls":[],"origin":`...)
	b = append(b, origin...)
	g.o.end(g.time(append(b, '}')))
}

// turn writes one prompt and the steps it leads to.
func (g *kimiGen) turn(budget int64) {
	r, o := g.r, g.o
	turnID := g.turnNo
	g.turnNo++
	if turnID > 0 {
		g.tick(10*time.Second, 30*time.Minute)
	}
	started := g.clock
	prompt := promptText(r, budget)
	if g.title == "" {
		g.title = titleOf(prompt)
	}
	pid := g.msgID()
	b := g.rec("turn.prompt")
	b = append(b, `,"input":[{"type":"text","text":"`...)
	b = append(b, prompt...)
	b = append(b, `"}],"origin":{"kind":"user"},"promptId":"`...)
	b = append(b, pid...)
	b = append(b, `","turnId":`...)
	b = appendInt(b, int64(turnID))
	o.end(g.time(b))
	g.tick(time.Millisecond, 5*time.Millisecond)
	g.message(prompt, pid, `{"kind":"user"}`)
	g.t.turns++
	g.t.messages++

	b = append(o.buf(), `{"message":{"message":{"role":"user","content":[{"type":"text","text":"`...)
	b = append(b, prompt...)
	b = append(b, `"}]},"meta":{"source":"input","promptId":"`...)
	b = append(b, pid...)
	b = append(b, `","origin":{"kind":"user"},"tracked":true,"createdAt":`...)
	b = appendTS(b, g.clock)
	b = append(b, `,"userMessageId":"`...)
	b = append(b, pid...)
	o.end(g.event(append(b, `"}},"type":"agent.message.appended"`...)))

	if d := g.clock.UTC().Format("2006-01-02"); d != g.lastDate {
		g.lastDate = d
		g.message(`<system-reminder>\nToday's date is `+d+`. The current date is restated in a reminder whenever it changes; rely on the latest such reminder for the current date. DO NOT mention this to the user explicitly.\n</system-reminder>`,
			"", `{"kind":"injection","variant":"date_change","disclosure":{"kind":"date","renderGeneration":`+strconv.Itoa(g.turnNo)+`,"localDate":"`+d+`","timeZone":"UTC"}}`)
	}
	if turnID == 0 {
		g.message(`<system-reminder>\nAuto permission mode is active. Tool approvals will be handled automatically while this mode remains enabled.\n</system-reminder>`,
			"", `{"kind":"injection","variant":"permission_mode"}`)
	}
	b = append(o.buf(), `{"turnId":`...)
	b = appendInt(b, int64(turnID))
	b = append(b, `,"queueItemId":"`...)
	b = append(b, pid...)
	o.end(g.event(append(b, `","type":"agent.turn.started"`...)))
	if turnID == 0 {
		b = g.rec("plugin.session_start")
		o.end(g.time(append(b, `,"content":null`...)))
	}

	rounds := drawRounds(r, budget, 5_000, 8_000, 30)
	per := max(300, (budget-5_000)/int64(max(rounds, 1))-3_000)
	var steps []*kimiStep
	for k := 1; k <= rounds+1; k++ {
		steps = append(steps, g.step(turnID, k, per, k <= rounds))
	}

	// 2.1.0's derived event journal restates the turn's messages.
	g.tick(time.Millisecond, 5*time.Millisecond)
	for _, s := range steps {
		g.appended(s)
	}
	b = append(o.buf(), `{"turnId":`...)
	b = appendInt(b, int64(turnID))
	o.end(g.event(append(b, `,"outcome":"done","type":"agent.turn.ended"`...)))
	g.tick(time.Millisecond, 10*time.Millisecond)
	b = g.rec("turn.ended")
	b = append(b, `,"turnId":`...)
	b = appendInt(b, int64(turnID))
	b = append(b, `,"reason":"completed","durationMs":`...)
	b = appendInt(b, g.clock.Sub(started).Milliseconds())
	o.end(g.time(b))
	b = g.rec("token_counting.turn_recorded")
	b = append(b, `,"turnId":`...)
	b = appendInt(b, int64(turnID))
	b = append(b, `,"length":`...)
	b = appendInt(b, int64(3+4*len(steps)))
	b = append(b, `,"tokens":`...)
	b = appendInt(b, g.ctx)
	o.end(g.time(b))
	b = g.rec("prompt.completed")
	b = append(b, `,"promptId":"`...)
	b = append(b, pid...)
	b = append(b, `","finishedAt":`...)
	b = appendTS(b, g.clock)
	o.end(g.time(append(b, `,"reason":"completed"`...)))
}

// event ends a record of 2.1.0's derived journal.
func (g *kimiGen) event(b []byte) []byte {
	b = append(b, `,"time":`...)
	b = appendInt(b, g.clock.UnixMilli())
	return append(b, `,"kind":"event"}`...)
}

// loop writes a context.append_loop_event whose event fields (after its
// type) write adds.
func (g *kimiGen) loop(typ string, write func()) {
	b := g.rec("context.append_loop_event")
	b = append(b, `,"event":{"type":"`...)
	b = append(b, typ...)
	g.o.put(append(b, '"'))
	write()
	g.o.end(g.time(append(g.o.buf(), '}')))
}

// step writes one model response: its request and usage, its thinking,
// text and tool calls, the tools' results, its end.
func (g *kimiGen) step(turnID, k int, per int64, tools bool) *kimiStep {
	r, o := g.r, g.o
	turn := strconv.Itoa(turnID)
	stepUUID := uuid4(r)
	g.loop("step.begin", func() {
		b := append(o.buf(), `,"uuid":"`...)
		b = append(b, stepUUID...)
		b = append(b, `","turnId":"`...)
		b = append(b, turn...)
		b = append(b, `","step":`...)
		o.put(appendInt(b, int64(k)))
	})
	toolsHash := "b39173adec090e72ea3b9da41d45cb0960c345e9d053c19ef2bdf22dfc7452a0"
	if turnID == 0 && k == 1 {
		b := g.rec("llm.tools_snapshot")
		b = append(b, `,"hash":"`+toolsHash+`","tools":[`...)
		for i, n := range kimiTools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":"`...)
			b = append(b, n...)
			b = append(b, `","description":"`...)
			b = appendBlob(b, newBlob(r, sizeAround(r, 900, 0.5, 200, 3_000)))
			b = append(b, `","parameters":{"type":"object","properties":{},"additionalProperties":false}}`...)
		}
		o.end(g.time(append(b, ']')))
	}
	g.tick(5*time.Millisecond, 30*time.Millisecond)
	b := g.rec("llm.request")
	b = append(b, `,"kind":"loop","provider":"openai","model":"`...)
	b = append(b, g.p.model...)
	b = append(b, `","modelAlias":"`...)
	b = append(b, g.alias...)
	b = append(b, `","thinkingEffort":"on","thinkingKeep":"all","maxTokens":262144,"toolSelect":false,"systemPromptHash":"`...)
	b = append(b, g.sysHash...)
	b = append(b, `","toolsHash":"`+toolsHash+`","messageCount":`...)
	b = appendInt(b, int64(3+2*k+4*turnID))
	b = append(b, `,"turnStep":"`...)
	b = append(b, turn...)
	b = append(b, '.')
	b = appendInt(b, int64(k))
	o.end(g.time(append(b, '"')))

	s := &kimiStep{messageID: "chatcmpl-" + randID(r, "", 24, alnum), finish: "tool_use"}
	g.ctx = min(250_000, g.ctx+int64(300+r.IntN(5_000)))
	cached := int64(0)
	if turnID > 0 || k > 1 {
		cached = int64(float64(g.ctx) * uniform(r, 0.7, 0.98))
	}
	s.usage = [4]int64{g.ctx - cached, int64(8 + r.IntN(900)), cached, 0}
	if chance(r, 0.12) {
		s.usage[1] = int64(8 + r.IntN(5_000))
	}
	g.t.usage(g.p.model, Tokens{Input: s.usage[0], Output: s.usage[1], CacheRead: s.usage[2], CacheWrite: s.usage[3]})
	g.tick(300*time.Millisecond, 12*time.Second)
	b = g.rec("usage.record")
	b = append(b, `,"model":"`...)
	b = append(b, g.alias...)
	b = appendKimiUsage(append(b, `","usage":`...), s.usage)
	o.end(g.time(append(b, `,"usageScope":"turn"`...)))
	b = g.rec("token_counting.measured")
	b = append(b, `,"length":`...)
	b = appendInt(b, int64(2+2*k))
	b = append(b, `,"tokens":`...)
	b = appendInt(b, g.ctx+s.usage[1])
	o.end(g.time(b))

	if chance(r, 0.75) {
		s.think, s.hasThink = newBlob(r, sizeAround(r, 500, 0.8, 40, 5_000)), true
		g.part(turn, k, stepUUID, "think", s.think)
	}
	if !tools || chance(r, 0.5) {
		n := 120.0
		if !tools {
			n = 450
		}
		s.text, s.hasText = newBlob(r, sizeAround(r, n, 0.9, 20, 5_000)), true
		g.part(turn, k, stepUUID, "text", s.text)
		g.t.messages++
	}
	if tools {
		n := 1
		switch {
		case chance(r, 0.05):
			n = 3
		case chance(r, 0.15):
			n = 2
		}
		for range n {
			c := g.planCall(per / int64(n))
			s.calls = append(s.calls, c)
			g.tick(10*time.Millisecond, 200*time.Millisecond)
			g.loop("tool.call", func() {
				b := append(o.buf(), `,"uuid":"`...)
				b = append(b, c.uuid...)
				b = append(b, `","turnId":"`...)
				b = append(b, turn...)
				b = append(b, `","step":`...)
				b = appendInt(b, int64(k))
				b = append(b, `,"stepUuid":"`...)
				b = append(b, stepUUID...)
				b = append(b, `","toolCallId":"`...)
				b = append(b, c.id...)
				b = append(b, `","name":"`...)
				b = append(b, c.name...)
				b = append(b, `","args":`...)
				b = append(b, c.args...)
				if c.command != "" {
					b = append(b, `,"display":{"kind":"command","command":`...)
					b = appendStr(b, c.command)
					b = append(b, `,"cwd":`...)
					b = appendStr(b, g.p.cwd)
					b = append(b, `,"language":"bash"}`...)
				}
				o.put(b)
			})
			g.t.toolCalls++
		}
		for _, c := range s.calls {
			g.tick(50*time.Millisecond, 20*time.Second)
			g.loop("tool.result", func() {
				b := append(o.buf(), `,"parentUuid":"`...)
				b = append(b, c.uuid...)
				b = append(b, `","toolCallId":"`...)
				b = append(b, c.id...)
				o.put(append(b, `","result":{"output":"`...))
				g.putOutput(c)
				b = append(o.buf(), '"')
				if c.isErr {
					b = append(b, `,"isError":true`...)
				}
				b = append(b, `,"durationMs":`...)
				b = appendInt(b, int64(5+r.IntN(30_000)))
				o.put(append(b, '}'))
			})
			if c.isErr {
				g.t.toolErrors++
			}
		}
	} else {
		s.finish = "end_turn"
	}
	g.tick(5*time.Millisecond, 50*time.Millisecond)
	g.loop("step.end", func() {
		b := append(o.buf(), `,"uuid":"`...)
		b = append(b, stepUUID...)
		b = append(b, `","turnId":"`...)
		b = append(b, turn...)
		b = append(b, `","step":`...)
		b = appendInt(b, int64(k))
		b = append(b, `,"finishReason":"`...)
		b = append(b, s.finish...)
		b = appendKimiUsage(append(b, `","usage":`...), s.usage)
		first := 200 + r.IntN(3_000)
		stream := 50 + r.IntN(20_000)
		b = append(b, `,"llmFirstTokenLatencyMs":`...)
		b = appendInt(b, int64(first))
		b = append(b, `,"llmStreamDurationMs":`...)
		b = appendInt(b, int64(stream))
		b = append(b, `,"llmRequestBuildMs":`...)
		b = appendInt(b, int64(1+r.IntN(20)))
		b = append(b, `,"messageId":"`...)
		b = append(b, s.messageID...)
		b = append(b, `","providerFinishReason":"`...)
		if s.finish == "tool_use" {
			b = append(b, `tool_calls","rawFinishReason":"tool_calls"`...)
		} else {
			b = append(b, `completed","rawFinishReason":"stop"`...)
		}
		o.put(b)
	})
	return s
}

func appendKimiUsage(b []byte, u [4]int64) []byte {
	b = append(b, `{"inputOther":`...)
	b = appendInt(b, u[0])
	b = append(b, `,"output":`...)
	b = appendInt(b, u[1])
	b = append(b, `,"inputCacheRead":`...)
	b = appendInt(b, u[2])
	b = append(b, `,"inputCacheCreation":`...)
	b = appendInt(b, u[3])
	return append(b, '}')
}

// part writes a content.part of the open step.
func (g *kimiGen) part(turn string, k int, stepUUID, typ string, x blob) {
	o := g.o
	u := uuid4(g.r)
	g.loop("content.part", func() {
		b := append(o.buf(), `,"uuid":"`...)
		b = append(b, u...)
		b = append(b, `","turnId":"`...)
		b = append(b, turn...)
		b = append(b, `","step":`...)
		b = appendInt(b, int64(k))
		b = append(b, `,"stepUuid":"`...)
		b = append(b, stepUUID...)
		b = append(b, `","part":{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","`...)
		b = append(b, typ...) // "think" or "text"
		o.put(append(b, `":"`...))
		o.blob(x)
		b = append(o.buf(), '"')
		if typ == "think" {
			b = append(b, `,"reasoningKey":"reasoning_content"`...)
		}
		o.put(append(b, '}'))
	})
}

func (g *kimiGen) putOutput(c *kimiCall) {
	o := g.o
	o.put(append(o.buf(), c.outPre...))
	if c.hasOut {
		o.blob(c.out)
	}
	o.put(append(o.buf(), c.outPost...))
}

// appended writes the agent.message.appended records restating a step:
// its assistant message, then one tool message per call.
func (g *kimiGen) appended(s *kimiStep) {
	o := g.o
	o.put(append(o.buf(), `{"message":{"message":{"role":"assistant","content":[`...))
	n := 0
	for _, p := range []struct {
		typ string
		x   blob
		has bool
	}{{"think", s.think, s.hasThink}, {"text", s.text, s.hasText}} {
		if !p.has {
			continue
		}
		b := o.buf()
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"type":"`...)
		b = append(b, p.typ...)
		b = append(b, `","`...)
		b = append(b, p.typ...)
		o.put(append(b, `":"`...))
		o.blob(p.x)
		b = append(o.buf(), '"')
		if p.typ == "think" {
			b = append(b, `,"reasoningKey":"reasoning_content"`...)
		}
		o.put(append(b, '}'))
	}
	o.put(append(o.buf(), `],"toolCalls":[`...))
	for i, c := range s.calls {
		b := o.buf()
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"function","id":"`...)
		b = append(b, c.id...)
		b = append(b, `","name":"`...)
		b = append(b, c.name...)
		b = append(b, `","arguments":"`...)
		b = appendEsc(b, string(c.args))
		o.put(append(b, `"}`...))
	}
	b := appendKimiUsage(append(o.buf(), `]},"meta":{"model":{"provider":"agent-loop","model":"agent-loop"},"source":"llm","usage":`...), s.usage)
	b = append(b, `,"finish":{"finishReason":"`...)
	if s.finish == "tool_use" {
		b = append(b, `tool_calls","rawFinishReason":"tool_calls"`...)
	} else {
		b = append(b, `completed","rawFinishReason":"stop"`...)
	}
	b = append(b, `},"messageId":"`...)
	b = append(b, s.messageID...)
	o.end(g.event(append(b, `"}},"type":"agent.message.appended"`...)))
	for _, c := range s.calls {
		o.put(append(o.buf(), `{"message":{"message":{"role":"tool","content":[{"type":"text","text":"`...))
		g.putOutput(c)
		b := append(o.buf(), `"}],"toolCallId":"`...)
		b = append(b, c.id...)
		b = append(b, '"')
		if c.isErr {
			b = append(b, `,"isError":true`...)
		}
		o.end(g.event(append(b, `},"meta":{"source":"tool"}},"type":"agent.message.appended"`...)))
	}
}

// planCall plans a tool call and its result.
func (g *kimiGen) planCall(per int64) *kimiCall {
	r, cwd := g.r, g.p.cwd
	c := &kimiCall{uuid: uuid4(r)}
	outSize := func(f float64) int { return sizeAround(r, float64(per)*f, 1.0, 20, kimiOutputMax) }
	switch k := r.IntN(100); {
	case k < 40:
		c.name = "Bash"
		c.command = pick(r, commands)
		c.args = append(appendStr(append([]byte(nil), `{"command":`...), c.command), '}')
		c.out, c.hasOut = newBlob(r, outSize(0.4)), true
		if chance(r, 0.08) {
			c.isErr = true
			c.outPost = `\nCommand failed with exit code: ` + strconv.Itoa(1+r.IntN(2)) + `.`
		}
	case k < 62:
		c.name = "Read"
		p := filePath(r, cwd)
		c.args = append(appendStr(append([]byte(nil), `{"path":`...), p), '}')
		if chance(r, 0.04) {
			c.isErr = true
			c.outPre = string(appendEsc(nil, "File not found: "+p))
			break
		}
		c.out, c.hasOut = newBlob(r, outSize(0.4)), true
	case k < 75:
		c.name = "Edit"
		p := filePath(r, cwd)
		b := appendStr(append([]byte(nil), `{"path":`...), p)
		b = append(b, `,"old_string":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 300, 0.8, 20, 3_000)))
		b = append(b, `","new_string":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 350, 0.8, 20, 3_000)))
		c.args = append(b, `"}`...)
		c.outPre = string(appendEsc(nil, "Edited "+p+" (1 replacement)."))
	case k < 81:
		c.name = "Write"
		p := filePath(r, cwd)
		b := appendStr(append([]byte(nil), `{"path":`...), p)
		b = append(b, `,"content":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, float64(per)*0.3, 0.9, 50, 60_000)))
		c.args = append(b, `"}`...)
		c.outPre = string(appendEsc(nil, "Wrote "+p+"."))
	case k < 89:
		c.name = "Grep"
		b := appendStr(append([]byte(nil), `{"pattern":`...), "func "+title(pick(r, idents)))
		b = append(b, `,"path":`...)
		c.args = append(appendStr(b, cwd), '}')
		c.out, c.hasOut = newBlob(r, outSize(0.2)), true
	case k < 94:
		c.name = "Glob"
		c.args = append(appendStr(append([]byte(nil), `{"pattern":`...), "**/*"+pick(r, fileExts)), '}')
		c.out, c.hasOut = newBlob(r, outSize(0.05)), true
	default:
		c.name = "TodoList"
		b := append([]byte(nil), `{"todos":[`...)
		for i := range 2 + r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"title":`...)
			b = appendStr(b, pick(r, verbs)+" "+pick(r, idents)+" in "+pick(r, pkgs))
			b = append(b, `,"status":"`...)
			b = append(b, pick(r, []string{"pending", "in_progress", "done"})...)
			b = append(b, `"}`...)
		}
		c.args = append(b, `]}`...)
		c.outPre = "Todo list updated."
	}
	c.id = c.name + ":" + strconv.Itoa(g.calls)
	g.calls++
	return c
}

// titleOf is a title made of a prompt (escaped JSON text): its first
// words, at most 50 bytes, cut at a space.
func titleOf(prompt string) string {
	t := prompt
	if i := strings.Index(t, `\n`); i >= 0 {
		t = t[:i]
	}
	if len(t) > 50 {
		t = t[:50]
		if i := strings.LastIndexByte(t, ' '); i > 0 {
			t = t[:i]
		}
	}
	return strings.TrimRight(t, `\ `)
}

// writeKimiState writes a session's state.json (v2, as 2.1.0 writes it).
func writeKimiState(dir string, p *filePlan, res *fileResult) error {
	key := kimi.WorkDirKey(p.cwd)
	b := append([]byte(nil), `{"id":"`...)
	b = append(b, p.id...)
	b = append(b, `","version":2,"cwd":`...)
	b = appendStr(b, p.cwd)
	b = append(b, `,"createdAt":`...)
	b = appendInt(b, p.start.UnixMilli())
	b = append(b, `,"updatedAt":`...)
	b = appendInt(b, res.end.UnixMilli())
	b = append(b, `,"archived":false,"title":"`...)
	b = append(b, res.title...)
	b = append(b, `","titleKind":"generated","agents":{"main":{"homedir":`...)
	b = appendStr(b, kimiHome+"/sessions/"+key+"/"+p.id+"/agents/main")
	b = append(b, `,"type":"main"}},"custom":{},"lastTurnReason":"completed","isCustomTitle":false}`...)
	path := filepath.Join(dir, kimiStore, "sessions", key, p.id, "state.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chtimes(path, res.end, res.end); err != nil {
		return fmt.Errorf("set the time of %s: %w", path, err)
	}
	return nil
}

// writeKimiIndex writes session_index.jsonl (a line per session, in the
// order they were created) and workspaces.json.
func writeKimiIndex(dir string, plans []filePlan, results []fileResult) error {
	idx := byStart(plans, cliKimi)
	if len(idx) == 0 {
		return nil
	}
	var lines []byte
	type ws struct{ created, opened time.Time }
	spaces := map[string]*ws{}
	var keys []string
	for _, i := range idx {
		p := &plans[i]
		key := kimi.WorkDirKey(p.cwd)
		lines = append(lines, `{"sessionId":"`...)
		lines = append(lines, p.id...)
		lines = append(lines, `","sessionDir":`...)
		lines = appendStr(lines, kimiHome+"/sessions/"+key+"/"+p.id)
		lines = append(lines, `,"workDir":`...)
		lines = appendStr(lines, p.cwd)
		lines = append(lines, "}\n"...)
		w := spaces[key]
		if w == nil {
			w = &ws{created: p.start}
			spaces[key] = w
			keys = append(keys, key)
		}
		w.opened = maxTime(w.opened, results[i].end)
	}
	root := filepath.Join(dir, kimiStore)
	if err := os.WriteFile(filepath.Join(root, "session_index.jsonl"), lines, 0o644); err != nil {
		return fmt.Errorf("write Kimi Code's session index: %w", err)
	}
	roots := map[string]string{}
	for _, i := range idx {
		roots[kimi.WorkDirKey(plans[i].cwd)] = plans[i].cwd
	}
	slices.Sort(keys)
	b := append([]byte(nil), `{"version":1,"workspaces":{`...)
	for i, key := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, key)
		b = append(b, `:{"root":`...)
		b = appendStr(b, roots[key])
		b = append(b, `,"name":`...)
		b = appendStr(b, filepath.Base(roots[key]))
		b = append(b, `,"created_at":`...)
		b = appendTS(b, spaces[key].created)
		b = append(b, `,"last_opened_at":`...)
		b = appendTS(b, spaces[key].opened)
		b = append(b, '}')
	}
	b = append(b, `},"deleted_workspace_ids":[]}`...)
	if err := os.WriteFile(filepath.Join(root, "workspaces.json"), b, 0o644); err != nil {
		return fmt.Errorf("write Kimi Code's workspaces: %w", err)
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// randHex returns n random hex digits.
func randHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}
