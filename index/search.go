package index

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Query is a search.
type Query struct {
	// Text is the query (see ParseQuery).
	Text string
	// CLIs, Roles: only entries of these CLIs, of these roles (user,
	// assistant, thinking, tool_call, tool_result, system); none is any.
	CLIs  []string
	Roles []string
	// Project: only sessions whose project directory contains it.
	Project string
	// Tool: only tool calls and results of this tool (its universal or
	// its CLI's name).
	Tool string
	// Session: only this session's entries (its CLI and id).
	SessionCLI, SessionID string
	// Since and Until bound the entries' times; zero is no bound.
	Since, Until time.Time
	// Limit is the most hits returned; 0 is 20.
	Limit int
}

// Mark and EndMark surround each match in a Hit's Snippet.
const (
	Mark    = "\x02"
	EndMark = "\x03"
)

// Hit is an entry a search found.
type Hit struct {
	CLI       string    `json:"cli"`
	SessionID string    `json:"session"`
	Path      string    `json:"path"`
	Project   string    `json:"project,omitempty"`
	Title     string    `json:"title,omitempty"`
	Host      string    `json:"host,omitempty"`
	Entry     string    `json:"entry"`
	Time      time.Time `json:"time,omitzero"`
	Role      string    `json:"role"`
	Tool      string    `json:"tool,omitempty"`
	Model     string    `json:"model,omitempty"`
	// Snippet is the text around the matches, each between Mark and
	// EndMark.
	Snippet string `json:"snippet"`
	// Score ranks the hit: lower is better (FTS5's BM25, weighed by the
	// entry's age).
	Score float64 `json:"score"`
}

// Ref is the hit's session as stead's commands take it: <cli>:<id>.
func (h Hit) Ref() string { return h.CLI + ":" + h.SessionID }

// Candidates is how many of a query's most recently indexed matches are
// ranked (see Search).
const Candidates = 2000

// recencyDays is the age at which an entry's relevance counts half: a
// match from last week outranks an equal one from last year.
const recencyDays = 60

// Search finds the entries that match q, best first.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	match, terms, err := parseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	where := []string{"entry_fts MATCH ?"}
	args := []any{match}
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("s.cli", q.CLIs)
	in("e.role", q.Roles)
	if q.Project != "" {
		where = append(where, "instr(s.project, ?) > 0")
		args = append(args, q.Project)
	}
	if q.Tool != "" {
		where = append(where, "lower(e.tool) = lower(?)")
		args = append(args, q.Tool)
	}
	if q.SessionID != "" {
		where = append(where, "s.cli = ? AND s.sid = ?")
		args = append(args, q.SessionCLI, q.SessionID)
	}
	if !q.Since.IsZero() {
		where = append(where, "e.time >= ?")
		args = append(args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		where = append(where, "e.time < ?")
		args = append(args, q.Until.UnixNano())
	}
	// The hits are ranked first, without their snippets (SQLite would
	// make one for every match before sorting); then the best are read
	// with theirs.
	//
	// A word found in more entries than Candidates is ranked among its
	// Candidates most recent matches (entries are numbered in the order
	// they were indexed, and a refresh indexes sessions oldest first), so
	// that a common word costs no more than a rare one: FTS5's BM25 of
	// every match of a word found in a million entries takes seconds.
	stmt := `SELECT id, b / (1.0 + max(0, ? - t) / 86400e9 / ` + fmt.Sprint(recencyDays) + `.0) AS score FROM (
		SELECT e.id AS id, bm25(entry_fts) AS b, e.time AS t
		FROM entry_fts JOIN entries e ON e.id = entry_fts.rowid JOIN sessions s ON s.id = e.session
		WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY entry_fts.rowid DESC LIMIT ?)
	ORDER BY score LIMIT ?`
	args = append([]any{time.Now().UnixNano()}, args...)
	args = append(args, Candidates, limit)
	rows, err := ix.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("index: search: %w", err)
	}
	type ranked struct {
		id    int64
		score float64
	}
	var best []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.id, &r.score); err != nil {
			rows.Close()
			return nil, fmt.Errorf("index: search: %w", err)
		}
		best = append(best, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: search: %w", err)
	}
	hits := make([]Hit, 0, len(best))
	for _, r := range best {
		h := Hit{Score: r.score}
		var t int64
		var packed []byte
		err := ix.db.QueryRowContext(ctx, `SELECT s.cli, s.sid, s.path, s.project, s.title, s.host, e.entry, e.time, e.role, e.tool, e.model, e.text
			FROM entries e JOIN sessions s ON s.id = e.session WHERE e.id = ?`, r.id).Scan(&h.CLI, &h.SessionID, &h.Path, &h.Project, &h.Title, &h.Host,
			&h.Entry, &t, &h.Role, &h.Tool, &h.Model, &packed)
		if err != nil {
			return nil, fmt.Errorf("index: search: %w", err)
		}
		text, err := unpackText(packed)
		if err != nil {
			return nil, err
		}
		h.Snippet = snippet(text, terms)
		if t != 0 {
			h.Time = time.Unix(0, t).UTC()
		}
		hits = append(hits, h)
	}
	return hits, nil
}
