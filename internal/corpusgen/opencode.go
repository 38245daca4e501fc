package corpusgen

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stead-dev/stead/adapters/opencode"
	_ "modernc.org/sqlite" // the database/sql driver OpenCode's store is written with
)

// OpenCode 1.18.33 (opencode.md §3): every session in one SQLite database,
// XDG_DATA_HOME/opencode/opencode.db, as rows of the session, message and
// part tables whose data column holds the message's or part's JSON.
const (
	openCodeDB      = "opencode/opencode.db"
	openCodeVersion = "1.18.33"
	// openCodeTurnCost is about what an OpenCode turn costs beyond its
	// budget.
	openCodeTurnCost = 4_000
	// openCodeOutputMax is the most of a tool's output a part keeps
	// (OpenCode keeps the tail and saves the rest under tool-output/).
	openCodeOutputMax = 51_200
	// openCodeSnapshot is the tree hash step parts name: git's empty tree.
	openCodeSnapshot = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
)

// openCodeModels are (provider, model) pairs.
var openCodeModels = [][2]string{
	{"anthropic", "claude-sonnet-4-5"}, {"anthropic", "claude-sonnet-4-5"}, {"anthropic", "claude-opus-4-5"},
	{"openai", "gpt-5.1-codex"}, {"opencode", "big-pickle"},
}

var slugWords = [2][]string{
	{"stellar", "quiet", "brave", "lucky", "misty", "swift", "gentle", "cosmic", "silver", "amber", "bold", "calm"},
	{"falcon", "river", "comet", "harbor", "meadow", "otter", "canyon", "lantern", "willow", "orbit", "badger", "summit"},
}

// openCodeID makes OpenCode's ids: prefix_ and the low 48 bits of
// ms·4096 plus a counter as 12 hex digits (inverted for a session, so that
// newer sessions sort first), then 14 random base62 characters.
type openCodeID struct {
	last uint64
}

const mask48 = 1<<48 - 1

func (g *openCodeID) next(r *rand.Rand, prefix string, ms int64) string {
	v := uint64(ms) * 4096
	if v <= g.last {
		v = g.last + 1
	}
	g.last = v
	return formatOpenCodeID(r, prefix, v&mask48)
}

func formatOpenCodeID(r *rand.Rand, prefix string, v uint64) string {
	b := make([]byte, 0, len(prefix)+1+26)
	b = append(b, prefix...)
	b = append(b, '_')
	for i := 11; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(4*uint(i)))&0xf])
	}
	for range 14 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(b)
}

// openCodeSessionID is a session's id for the time it was created.
func openCodeSessionID(r *rand.Rand, ms int64) string {
	return formatOpenCodeID(r, "ses", ^(uint64(ms)*4096)&mask48)
}

// openCodeProject is the project OpenCode resolves for a directory: most
// are git repositories with an origin remote, id
// sha1("git-remote:github.com/<owner>/<name>"); a fifth are not, and
// belong to the global project.
func openCodeProject(cwd string) (id, worktree string) {
	sum := sha1.Sum([]byte(cwd))
	if sum[0] < 0x33 {
		return "global", "/"
	}
	remote := sha1.Sum([]byte("git-remote:github.com/acme/" + path.Base(cwd)))
	return hex.EncodeToString(remote[:]), cwd
}

// ocRow is a message or part row.
type ocRow struct {
	id, msgID        string // msgID for a part
	created, updated int64
	data             []byte
}

// ocCall is a tool call and its result.
type ocCall struct {
	tool, callID string
	input        []byte // the input object
	out          blob
	hasOut       bool
	outText      string // escaped, when there is no blob
	title        string // escaped
	exit         int    // bash
	errText      string // escaped: a state of status "error"
	failed       bool
}

type openCodeGen struct {
	o       *out
	buf     *bytes.Buffer // what o wrote of the current row
	r       *rand.Rand
	p       *filePlan
	ids     openCodeID
	clock   time.Time
	t       tally
	ctx     int64
	turnNo  int
	root    string
	rows    []ocRow // rows waiting to be inserted
	emit    func([]ocRow) error
	err     error
	title   string
	session Tokens // the session row's totals, in OpenCode's terms
	reason  int64
	calls   int
}

// row ends the row o has been writing and returns its data.
func (g *openCodeGen) row() []byte {
	g.o.bw.Flush()
	data := bytes.Clone(g.buf.Bytes())
	g.buf.Reset()
	return data
}

func (g *openCodeGen) add(r ocRow) {
	g.rows = append(g.rows, r)
	if len(g.rows) >= 256 && g.err == nil {
		g.err = g.emit(g.rows)
		g.rows = g.rows[:0]
	}
}

func (g *openCodeGen) tick(lo, hi time.Duration) { tick(g.r, &g.clock, lo, hi) }

// writeOpenCodeSession writes a session's message and part rows through
// emit and returns what they hold, their data's length, the session's end
// and title, and its token totals as the session row keeps them.
func writeOpenCodeSession(r *rand.Rand, p *filePlan, emit func([]ocRow) error) (*openCodeGen, error) {
	buf := &bytes.Buffer{}
	g := &openCodeGen{
		o:   &out{bw: bufio.NewWriterSize(buf, 64<<10), scratch: make([]byte, 0, 16<<10)},
		buf: buf, r: r, p: p, clock: p.start, emit: emit,
	}
	_, g.root = openCodeProject(p.cwd)
	if g.root == "/" {
		g.root = p.cwd
	}
	g.ctx = int64(10_000 + r.IntN(8_000))
	g.title = taskTitle(r)
	runTurns(g.o, p.target, turnBudget(p.target, 1_000), openCodeTurnCost, 1, func() int64 { return 0 }, g.turn)
	if g.err == nil && len(g.rows) > 0 {
		g.err = g.emit(g.rows)
	}
	return g, g.err
}

// turn writes a user message and the assistant messages answering it,
// one per model response.
func (g *openCodeGen) turn(budget int64) {
	r, o, p := g.r, g.o, g.p
	g.turnNo++
	if g.turnNo > 1 {
		g.tick(10*time.Second, 30*time.Minute)
	}
	userID := g.ids.next(r, "msg", g.clock.UnixMilli())
	created := g.clock.UnixMilli()
	b := append(o.buf(), `{"role":"user","time":{"created":`...)
	b = appendInt(b, created)
	b = append(b, `},"agent":"build","model":{"providerID":"`...)
	b = append(b, p.provider...)
	b = append(b, `","modelID":"`...)
	b = append(b, p.model...)
	o.put(append(b, `"},"summary":{"diffs":[]}}`...))
	msg := ocRow{id: userID, created: created, data: g.row()}
	g.tick(5*time.Millisecond, 80*time.Millisecond)
	partCreated := g.clock.UnixMilli()
	b = append(o.buf(), `{"type":"text","text":"`...)
	b = append(b, promptText(r, budget)...)
	o.put(append(b, `"}`...))
	part := ocRow{id: g.ids.next(r, "prt", partCreated), msgID: userID, created: partCreated, updated: partCreated + 3, data: g.row()}
	msg.updated = g.clock.UnixMilli() + 2_000
	g.add(msg)
	g.add(part)
	g.t.turns++
	g.t.messages++

	rounds := drawRounds(r, budget, 3_000, 6_000, 25)
	per := max(300, (budget-3_000)/int64(max(rounds, 1))-2_000)
	for k := 0; k <= rounds; k++ {
		g.response(userID, per, k < rounds)
	}
}

// response writes one assistant message: step-start, reasoning, text, the
// tool parts with their results, step-finish with the usage.
func (g *openCodeGen) response(userID string, per int64, tools bool) {
	r, o, p := g.r, g.o, g.p
	g.tick(200*time.Millisecond, 3*time.Second)
	msgID := g.ids.next(r, "msg", g.clock.UnixMilli())
	created := g.clock.UnixMilli()

	// Usage: OpenCode's input excludes cache reads and writes; reasoning
	// is apart from output.
	g.ctx = min(190_000, g.ctx+int64(400+r.IntN(5_000)))
	var in, outTok, reasoning, cr, cw int64
	if p.provider == "anthropic" {
		cw = int64(r.IntN(3_000))
	}
	cr = int64(float64(g.ctx-cw) * uniform(r, 0.5, 0.97))
	if g.turnNo == 1 && !tools && chance(r, 0.5) {
		cr = 0
	}
	in = g.ctx - cr - cw
	outTok = int64(5 + r.IntN(900))
	if chance(r, 0.15) {
		outTok = int64(5 + r.IntN(5_000))
	}
	if p.provider == "openai" {
		reasoning = int64(r.IntN(1_500))
	}
	g.t.usage(p.model, Tokens{Input: in, Output: outTok + reasoning, CacheRead: cr, CacheWrite: cw, Reasoning: reasoning})
	g.session.Add(Tokens{Input: in, Output: outTok, CacheRead: cr, CacheWrite: cw})
	g.reason += reasoning
	tokens := appendOpenCodeTokens(nil, in, outTok, reasoning, cr, cw)

	var parts []ocRow
	newPart := func() ocRow {
		g.tick(2*time.Millisecond, 300*time.Millisecond)
		c := g.clock.UnixMilli()
		return ocRow{id: g.ids.next(r, "prt", c), msgID: msgID, created: c}
	}
	finish := func(pr ocRow, dur time.Duration) {
		pr.data = g.row()
		tick(r, &g.clock, dur/10, dur)
		pr.updated = g.clock.UnixMilli()
		parts = append(parts, pr)
	}

	pr := newPart()
	o.put(append(o.buf(), `{"snapshot":"`+openCodeSnapshot+`","type":"step-start"}`...))
	finish(pr, 10*time.Millisecond)

	if p.provider != "opencode" && chance(r, 0.6) {
		pr = newPart()
		start := g.clock.UnixMilli()
		o.put(append(o.buf(), `{"type":"reasoning","text":"`...))
		o.blob(newBlob(r, sizeAround(r, 600, 0.9, 60, 6_000)))
		b := append(o.buf(), `","metadata":{`...)
		if p.provider == "anthropic" {
			b = appendB64(append(b, `"anthropic":{"signature":"`...), r, 200+r.IntN(600))
			b = append(b, `"}`...)
		} else {
			b = append(b, `"openai":{"itemId":"rs_`...)
			b = append(b, randHex(r, 48)...)
			b = append(b, `"}`...)
		}
		o.put(append(b, `},"time":{"start":`...))
		tick(r, &g.clock, 100*time.Millisecond, 8*time.Second)
		b = appendInt(o.buf(), start)
		b = append(b, `,"end":`...)
		b = appendInt(b, g.clock.UnixMilli())
		o.put(append(b, `}}`...))
		finish(pr, 5*time.Millisecond)
	}
	if !tools || chance(r, 0.4) {
		n := 120.0
		if !tools {
			n = 450
		}
		pr = newPart()
		start := g.clock.UnixMilli()
		o.put(append(o.buf(), `{"type":"text","text":"`...))
		o.blob(newBlob(r, sizeAround(r, n, 0.9, 20, 5_000)))
		tick(r, &g.clock, 50*time.Millisecond, 5*time.Second)
		b := append(o.buf(), `","time":{"start":`...)
		b = appendInt(b, start)
		b = append(b, `,"end":`...)
		b = appendInt(b, g.clock.UnixMilli())
		o.put(append(b, `}}`...))
		finish(pr, 5*time.Millisecond)
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
			g.t.toolCalls++
			if c.failed {
				g.t.toolErrors++
			}
			pr = newPart()
			start := g.clock.UnixMilli()
			tick(r, &g.clock, 20*time.Millisecond, 20*time.Second)
			g.putTool(c, start, g.clock.UnixMilli())
			finish(pr, 5*time.Millisecond)
		}
	}

	reason := "stop"
	if tools {
		reason = "tool-calls"
	}
	pr = newPart()
	b := append(o.buf(), `{"reason":"`...)
	b = append(b, reason...)
	b = append(b, `","snapshot":"`+openCodeSnapshot+`","type":"step-finish","tokens":`...)
	b = append(b, tokens...)
	o.put(append(b, `,"cost":0}`...))
	finish(pr, 5*time.Millisecond)

	completed := g.clock.UnixMilli()
	b = append(o.buf(), `{"parentID":"`...)
	b = append(b, userID...)
	b = append(b, `","role":"assistant","mode":"build","agent":"build","path":{"cwd":`...)
	b = appendStr(b, p.cwd)
	b = append(b, `,"root":`...)
	b = appendStr(b, g.root)
	b = append(b, `},"cost":0,"tokens":`...)
	b = append(b, tokens...)
	b = append(b, `,"modelID":"`...)
	b = append(b, p.model...)
	b = append(b, `","providerID":"`...)
	b = append(b, p.provider...)
	b = append(b, `","time":{"created":`...)
	b = appendInt(b, created)
	b = append(b, `,"completed":`...)
	b = appendInt(b, completed)
	b = append(b, `},"finish":"`...)
	b = append(b, reason...)
	o.put(append(b, `"}`...))
	g.add(ocRow{id: msgID, created: created, updated: completed + 1, data: g.row()})
	for _, pr := range parts {
		g.add(pr)
	}
}

func appendOpenCodeTokens(b []byte, in, out, reasoning, cr, cw int64) []byte {
	b = append(b, `{"total":`...)
	b = appendInt(b, in+out+reasoning+cr+cw)
	b = append(b, `,"input":`...)
	b = appendInt(b, in)
	b = append(b, `,"output":`...)
	b = appendInt(b, out)
	b = append(b, `,"reasoning":`...)
	b = appendInt(b, reasoning)
	b = append(b, `,"cache":{"write":`...)
	b = appendInt(b, cw)
	b = append(b, `,"read":`...)
	b = appendInt(b, cr)
	return append(b, `}}`...)
}

// planCall plans a tool call and its result.
func (g *openCodeGen) planCall(per int64) *ocCall {
	r, cwd := g.r, g.p.cwd
	c := &ocCall{callID: randID(r, "toolu_01", 22, alnum)}
	if g.p.provider == "openai" {
		c.callID = randID(r, "call_", 24, alnum)
	}
	rel := func(p string) string { return p[len(cwd)+1:] }
	outSize := func(f float64) int { return sizeAround(r, float64(per)*f, 1.0, 20, openCodeOutputMax) }
	switch k := r.IntN(100); {
	case k < 40:
		c.tool = "bash"
		cmd := pick(r, commands)
		b := appendStr(append([]byte(nil), `{"command":`...), cmd)
		b = append(b, `,"description":`...)
		c.input = append(appendStr(b, title(sentence(r, 3+r.IntN(5)))), '}')
		c.title = string(appendEsc(nil, cmd))
		c.out, c.hasOut = newBlob(r, outSize(0.3)), true
		if chance(r, 0.08) {
			c.exit, c.failed = 1+r.IntN(2), true
		}
	case k < 62:
		c.tool = "read"
		p := filePath(r, cwd)
		c.input = append(appendStr(append([]byte(nil), `{"filePath":`...), p), '}')
		c.title = string(appendEsc(nil, rel(p)))
		if chance(r, 0.04) {
			c.errText, c.failed = string(appendEsc(nil, "Error: File not found: "+p)), true
			break
		}
		c.out, c.hasOut = newBlob(r, outSize(0.3)), true
	case k < 75:
		c.tool = "edit"
		p := filePath(r, cwd)
		b := appendStr(append([]byte(nil), `{"filePath":`...), p)
		b = append(b, `,"oldString":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 300, 0.8, 20, 3_000)))
		b = append(b, `","newString":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, 350, 0.8, 20, 3_000)))
		c.input = append(b, `"}`...)
		c.title = string(appendEsc(nil, rel(p)))
		c.outText = "Edit applied successfully."
	case k < 81:
		c.tool = "write"
		p := filePath(r, cwd)
		b := appendStr(append([]byte(nil), `{"filePath":`...), p)
		b = append(b, `,"content":"`...)
		b = appendBlob(b, newBlob(r, sizeAround(r, float64(per)*0.3, 0.9, 50, 60_000)))
		c.input = append(b, `"}`...)
		c.title = string(appendEsc(nil, rel(p)))
		c.outText = "Wrote file successfully."
	case k < 89:
		c.tool = "grep"
		pat := "func " + title(pick(r, idents))
		b := appendStr(append([]byte(nil), `{"pattern":`...), pat)
		b = append(b, `,"path":`...)
		c.input = append(appendStr(b, cwd), '}')
		c.title = string(appendEsc(nil, pat))
		c.out, c.hasOut = newBlob(r, outSize(0.2)), true
	case k < 94:
		c.tool = "glob"
		pat := "**/*" + pick(r, fileExts)
		c.input = append(appendStr(append([]byte(nil), `{"pattern":`...), pat), '}')
		c.title = string(appendEsc(nil, pat))
		c.out, c.hasOut = newBlob(r, outSize(0.05)), true
	default:
		c.tool = "todowrite"
		b := append([]byte(nil), `{"todos":[`...)
		n := 2 + r.IntN(4)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"content":`...)
			b = appendStr(b, pick(r, verbs)+" "+pick(r, idents)+" in "+pick(r, pkgs))
			b = append(b, `,"status":"`...)
			b = append(b, pick(r, []string{"pending", "in_progress", "completed"})...)
			b = append(b, `","priority":"medium","id":"`...)
			b = appendInt(b, int64(i+1))
			b = append(b, `"}`...)
		}
		c.input = append(b, `]}`...)
		c.title = strconv.Itoa(n) + " todos"
		c.outText = "[]"
	}
	return c
}

// putTool writes a tool part: the call and its result in one state.
func (g *openCodeGen) putTool(c *ocCall, start, end int64) {
	o := g.o
	b := append(o.buf(), `{"type":"tool","tool":"`...)
	b = append(b, c.tool...)
	b = append(b, `","callID":"`...)
	b = append(b, c.callID...)
	b = append(b, `","state":{"status":"`...)
	if c.errText != "" {
		b = append(b, `error","input":`...)
		b = append(b, c.input...)
		b = append(b, `,"error":"`...)
		b = append(b, c.errText...)
	} else {
		b = append(b, `completed","input":`...)
		b = append(b, c.input...)
		b = append(b, `,"output":"`...)
		o.put(b)
		g.putOutput(c)
		b = append(o.buf(), `","metadata":{`...)
		if c.tool == "bash" {
			o.put(append(b, `"output":"`...))
			g.putOutput(c)
			b = append(o.buf(), `","exit":`...)
			b = appendInt(b, int64(c.exit))
			b = append(b, `,"description":"`...)
			b = append(b, c.title...)
			b = append(b, `","truncated":false`...)
		} else {
			b = append(b, `"truncated":false`...)
		}
		b = append(b, `},"title":"`...)
		b = append(b, c.title...)
	}
	b = append(b, `","time":{"start":`...)
	b = appendInt(b, start)
	b = append(b, `,"end":`...)
	b = appendInt(b, end)
	o.put(append(b, `}}}`...))
}

func (g *openCodeGen) putOutput(c *ocCall) {
	if c.hasOut {
		g.o.blob(c.out)
	} else {
		g.o.put(append(g.o.buf(), c.outText...))
	}
}

// writeOpenCode creates the database and writes the OpenCode sessions
// (plans[i] for i in idx, in that order, one after the other so that the
// database is the same bytes every time) into it.
func writeOpenCode(dir string, seed int64, plans []filePlan, idx []int, results []fileResult, failed func() bool) (err error) {
	path := filepath.Join(dir, filepath.FromSlash(openCodeDB))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	for _, s := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(path + s); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	// Built without a journal, as fast as SQLite goes; switched to WAL
	// (as OpenCode keeps it) at the end, which only marks the header.
	q := url.Values{}
	q.Set("mode", "rwc")
	q.Add("_pragma", "journal_mode(OFF)")
	q.Add("_pragma", "synchronous(OFF)")
	q.Add("_pragma", "foreign_keys(1)")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String())
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer conn.Close()

	// What OpenCode 1.18.33 creates: its schema, its migrations recorded,
	// the global project.
	base := time.Date(2026, 1, 4, 9, 0, 0, 0, time.UTC).UnixMilli()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if tx != nil {
			tx.Rollback()
		}
	}()
	ddl, migrationTable, migrationIDs := opencode.Schema()
	for _, stmt := range append(ddl[:len(ddl):len(ddl)], migrationTable) {
		if _, err := tx.Exec(stmt); err != nil {
			return fmt.Errorf("create OpenCode's schema: %w", err)
		}
	}
	for _, id := range migrationIDs {
		if _, err := tx.Exec(`INSERT INTO "migration" (id, time_completed) VALUES (?, ?)`, id, base); err != nil {
			return err
		}
	}
	projects := map[string]bool{"global": true}
	if _, err := tx.Exec(`INSERT INTO project VALUES ('global', '/', NULL, NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)`, base, base); err != nil {
		return err
	}
	insMsg, err := tx.Prepare(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	insPart, err := tx.Prepare(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	for _, i := range idx {
		if failed() {
			return nil
		}
		p := &plans[i]
		proj, worktree := openCodeProject(p.cwd)
		if !projects[proj] {
			projects[proj] = true
			t := p.start.UnixMilli()
			if _, err := tx.Exec(`INSERT INTO project VALUES (?, ?, 'git', NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)`, proj, worktree, t, t); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO project_directory VALUES (?, ?, NULL, NULL, ?)`, proj, worktree, t+5); err != nil {
				return err
			}
		}
		r := fileRand(seed, i)
		slug := pick(r, slugWords[0]) + "-" + pick(r, slugWords[1])
		// The session row first (the rows refer to it), its totals and
		// last update set once its rows are in.
		if _, err := tx.Exec(`INSERT INTO session (id, project_id, slug, directory, path, title, version, summary_additions, summary_deletions, summary_files,
			permission, agent, model, time_created, time_updated) VALUES (?, ?, ?, ?, '', '', ?, 0, 0, 0, ?, 'build', ?, ?, ?)`,
			p.id, proj, slug, p.cwd, openCodeVersion,
			`[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]`,
			`{"id":"`+p.model+`","providerID":"`+p.provider+`","variant":"default"}`,
			p.start.UnixMilli(), p.start.UnixMilli()); err != nil {
			return fmt.Errorf("insert session %s: %w", p.id, err)
		}
		var size int64
		var last int64
		g, err := writeOpenCodeSession(r, p, func(rows []ocRow) error {
			for _, row := range rows {
				size += int64(len(row.data))
				last = max(last, row.updated)
				var err error
				if row.msgID == "" {
					_, err = insMsg.Exec(row.id, p.id, row.created, row.updated, row.data)
				} else {
					_, err = insPart.Exec(row.id, row.msgID, p.id, row.created, row.updated, row.data)
				}
				if err != nil {
					return fmt.Errorf("insert into session %s: %w", p.id, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE session SET title = ?, tokens_input = ?, tokens_output = ?, tokens_reasoning = ?, tokens_cache_read = ?,
			tokens_cache_write = ?, time_updated = ? WHERE id = ?`,
			g.title, g.session.Input, g.session.Output, g.reason, g.session.CacheRead, g.session.CacheWrite, last, p.id); err != nil {
			return err
		}
		results[i] = fileResult{size: size, t: g.t, end: time.UnixMilli(last)}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tx = nil
	if _, err := conn.ExecContext(ctx, `PRAGMA journal_mode=WAL`); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
