package opencode

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// The storage/ tree is how OpenCode kept sessions before its database
// (0.x, the era of seed 001); 1.x still migrates it into opencode.db on
// start and leaves it in place. Under <data dir>/storage:
//
//	session/<projectID>/<sessionID>.json    the session's info
//	message/<sessionID>/<messageID>.json    a message's info
//	part/<messageID>/<partID>.json          a part
//
// Each file holds one JSON object with its ids. As OpenCode's migration
// does, ids are taken from the file names. The oldest versions kept
// session/info/<id>.json, session/message/<session>/<id>.json and
// session/part/<session>/<message>/<id>.json instead; they are read too.

// readStorageInfo reads a storage/ session file's info.
func readStorageInfo(path string) (sessionInfo, error) {
	var info sessionInfo
	data, err := storefile.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := parseJSON(data, &info); err != nil {
		return info, fmt.Errorf("%s: %s", path, errText(err))
	}
	return info, nil
}

// eachStorageRow calls fn for the rows of the storage/ session whose
// session file is at path: the session, then each message (by creation
// time and id) followed by its parts (by id). Unreadable files are passed
// to warn and skipped.
func eachStorageRow(path string, fn func(r row, info *sessionInfo), warn func(line int, file, msg string)) error {
	data, err := storefile.ReadFile(path)
	if err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	id := strings.TrimSuffix(filepath.Base(path), ".json")
	line := 1
	var info sessionInfo
	if err := parseJSON(data, &info); err != nil {
		warn(line, path, "session info: "+errText(err))
	}
	if info.ID == "" {
		info.ID = id
	}
	fn(row{kind: rowSession, line: line, data: data, record: fileRecord(data)}, &info)

	type msgFile struct {
		id, path string
		created  int64
		data     []byte
	}
	var msgs []msgFile
	files, _ := filepath.Glob(filepath.Join(root, "message", id, "*.json"))
	oldest := false
	if len(files) == 0 {
		// The oldest layout kept a session's messages and parts under
		// storage/session/message/<session>/ and
		// storage/session/part/<session>/<message>/.
		files, _ = filepath.Glob(filepath.Join(root, "session", "message", id, "*.json"))
		oldest = len(files) > 0
	}
	for _, f := range files {
		b, err := storefile.ReadFile(f)
		if err != nil {
			warn(0, f, "cannot read: "+err.Error())
			continue
		}
		var m messageInfo
		parseJSON(b, &m)
		msgs = append(msgs, msgFile{id: strings.TrimSuffix(filepath.Base(f), ".json"), path: f, created: int64(m.Time.Created), data: b})
	}
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].created != msgs[j].created {
			return msgs[i].created < msgs[j].created
		}
		return msgs[i].id < msgs[j].id
	})
	for _, m := range msgs {
		line++
		fn(row{kind: rowMessage, line: line, id: m.id, created: m.created, data: m.data, record: fileRecord(m.data), path: m.path}, nil)
		parts, _ := filepath.Glob(filepath.Join(root, "part", m.id, "*.json"))
		if oldest {
			parts, _ = filepath.Glob(filepath.Join(root, "session", "part", id, m.id, "*.json"))
		}
		sort.Strings(parts)
		for _, pf := range parts {
			b, err := storefile.ReadFile(pf)
			if err != nil {
				warn(0, pf, "cannot read: "+err.Error())
				continue
			}
			line++
			fn(row{kind: rowPart, line: line, id: strings.TrimSuffix(filepath.Base(pf), ".json"), msgID: m.id, data: b, record: fileRecord(b), path: pf}, nil)
		}
	}
	return nil
}

// fileRecord keeps a file's JSON, or its text as a JSON string when it is
// not valid JSON.
func fileRecord(b []byte) json.RawMessage {
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	s, _ := session.MarshalCompact(string(b))
	return s
}

// readStorage decodes the storage/ session whose session file is at path.
// Native.Path names the file each entry's record is in.
func readStorage(path string) (*session.Session, error) {
	d := newDecoder(path, FormatStorage)
	err := eachStorageRow(path, func(r row, info *sessionInfo) {
		switch r.kind {
		case rowSession:
			d.session(r, *info, "")
		case rowMessage:
			d.message(r)
		default:
			d.part(r)
		}
	}, func(line int, file, msg string) {
		d.warn(session.Warning{Path: file, Line: line, Message: msg})
	})
	if err != nil {
		return nil, err
	}
	s := d.finish()
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return s, nil
}
