package opencode

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/stead-dev/stead/adapters/internal/history"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// TitleMax is the most bytes of a first prompt a summary keeps as title.
const TitleMax = 200

// summarizer computes a Summary from a session's rows by the decoder's
// rules (isPrompt, isReply, toolStatus, the usage of steps), without
// building entries.
type summarizer struct {
	sum  session.Summary
	list bool
	// title is the session's own title; prompt the start of its first
	// prompt, the title when the session has none.
	title, prompt string

	role, model string
	created     time.Time // when the message was created: when its usage counts
	msgTokens   *tokens
	stepUsage   bool
	steps       session.Usage
	history     history.Split // of a session stead wrote
}

func newSummarizer(detail session.Detail) *summarizer {
	z := &summarizer{list: detail == session.DetailList}
	z.sum.CLI = session.OpenCode
	return z
}

func (z *summarizer) session(info *sessionInfo, linkPath string) {
	z.sum.ID = info.ID
	z.sum.Project = info.Directory
	z.title = realTitle(info.Title)
	z.sum.See(msTime(int64(info.Time.Created)))
	z.sum.See(msTime(int64(info.Time.Updated)))
	if info.ParentID != "" {
		z.sum.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.OpenCode, ID: info.ParentID, Path: linkPath}
	}
	if o := info.steadOrigin(); o != nil {
		z.history.From(o.CLI, o.ID, o.Written)
	}
}

func (z *summarizer) message(r row) {
	var m messageInfo
	z.parsedMessage(r, &m, parseJSON(r.data, &m))
}

// parsedMessage is message of a row parsed into m, err what parsing it
// said. It reads m, never changes it.
func (z *summarizer) parsedMessage(r row, m *messageInfo, err error) {
	z.endMessage()
	if err != nil {
		z.sum.Skip(r.line, fmt.Sprintf("message %s: %s", r.id, errText(err)))
	}
	created := msTime(int64(m.Time.Created))
	if r.created > 0 {
		created = msTime(r.created)
	}
	z.history.Record(&z.sum, created)
	z.created = created
	z.role = m.Role
	z.model, _ = m.model()
	if m.Role == "assistant" {
		z.msgTokens = m.Tokens
	}
}

func (z *summarizer) part(r row) {
	if z.list && !bytes.Contains(r.data, []byte(`"text"`)) {
		return // not a text part: nothing a listing counts
	}
	var p part
	z.parsedPart(r, &p, parseJSON(r.data, &p))
}

// parsedPart is part of a row parsed into p, err what parsing it said.
// It reads p, never changes it.
func (z *summarizer) parsedPart(r row, p *part, err error) {
	if err != nil {
		z.sum.Skip(r.line, fmt.Sprintf("part %s: %s", r.id, errText(err)))
		return
	}
	switch {
	case isPrompt(z.role, p):
		z.sum.Turns++
		z.sum.Messages++
		if z.prompt == "" {
			z.prompt = jsonl.Title([]byte(clipText(p.Text, TitleMax)))
		}
	case isReply(z.role, p):
		z.sum.Messages++
	}
	if z.list {
		return
	}
	switch p.Type {
	case "tool":
		z.sum.AddTool(UniversalTool(p.Tool))
		if status, done := partStatus(p.State); done && status != session.StatusOK {
			z.sum.ToolErrors++
		}
		if p.State != nil {
			for _, f := range toolFiles(p.Tool, p.State.Input) {
				z.sum.AddFile(f)
			}
		}
	case "step-finish":
		if u := p.Tokens.usage(); !u.IsZero() {
			z.stepUsage = true
			z.steps.Add(u)
		}
	}
}

func (z *summarizer) endMessage() {
	if !z.list {
		var u session.Usage
		if z.stepUsage {
			u = z.steps
		} else {
			u = z.msgTokens.usage()
		}
		if !u.IsZero() {
			z.sum.AddUsage(z.created, z.model, u)
		}
	}
	z.role, z.model, z.created, z.msgTokens, z.stepUsage, z.steps = "", "", time.Time{}, nil, false, session.Usage{}
}

func (z *summarizer) finish() session.Summary {
	z.endMessage()
	z.history.Finish(&z.sum)
	z.sum.Title = z.title
	if z.sum.Title == "" {
		z.sum.Title = z.prompt
	}
	return z.sum
}

// clipText cuts s to at most n bytes.
func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Summarize scans an OpenCode export for listing and statistics, one
// message at a time. With session.DetailList it skips usage, tools and
// files.
func Summarize(r io.Reader, detail session.Detail) (session.Summary, error) {
	z := newSummarizer(detail)
	w := &exportWalker{in: &errReader{r: r}}
	w.warn = func(line int, msg string) { z.sum.Skip(line, msg) }
	err := w.walk(func(r row, info *sessionInfo) {
		switch {
		case r.kind == rowSession && info != nil:
			z.session(info, "")
		case r.kind == rowMessage:
			z.message(r)
		case r.kind == rowPart:
			z.part(r)
		}
	})
	if err != nil {
		return session.Summary{}, fmt.Errorf("opencode: read export: %w", err)
	}
	return z.finish(), nil
}

// SummarizeFile summarises the session ref names: a session of a database
// (ref.Path the database, ref.ID the session), an export file, or a
// storage/ session file.
//
// For a database it runs two indexed queries. With session.DetailList it
// reads the session's row and the rows of its text parts only (a
// substring test in SQLite passes over the others without handing them
// to Go, and SQLite's JSON functions give each message's role), which is
// all a listing needs: id, project, title, times, turns and messages. Rows
// it does not read are not checked, so Skipped counts only malformed rows
// among those. With session.DetailFull it reads every message and part
// once, in order. Size is the total length of the
// session's rows' data (what an export of it would roughly weigh); Start
// and End are the session's creation and last update.
func SummarizeFile(ref session.Ref, detail session.Detail) (session.Summary, error) {
	kind, err := kindDB, error(nil)
	if ref.ID == "" || !isOpenStore(ref.Path) {
		// A database Discover listed needs no look at its header again.
		if kind, err = fileKind(ref.Path); err != nil {
			return session.Summary{}, err
		}
	}
	var sum session.Summary
	switch kind {
	case kindDB:
		var id string
		if id, err = sessionOf(ref); err != nil {
			return session.Summary{}, err
		}
		sum, err = summarizeDB(ref.Path, id, detail)
	case kindStorage:
		sum, err = summarizeStorage(ref.Path, detail)
	default:
		var f *os.File
		if f, err = storefile.Open(ref.Path); err != nil {
			return session.Summary{}, fmt.Errorf("opencode: %w", err)
		}
		sum, err = Summarize(f, detail)
		f.Close()
		if fi, serr := os.Stat(ref.Path); serr == nil {
			sum.Size = fi.Size()
		}
	}
	if err != nil {
		return sum, err
	}
	return named(sum, ref), nil
}

// named is a summary of the session ref names, as SummarizeFile gives it.
func named(sum session.Summary, ref session.Ref) session.Summary {
	sum.CLI, sum.Path = session.OpenCode, ref.Path
	if sum.ID == "" {
		sum.ID = ref.ID
	}
	return sum
}

// OpenSummarized is OpenConversation and SummarizeFile at
// session.DetailFull of one session: a session of a database is read
// once, each row handed to the decoder and the summarizer alike, where
// the two read every row of it each (the search index reads both of
// every session it indexes). An export or a storage/ file is read twice,
// as before. sized, when not nil, hears the session's size before its
// rows are read.
func OpenSummarized(env session.Env, ref session.Ref, sized func(size int64)) (*session.Session, session.Summary, error) {
	ref, kind, err := located(env, ref)
	if err != nil {
		return nil, session.Summary{}, err
	}
	if kind != kindDB {
		sum, err := SummarizeFile(ref, session.DetailFull)
		if err != nil {
			return nil, session.Summary{}, err
		}
		if sized != nil {
			sized(sum.Size)
		}
		s, err := openAs(ref, kind, false)
		if err != nil {
			return nil, session.Summary{}, err
		}
		return s, sum, nil
	}
	id, err := sessionOf(ref)
	if err != nil {
		return nil, session.Summary{}, err
	}
	st, err := openStore(ref.Path)
	if err != nil {
		return nil, session.Summary{}, err
	}
	// The size is asked before any row is read, so that a caller that
	// waits in sized does so holding none of the store's connections.
	size, err := st.sessionSize(id)
	if err != nil {
		return nil, session.Summary{}, err
	}
	if sized != nil {
		sized(size)
	}
	z := newSummarizer(session.DetailFull)
	s, err := readDBKeeping(ref.Path, id, false, z)
	if err != nil {
		return nil, session.Summary{}, err
	}
	sum := z.finish()
	sum.Size = size
	return s, named(sum, ref), nil
}

func summarizeStorage(path string, detail session.Detail) (session.Summary, error) {
	z := newSummarizer(detail)
	var size int64
	err := eachStorageRow(path, func(r row, info *sessionInfo) {
		size += int64(len(r.data))
		switch r.kind {
		case rowSession:
			z.session(info, "")
		case rowMessage:
			z.message(r)
		default:
			z.part(r)
		}
	}, func(line int, file, msg string) { z.sum.Skip(line, file+": "+msg) })
	if err != nil {
		return session.Summary{}, err
	}
	sum := z.finish()
	sum.Size = size
	return sum, nil
}

// qListRows reads what a listing needs of a session's parts: the text
// parts (a substring test passes over the others inside SQLite), each with
// its message's role, in order. The role is read by SQLite's JSON
// functions, "" when the message's data is not valid JSON.
const qListRows = `SELECT m.id, m.time_created,
	CASE WHEN NOT json_valid(m.data) THEN '' WHEN json_type(m.data, '$.role') = 'text' THEN json_extract(m.data, '$.role') ELSE '' END,
	p.id, p.data
FROM message m JOIN part p ON p.message_id = m.id
WHERE m.session_id = ?1 AND instr(p.data, '"text"') > 0
ORDER BY m.time_created, m.id, p.id`

// sizeOfRows is the total length of a session's rows' data, read from
// the record headers only (octet_length reads no overflow page).
const sizeOfRows = `(SELECT coalesce(sum(octet_length(data)), 0) FROM message WHERE session_id = ?1)
	+ (SELECT coalesce(sum(octet_length(data)), 0) FROM part WHERE session_id = ?1)`

// qSessionSize reads sizeOfRows alone.
const qSessionSize = `SELECT ` + sizeOfRows

// sessionSize is the total length of the session id's rows' data.
func (st *store) sessionSize(id string) (int64, error) {
	var size int64
	rows, err := st.query(qSessionSize, id)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if rows.Next() {
		err = rows.Scan(&size)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return 0, st.wrap("read session from", err)
	}
	return size, nil
}

// qSummarySession reads the columns of a session row a summary needs, and
// sizeOfRows; qSummarySessionMeta its metadata too, where the table has
// the column.
const (
	qSummarySession = `SELECT id, coalesce(parent_id, ''), directory, title, time_created, time_updated,
	` + sizeOfRows + `, NULL
FROM session WHERE id = ?1`
	qSummarySessionMeta = `SELECT id, coalesce(parent_id, ''), directory, title, time_created, time_updated,
	` + sizeOfRows + `, metadata
FROM session WHERE id = ?1`
)

func summarizeDB(path, id string, detail session.Detail) (session.Summary, error) {
	st, err := openStore(path)
	if err != nil {
		return session.Summary{}, err
	}
	var info sessionInfo
	q := qSummarySession
	if st.metadata {
		q = qSummarySessionMeta
	}
	rows, err := st.query(q, id)
	if err != nil {
		return session.Summary{}, err
	}
	found := rows.Next()
	var size int64
	if found {
		var created, updated int64
		var meta sql.NullString
		err = rows.Scan(&info.ID, &info.ParentID, &info.Directory, &info.Title, &created, &updated, &size, &meta)
		info.Time.Created, info.Time.Updated = millis(created), millis(updated)
		if meta.Valid {
			info.Metadata = json.RawMessage(meta.String)
		}
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return session.Summary{}, st.wrap("read session from", err)
	}
	if !found {
		return session.Summary{}, fmt.Errorf("opencode: session %s in %s: %w", id, path, session.ErrNotFound)
	}
	z := newSummarizer(detail)
	z.session(&info, path)
	line := 1
	if detail == session.DetailList {
		err = st.eachListRow(id, z)
	} else {
		err = st.eachRow(id, false, func(r row) {
			line++
			r.line = line
			if r.kind == rowMessage {
				z.message(r)
			} else {
				z.part(r)
			}
		})
	}
	if err != nil {
		return session.Summary{}, err
	}
	sum := z.finish()
	sum.Size = size
	return sum, nil
}

// eachListRow feeds the summarizer the text parts of a session.
func (st *store) eachListRow(id string, z *summarizer) error {
	rows, err := st.query(qListRows, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var last string
	var mid, role, pid, pdata sql.RawBytes
	var created int64
	for rows.Next() {
		if err := rows.Scan(&mid, &created, &role, &pid, &pdata); err != nil {
			return st.wrap("read parts of", err)
		}
		if string(mid) != last {
			last = string(mid)
			z.endMessage()
			z.history.Record(&z.sum, msTime(created))
			z.role = string(role)
		}
		z.part(row{kind: rowPart, id: string(pid), msgID: last, data: pdata})
	}
	if err := rows.Err(); err != nil {
		return st.wrap("read parts of", err)
	}
	return nil
}

// onlySession returns the id of the one session a database holds, or an
// error saying how to name one.
func onlySession(path string) (string, error) {
	st, err := openStore(path)
	if err != nil {
		return "", err
	}
	n, id, err := st.countSessions()
	switch {
	case err != nil:
		return "", err
	case n == 1:
		return id, nil
	case n == 0:
		return "", fmt.Errorf("opencode: %s holds no session: %w", path, session.ErrNotFound)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	q := safetext.Quote(abs)
	return "", fmt.Errorf("opencode: %s holds %d sessions; name one as opencode:<id>: OPENCODE_DB=%s stead session show opencode:<id> (OPENCODE_DB=%s stead session list --cli opencode lists them): %w",
		path, n, q, q, session.ErrAmbiguous)
}
