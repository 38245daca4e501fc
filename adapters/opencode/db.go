package opencode

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

// The queries. Each uses one of the indexes OpenCode keeps, so reading a
// session costs the same in a database of ten sessions or a million.
const (
	// qSession reads a session's row, every column, so that columns a
	// later OpenCode adds are kept in the record too.
	qSession = `SELECT * FROM session WHERE id = ?`
	// qRows reads a session's messages, each followed by its parts, in
	// OpenCode's order: messages by (time_created, id), parts by id
	// (message_session_time_created_id_idx, part_message_id_id_idx).
	qRows = `SELECT m.id, m.time_created, m.time_updated, m.data, p.id, p.session_id, p.time_created, p.time_updated, p.data
FROM message m LEFT JOIN part p ON p.message_id = m.id
WHERE m.session_id = ?1 ORDER BY m.time_created, m.id, p.id`
	// qOrphans reads parts of the session whose message is not in it.
	qOrphans = `SELECT id, message_id, time_created, time_updated, data FROM part
WHERE session_id = ?1 AND message_id NOT IN (SELECT id FROM message WHERE session_id = ?1) ORDER BY id`
	// qChildren lists a session's subagent sessions (session_parent_idx).
	qChildren = `SELECT id FROM session WHERE parent_id = ?1 ORDER BY time_created, id`
	// qCount counts the sessions of a database.
	qCount = `SELECT count(*), coalesce(min(id), '') FROM session`
)

// readDB decodes the session id of the database at path.
func readDB(path, id string) (*session.Session, error) { return readDBKeeping(path, id, true, nil) }

// readDBKeeping is readDB, keeping each row's native record only when
// records is set (the search index reads the conversation alone: a large
// session's records doubled what its read held). When z is not nil it
// hears the session's rows too, as summarizeDB feeds it them, each row
// parsed once for the two.
func readDBKeeping(path, id string, records bool, z *summarizer) (*session.Session, error) {
	st, err := openStore(path)
	if err != nil {
		return nil, err
	}
	info, rec, err := st.sessionRow(id)
	if err != nil {
		return nil, err
	}
	d := newDecoder(path, FormatDB)
	if st.warning != "" {
		d.warn(session.Warning{Path: path, Message: st.warning})
	}
	line := 1
	d.session(row{kind: rowSession, line: line, record: rec}, info, path)
	if z != nil {
		z.session(&info, path)
	}
	if err := st.eachRow(id, records, func(r row) {
		line++
		r.line = line
		switch {
		case z == nil && r.kind == rowMessage:
			d.message(r)
		case z == nil:
			d.part(r)
		case r.kind == rowMessage:
			// Parsed once for the two: the summarizer reads what the
			// decoder may change, so it comes first.
			var info messageInfo
			err := parseJSON(r.data, &info)
			z.parsedMessage(r, &info, err)
			d.parsedMessage(r, &info, err)
		default:
			var p part
			err := parseJSON(r.data, &p)
			z.parsedPart(r, &p, err)
			if d.partOfMessage(r) {
				d.parsedPart(r, &p, err)
			}
		}
	}); err != nil {
		return nil, err
	}
	d.endMessage()
	rows, err := st.query(qOrphans, id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var pid, mid string
		var data []byte
		var created, updated int64
		if err := rows.Scan(&pid, &mid, &created, &updated, &data); err != nil {
			rows.Close()
			return nil, st.wrap("read parts of", err)
		}
		line++
		r := row{kind: rowPart, line: line, id: pid, msgID: mid, created: created, data: data}
		if records {
			r.record = partRecord(pid, mid, id, created, updated, data)
		}
		d.part(r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, st.wrap("read parts of", err)
	}
	s := d.finish()
	children, err := st.children(id)
	if err != nil {
		return nil, err
	}
	for _, c := range children {
		if !hasLink(s.Subagents, c) {
			s.Subagents = append(s.Subagents, session.Link{Kind: session.LinkSubagent, CLI: session.OpenCode, ID: c, Path: path})
		}
	}
	for i := range s.Subagents {
		if s.Subagents[i].Path == "" {
			s.Subagents[i].Path = path
		}
	}
	return s, nil
}

func hasLink(links []session.Link, id string) bool {
	for _, l := range links {
		if l.ID == id {
			return true
		}
	}
	return false
}

// sessionRow reads a session's row: its info, and the row as a JSON object
// of its columns.
func (st *store) sessionRow(id string) (sessionInfo, json.RawMessage, error) {
	var info sessionInfo
	rows, err := st.query(qSession, id)
	if err != nil {
		return info, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return info, nil, st.wrap("read session from", err)
		}
		return info, nil, fmt.Errorf("opencode: session %s in %s: %w", id, st.path, session.ErrNotFound)
	}
	cols, err := rows.Columns()
	if err != nil {
		return info, nil, st.wrap("read session from", err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return info, nil, st.wrap("read session from", err)
	}
	var b jsonObject
	for i, c := range cols {
		v := vals[i]
		b.field(c, v)
		s, _ := v.(string)
		if bs, ok := v.([]byte); ok {
			s = string(bs)
		}
		n, _ := v.(int64)
		switch c {
		case "id":
			info.ID = s
		case "project_id":
			info.ProjectID = s
		case "parent_id":
			info.ParentID = s
		case "slug":
			info.Slug = s
		case "directory":
			info.Directory = s
		case "title":
			info.Title = s
		case "version":
			info.Version = s
		case "model":
			var m sessionModel
			if json.Unmarshal([]byte(s), &m) == nil && (m.ID != "" || m.ProviderID != "") {
				info.Model = &m
			}
		case "time_created":
			info.Time.Created = millis(n)
		case "time_updated":
			info.Time.Updated = millis(n)
		case "metadata":
			if s != "" {
				info.Metadata = json.RawMessage(s)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return info, nil, st.wrap("read session from", err)
	}
	return info, b.bytes(), nil
}

// eachRow streams a session's messages, each followed by its parts, with
// their records when records is set (a summary needs none).
func (st *store) eachRow(id string, records bool, fn func(row)) error {
	rows, err := st.query(qRows, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var last string
	for rows.Next() {
		// A message's columns come again with each of its parts: its
		// data is read as the driver holds it (RawBytes, not copied) and
		// copied once, on its first row; a part's once.
		var mid string
		var mdata, pdata sql.RawBytes
		var mcreated, mupdated int64
		var pid, psession sql.NullString
		var pcreated, pupdated sql.NullInt64
		if err := rows.Scan(&mid, &mcreated, &mupdated, &mdata, &pid, &psession, &pcreated, &pupdated, &pdata); err != nil {
			return st.wrap("read messages of", err)
		}
		if mid != last {
			last = mid
			r := row{kind: rowMessage, id: mid, created: mcreated, data: bytes.Clone(mdata)}
			if records {
				r.record = messageRecord(mid, id, mcreated, mupdated, r.data)
			}
			fn(r)
		}
		if pid.Valid {
			r := row{kind: rowPart, id: pid.String, msgID: mid, created: pcreated.Int64, data: bytes.Clone(pdata)}
			if records {
				r.record = partRecord(pid.String, mid, psession.String, pcreated.Int64, pupdated.Int64, r.data)
			}
			fn(r)
		}
	}
	if err := rows.Err(); err != nil {
		return st.wrap("read messages of", err)
	}
	return nil
}

func (st *store) children(id string) ([]string, error) {
	rows, err := st.query(qChildren, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, st.wrap("read sessions of", err)
		}
		ids = append(ids, c)
	}
	if err := rows.Err(); err != nil {
		return nil, st.wrap("read sessions of", err)
	}
	return ids, nil
}

// countSessions returns how many sessions a database holds, and the id of
// one of them.
func (st *store) countSessions() (int, string, error) {
	var n int
	var id string
	rows, err := st.query(qCount)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&n, &id); err != nil {
			return 0, "", st.wrap("count sessions of", err)
		}
	}
	return n, id, rows.Err()
}

// messageRecord and partRecord are a message's and a part's rows as JSON
// objects of their columns. The data column is kept as the JSON it holds,
// or as a string when it holds no valid JSON.
func messageRecord(id, sessionID string, created, updated int64, data []byte) json.RawMessage {
	var b jsonObject
	b.field("id", id)
	b.field("session_id", sessionID)
	b.field("time_created", created)
	b.field("time_updated", updated)
	b.data(data)
	return b.bytes()
}

func partRecord(id, messageID, sessionID string, created, updated int64, data []byte) json.RawMessage {
	var b jsonObject
	b.field("id", id)
	b.field("message_id", messageID)
	b.field("session_id", sessionID)
	b.field("time_created", created)
	b.field("time_updated", updated)
	b.data(data)
	return b.bytes()
}

// jsonObject writes a JSON object field by field, in order.
type jsonObject struct{ b []byte }

func (o *jsonObject) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.str(k)
	o.b = append(o.b, ':')
}

func (o *jsonObject) field(k string, v any) {
	o.key(k)
	switch v := v.(type) {
	case nil:
		o.b = append(o.b, "null"...)
	case int64:
		o.b = strconv.AppendInt(o.b, v, 10)
	case float64:
		j, err := json.Marshal(v)
		if err != nil {
			j = []byte("null")
		}
		o.b = append(o.b, j...)
	case bool:
		o.b = strconv.AppendBool(o.b, v)
	case []byte:
		o.str(string(v))
	case string:
		o.str(v)
	default:
		o.str(fmt.Sprint(v))
	}
}

func (o *jsonObject) str(s string) {
	o.b = session.AppendJSONString(o.b, s)
}

// data writes the data column.
func (o *jsonObject) data(s []byte) {
	o.key("data")
	if t := bytes.TrimSpace(s); len(t) > 0 && validJSON(t) {
		o.b = append(o.b, t...)
		return
	}
	o.str(string(s))
}

// validJSON is json.Valid, several times faster on the JSON OpenCode
// writes: jsonread checks it, and encoding/json what jsonread leaves (such
// as invalid UTF-8, which json.Valid accepts).
func validJSON(b []byte) bool {
	return jsonread.ParseValue(b, (*jsonread.Parser).Skip) || json.Valid(b)
}

func (o *jsonObject) bytes() json.RawMessage {
	if len(o.b) == 0 {
		return json.RawMessage(`{}`)
	}
	return append(o.b, '}')
}
