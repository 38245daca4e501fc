package corpusgen

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

const (
	codexVersion       = "0.169.0"
	codexContextWindow = 258400
	baseInstrSeed      = 0xba5e1257
	// codexTurnCost is about what a Codex turn costs beyond its budget.
	codexTurnCost = 5_000
)

// codexUsage is a token_count usage object.
type codexUsage struct {
	input, cached, cacheWrite, output, reasoning int64
}

func (u codexUsage) plus(v codexUsage) codexUsage {
	return codexUsage{u.input + v.input, u.cached + v.cached, u.cacheWrite + v.cacheWrite, u.output + v.output, u.reasoning + v.reasoning}
}

func appendCodexUsage(b []byte, u codexUsage) []byte {
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, u.input)
	b = append(b, `,"cached_input_tokens":`...)
	b = appendInt(b, u.cached)
	b = append(b, `,"cache_write_input_tokens":`...)
	b = appendInt(b, u.cacheWrite)
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, u.output)
	b = append(b, `,"reasoning_output_tokens":`...)
	b = appendInt(b, u.reasoning)
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, u.input+u.output)
	return append(b, '}')
}

// codexGen writes the records of one Codex rollout.
type codexGen struct {
	o         *out
	r         *rand.Rand
	p         *filePlan
	ordinal   int64
	hist      int64 // history_sequence of paginated response items
	clock     time.Time
	turnID    string
	turnNo    int
	ctx       int64
	total     codexUsage // running thread total
	turnTotal codexUsage
	responses int
	t         tally
	huge      []hugeLine
	malAt     int64
	modelSeen bool // an intact turn_context has named the model
}

func writeCodex(o *out, r *rand.Rand, p *filePlan) (tally, time.Time) {
	g := &codexGen{o: o, r: r, p: p, clock: p.start, malAt: -1}
	g.ctx = int64(8_000 + r.IntN(10_000))
	if p.malFrac >= 0 {
		g.malAt = int64(p.malFrac * float64(p.target))
	}
	g.huge = planHuge(r, p.target, false)
	g.sessionMeta()
	budget := turnBudget(p.target, 21_000+hugeCost(g.huge))
	runTurns(o, p.target, budget, codexTurnCost, 1, func() int64 { return hugeCost(g.huge) }, g.turn)
	if g.malAt >= 0 { // the planned line never came: truncate one in a last short turn
		g.malAt = 0
		g.turn(2_500)
	}
	return g.t, g.clock
}

func (g *codexGen) tick(lo, hi time.Duration) { tick(g.r, &g.clock, lo, hi) }

// open appends an envelope's start, up to and including "payload":.
func (g *codexGen) open(b []byte, typ string) []byte {
	b = append(b, `{"timestamp":`...)
	b = appendTS(b, g.clock)
	if g.p.paginated {
		b = append(b, `,"ordinal":`...)
		b = appendInt(b, g.ordinal)
	}
	g.ordinal++
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	return append(b, `","payload":`...)
}

// close finishes an envelope whose payload is complete in b, adding
// response-item metadata in paginated files.
func (g *codexGen) close(b []byte, item bool) {
	if item && g.p.paginated {
		g.hist++
		b = append(b, `,"metadata":{"history_sequence":`...)
		b = appendInt(b, g.hist)
		b = append(b, `,"client_authored":false}`...)
	}
	g.o.end(append(b, '}'))
}

// closeEligible finishes a line that may be the planned malformed one,
// and reports whether it is whole.
func (g *codexGen) closeEligible(b []byte) bool {
	b = append(b, '}')
	if g.malAt >= 0 && g.o.logical >= g.malAt {
		g.malAt = -1
		g.o.truncate(b)
		return false
	}
	g.o.end(b)
	return true
}

func (g *codexGen) sessionMeta() {
	o, p := g.o, g.p
	b := g.open(o.buf(), "session_meta")
	b = append(b, `{"id":"`...)
	b = append(b, p.id...)
	b = append(b, `","timestamp":`...)
	b = appendTS(b, g.clock)
	b = append(b, `,"cwd":`...)
	b = appendStr(b, p.cwd)
	o.put(append(b, `,"originator":"codex_cli_rs","cli_version":"`+codexVersion+`","source":"cli","model_provider":"openai","base_instructions":{"text":"`+
		`You are a coding agent running in the Codex CLI, a terminal-based coding assistant. You are expected to be precise, safe, and helpful.\n\n`...))
	o.blob(blob{seed: baseInstrSeed, n: 20_480})
	b = append(o.buf(), `"},"history_mode":"`...)
	if p.paginated {
		b = append(b, "paginated"...)
	} else {
		b = append(b, "legacy"...)
	}
	g.close(append(b, `"}`...), false)
}

func (g *codexGen) rateLimits(b []byte) []byte {
	r := g.r
	b = append(b, `{"limit_id":"codex","limit_name":null,"primary":{"used_percent":`...)
	b = strconv.AppendFloat(b, float64(r.IntN(1000))/10, 'f', 1, 64)
	b = append(b, `,"window_minutes":300,"resets_at":`...)
	b = appendInt(b, g.clock.Unix()+int64(r.IntN(18_000)))
	b = append(b, `},"secondary":{"used_percent":`...)
	b = strconv.AppendFloat(b, float64(r.IntN(1000))/10, 'f', 1, 64)
	b = append(b, `,"window_minutes":10080,"resets_at":`...)
	b = appendInt(b, g.clock.Unix()+int64(r.IntN(604_800)))
	return append(b, `},"credits":null,"plan_type":"plus"}`...)
}

// turn writes one task: prompt, tool rounds, answer, aiming at budget bytes.
func (g *codexGen) turn(budget int64) {
	r, o, p := g.r, g.o, g.p
	g.turnNo++
	if g.turnNo > 1 {
		g.tick(10*time.Second, 30*time.Minute)
	}
	g.turnID = uuid7(r, g.clock.UnixMilli())
	g.turnTotal = codexUsage{}

	b := g.open(o.buf(), "event_msg")
	b = append(b, `{"type":"task_started","turn_id":"`...)
	b = append(b, g.turnID...)
	b = append(b, `","started_at":`...)
	b = appendInt(b, g.clock.Unix())
	b = append(b, `,"model_context_window":`...)
	b = appendInt(b, codexContextWindow)
	g.closeEligible(append(b, `,"collaboration_mode_kind":"default"}`...))

	if chance(r, 0.1) {
		b = g.open(o.buf(), "event_msg")
		b = append(b, `{"type":"token_count","info":null,"rate_limits":`...)
		b = g.rateLimits(b)
		g.close(append(b, '}'), false)
	}

	g.tick(5*time.Millisecond, 50*time.Millisecond)
	b = g.open(o.buf(), "turn_context")
	b = append(b, `{"turn_id":"`...)
	b = append(b, g.turnID...)
	b = append(b, `","cwd":`...)
	b = appendStr(b, p.cwd)
	b = append(b, `,"approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":false},"model":"`...)
	b = append(b, p.model...)
	b = append(b, `","effort":"`...)
	b = append(b, pick(r, []string{"medium", "medium", "high", "low"})...)
	if g.closeEligible(append(b, `","summary":"auto"}`...)) {
		g.modelSeen = true
	}

	prompt := promptText(r, budget)
	b = g.open(o.buf(), "response_item")
	b = append(b, `{"type":"message","role":"user","content":[{"type":"input_text","text":"`...)
	b = append(b, prompt...)
	g.close(append(b, `"}]}`...), true)
	g.t.turns++
	g.t.messages++
	b = g.open(o.buf(), "event_msg")
	if p.paginated {
		b = append(b, `{"type":"item_completed","thread_id":"`...)
		b = append(b, p.id...)
		b = append(b, `","turn_id":"`...)
		b = append(b, g.turnID...)
		b = append(b, `","item":{"type":"UserMessage","id":"`...)
		b = append(b, uuid7(r, g.clock.UnixMilli())...)
		b = append(b, `","content":[{"type":"text","text":"`...)
		b = append(b, prompt...)
		b = append(b, `","text_elements":[]}]},"started_at_ms":`...)
		b = appendInt(b, g.clock.UnixMilli())
		b = append(b, `,"completed_at_ms":`...)
		b = appendInt(b, g.clock.UnixMilli())
		b = append(b, '}')
	} else {
		b = append(b, `{"type":"user_message","message":"`...)
		b = append(b, prompt...)
		b = append(b, `","images":[],"local_images":[],"text_elements":[]}`...)
	}
	g.close(b, false)

	rounds := drawRounds(r, budget, 3_000, 5_000, 30)
	if g.hugeDue() {
		rounds = max(rounds, 1)
	}
	per := max(300, (budget-4_000)/int64(max(rounds, 1))-1_800)
	for range rounds {
		g.toolRound(per)
	}
	answer := g.final()

	g.tick(10*time.Millisecond, 100*time.Millisecond)
	b = g.open(o.buf(), "event_msg")
	b = append(b, `{"type":"task_complete","turn_id":"`...)
	b = append(b, g.turnID...)
	o.put(append(b, `","last_agent_message":"`...))
	o.blob(answer)
	g.close(append(o.buf(), `"}`...), false)
}

func (g *codexGen) hugeDue() bool { return len(g.huge) > 0 && g.o.logical >= g.huge[0].at }

// reasoning writes a reasoning item.
func (g *codexGen) reasoning() {
	r, o := g.r, g.o
	g.tick(500*time.Millisecond, 20*time.Second)
	b := g.open(o.buf(), "response_item")
	b = append(b, `{"type":"reasoning","id":"rs_`...)
	for range 3 {
		b = strconv.AppendUint(b, r.Uint64()|1<<63, 16)
	}
	b = append(b, `","summary":[{"type":"summary_text","text":"**`...)
	b = appendEsc(b, title(sentence(r, 3+r.IntN(4))))
	b = append(b, `**\n\n`...)
	b = appendBlob(b, newBlob(r, sizeAround(r, 300, 0.7, 40, 2_000)))
	b = append(b, `"}],"content":null,"encrypted_content":"gAAAAA`...)
	b = appendB64(b, r, sizeAround(r, 3_000, 0.8, 1_000, 20_000))
	g.close(append(b, `"}`...), true)
}

// usage records one model response: a token_usage_record, then the
// token_count event (sometimes repeated, as Codex does), which is what the
// manifest counts.
func (g *codexGen) usage() {
	r, o := g.r, g.o
	g.ctx = min(250_000, g.ctx+int64(500+r.IntN(6_000)))
	last := codexUsage{input: g.ctx}
	if g.responses > 0 {
		last.cached = int64(float64(g.ctx) * uniform(r, 0.6, 0.98))
	}
	last.output = int64(20 + r.IntN(1_500))
	if chance(r, 0.15) {
		last.output = int64(20 + r.IntN(6_000))
	}
	last.reasoning = int64(float64(last.output) * uniform(r, 0, 0.7))
	g.responses++
	g.total = g.total.plus(last)
	g.turnTotal = g.turnTotal.plus(last)
	// Until a turn_context names the model (the first one may be the
	// malformed line), a reader knows none.
	model := ""
	if g.modelSeen {
		model = g.p.model
	}
	g.t.usage(model, Tokens{Input: last.input - last.cached, Output: last.output, CacheRead: last.cached, CacheWrite: last.cacheWrite, Reasoning: last.reasoning})

	b := g.open(o.buf(), "token_usage_record")
	b = append(b, `{"thread_id":"`...)
	b = append(b, g.p.id...)
	b = append(b, `","turn_id":"`...)
	b = append(b, g.turnID...)
	b = append(b, `","session_id":"`...)
	b = append(b, g.p.id...)
	b = append(b, `","root_turn_id":"`...)
	b = append(b, g.turnID...)
	b = append(b, `","response_id":"resp_`...)
	b = strconv.AppendUint(b, r.Uint64()|1<<63, 16)
	b = append(b, `","usage":`...)
	b = appendCodexUsage(b, last)
	b = append(b, `,"turn_token_usage":`...)
	b = appendCodexUsage(b, g.turnTotal)
	b = append(b, `,"thread_token_usage":`...)
	b = appendCodexUsage(b, g.total)
	g.close(append(b, '}'), false)

	repeat := chance(r, 0.1)
	for i := 0; i < 1 || i == 1 && repeat; i++ {
		b = g.open(o.buf(), "event_msg")
		b = append(b, `{"type":"token_count","info":{"total_token_usage":`...)
		b = appendCodexUsage(b, g.total)
		b = append(b, `,"last_token_usage":`...)
		b = appendCodexUsage(b, last)
		b = append(b, `,"last_usage_includes_reasoning":false,"model_context_window":`...)
		b = appendInt(b, codexContextWindow)
		b = append(b, `},"rate_limits":`...)
		b = g.rateLimits(b)
		g.close(append(b, '}'), false)
	}
}

// call is one planned function call.
type call struct {
	id, name string
	args     []byte // escaped JSON text of the arguments string
	output   blob
	exit     int
}

func (g *codexGen) planCall(per int64) *call {
	r, p := g.r, g.p
	c := &call{id: randID(r, "call_", 24, alnum)}
	if g.hugeDue() {
		h := g.huge[0]
		g.huge = g.huge[1:]
		c.name = "exec_command"
		c.args = g.execArgs(pick(r, []string{"cat data/fixtures/large.json", "go test -v ./... 2>&1", "git log -p", "find / -name '*.log'"}))
		c.output = newBlob(r, h.size)
		return c
	}
	if chance(r, 0.2) {
		c.name = "apply_patch"
		path := filePath(r, p.cwd)
		patch := "*** Begin Patch\n*** Update File: " + path + "\n@@\n"
		for range 1 + r.IntN(6) {
			patch += "-" + rawCodeLine(r) + "\n+" + rawCodeLine(r) + "\n"
		}
		for range r.IntN(12) {
			patch += "+" + rawCodeLine(r) + "\n"
		}
		patch += "*** End Patch\n"
		inner := appendStr([]byte(`{"input":`), patch)
		c.args = appendEsc(nil, string(append(inner, '}')))
		c.output = newBlob(r, sizeAround(r, 80, 0.5, 20, 400))
		return c
	}
	c.name = "exec_command"
	c.args = g.execArgs(pick(r, commands))
	c.output = newBlob(r, sizeAround(r, float64(per)*0.6, 1.0, 20, 256_000))
	if chance(r, 0.1) {
		c.exit = 1 + r.IntN(2)
	}
	return c
}

func (g *codexGen) execArgs(cmd string) []byte {
	inner := appendStr([]byte(`{"cmd":`), cmd)
	inner = append(inner, `,"workdir":`...)
	inner = appendStr(inner, g.p.cwd)
	inner = append(inner, `,"yield_time_ms":10000}`...)
	return appendEsc(nil, string(inner))
}

// toolRound writes a response that calls tools, and the tools' outputs.
func (g *codexGen) toolRound(per int64) {
	r, o := g.r, g.o
	if chance(r, 0.7) {
		g.reasoning()
	}
	n := 1
	if chance(r, 0.2) {
		n = 2
	}
	calls := make([]*call, n)
	for i := range calls {
		calls[i] = g.planCall(per / int64(n))
	}
	g.t.toolCalls += len(calls)
	for _, c := range calls {
		g.tick(100*time.Millisecond, 3*time.Second)
		b := g.open(o.buf(), "response_item")
		b = append(b, `{"type":"function_call","name":"`...)
		b = append(b, c.name...)
		b = append(b, `","arguments":"`...)
		b = append(b, c.args...)
		b = append(b, `","call_id":"`...)
		b = append(b, c.id...)
		g.close(append(b, `"}`...), true)
	}
	g.usage()
	for _, c := range calls {
		g.tick(50*time.Millisecond, 30*time.Second)
		b := g.open(o.buf(), "response_item")
		b = append(b, `{"type":"function_call_output","call_id":"`...)
		b = append(b, c.id...)
		b = append(b, `","output":"Chunk ID: `...)
		for range 6 {
			b = append(b, hexDigits[r.IntN(16)])
		}
		b = append(b, `\nWall time: `...)
		b = strconv.AppendFloat(b, float64(r.IntN(30_000))/1_000, 'f', 4, 64)
		b = append(b, ` seconds\nProcess exited with code `...)
		b = appendInt(b, int64(c.exit))
		if c.exit != 0 {
			g.t.toolErrors++
		}
		b = append(b, `\nOriginal token count: `...)
		b = appendInt(b, int64(c.output.n/4+1))
		o.put(append(b, `\nOutput:\n`...))
		o.blob(c.output)
		g.close(append(o.buf(), `"}`...), true)
	}
}

// final writes the turn's answer and returns its text.
func (g *codexGen) final() blob {
	r, o, p := g.r, g.o, g.p
	if chance(r, 0.5) {
		g.reasoning()
	}
	answer := newBlob(r, sizeAround(r, 500, 0.9, 30, 6_000))
	g.tick(200*time.Millisecond, 10*time.Second)
	b := g.open(o.buf(), "response_item")
	o.put(append(b, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`...))
	o.blob(answer)
	g.t.messages++
	g.close(append(o.buf(), `"}]}`...), true)
	b = g.open(o.buf(), "event_msg")
	if p.paginated {
		b = append(b, `{"type":"item_completed","thread_id":"`...)
		b = append(b, p.id...)
		b = append(b, `","turn_id":"`...)
		b = append(b, g.turnID...)
		b = append(b, `","item":{"type":"AgentMessage","id":"msg_`...)
		b = strconv.AppendUint(b, r.Uint64()|1<<63, 16)
		o.put(append(b, `","content":[{"type":"Text","text":"`...))
		o.blob(answer)
		b = append(o.buf(), `"}]},"started_at_ms":`...)
		b = appendInt(b, g.clock.UnixMilli())
		b = append(b, `,"completed_at_ms":`...)
		b = appendInt(b, g.clock.UnixMilli())
		g.close(append(b, '}'), false)
	} else {
		o.put(append(b, `{"type":"agent_message","message":"`...))
		o.blob(answer)
		g.close(append(o.buf(), `"}`...), false)
	}
	g.usage()
	return answer
}

// writeCodexIndex writes session_index.jsonl, where the TUI keeps the title
// it generated for each thread ({"id","thread_name","updated_at"}, a line
// each, as they were named): three sessions in four get one, a title made
// from the session's id, so that it depends on nothing else.
func writeCodexIndex(dir string, plans []filePlan, results []fileResult) error {
	idx := byStart(plans, cliCodex)
	if len(idx) == 0 {
		return nil
	}
	var lines []byte
	for _, i := range idx {
		h := fnv.New64a()
		h.Write([]byte(plans[i].id))
		r := rand.New(rand.NewPCG(h.Sum64(), 0x7469746c65))
		if r.IntN(4) == 0 {
			continue
		}
		name := taskTitle(r)
		lines = append(lines, `{"id":"`...)
		lines = append(lines, plans[i].id...)
		lines = append(lines, `","thread_name":`...)
		lines = appendStr(lines, name)
		lines = append(lines, `,"updated_at":"`...)
		lines = append(lines, results[i].end.UTC().Format(time.RFC3339Nano)...)
		lines = append(lines, "\"}\n"...)
	}
	if err := os.WriteFile(filepath.Join(dir, "codex", "session_index.jsonl"), lines, 0o644); err != nil {
		return fmt.Errorf("write Codex's session index: %w", err)
	}
	return nil
}
