package opencode

import (
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stead-dev/stead/session"
)

func TestDataDir(t *testing.T) {
	for _, tt := range []struct {
		env  session.Env
		want string
	}{
		{session.Env{Home: "/home/u"}, "/home/u/.local/share/opencode"},
		{session.Env{Home: "/home/u", Vars: map[string]string{"XDG_DATA_HOME": "/x"}}, "/x/opencode"},
		{session.Env{}, ""},
	} {
		if got := DataDir(tt.env); got != tt.want {
			t.Errorf("DataDir(%+v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestDiscoverAndLocate finds sessions through XDG_DATA_HOME, the home
// directory and OPENCODE_DB, and refuses ids that are not session ids.
func TestDiscoverAndLocate(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share")
	db := buildDB(t, filepath.Join(data, "opencode"), caseRows(t, "synthetic-db"), asLeft)
	beta := buildDB(t, filepath.Join(t.TempDir(), "beta"), caseRows(t, "conversation-db"), checkpointed)
	if err := os.Rename(beta, filepath.Join(data, "opencode", "opencode-beta.db")); err != nil {
		t.Fatal(err)
	}
	beta = filepath.Join(data, "opencode", "opencode-beta.db")
	other := buildDB(t, filepath.Join(home, "elsewhere"), caseRows(t, "fault-db"), asLeft)

	const parent, child = "ses_e0000000000aSynthParentAAA", "ses_e0000000000bSynthChildBBBB"
	const conv, fault = "ses_dfff632e1ffeNW6YJ7eJ603fa4", "ses_dfff60c1affelffPv5prn3SkcW"
	for _, tt := range []struct {
		name string
		env  session.Env
		want map[string]string // id -> database
	}{
		{"home", session.Env{Home: home}, map[string]string{parent: db, child: db, conv: beta}},
		{"xdg", session.Env{Home: t.TempDir(), Vars: map[string]string{"XDG_DATA_HOME": data}}, map[string]string{parent: db, child: db, conv: beta}},
		{"OPENCODE_DB absolute", session.Env{Home: home, Vars: map[string]string{"OPENCODE_DB": other}}, map[string]string{fault: other}},
		{"OPENCODE_DB relative", session.Env{Home: home, Vars: map[string]string{"OPENCODE_DB": "opencode-beta.db"}}, map[string]string{conv: beta}},
		{"OPENCODE_DB memory", session.Env{Home: home, Vars: map[string]string{"OPENCODE_DB": ":memory:"}}, map[string]string{}},
		{"no store", session.Env{Home: t.TempDir()}, map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refs, warns := Discover(tt.env)
			for _, w := range warns {
				t.Errorf("warning: %v", w)
			}
			got := map[string]string{}
			for _, r := range refs {
				got[r.ID] = r.Path
				if r.CLI != session.OpenCode || r.ModTime.IsZero() {
					t.Errorf("ref %+v", r)
				}
				if r.ID == child && r.Parent != parent {
					t.Errorf("child ref has parent %q", r.Parent)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("found %v, want %v", got, tt.want)
			}
			for id, path := range tt.want {
				if got[id] != path {
					t.Errorf("%s found in %q, want %q", id, got[id], path)
				}
				ref, err := Locate(tt.env, id)
				if err != nil || ref.Path != path || ref.ID != id {
					t.Errorf("Locate(%s) = %+v, %v", id, ref, err)
				}
			}
			if _, err := Locate(tt.env, "ses_doesnotexistXXXXXXXXXXXXX"); !errors.Is(err, session.ErrNotFound) {
				t.Errorf("unknown id: %v", err)
			}
		})
	}

	env := session.Env{Home: home}
	for _, id := range []string{"", "ses_", "ses", "msg_1ff8644360017u9mShxcvyikku", "prt_x", "../ses_x", "ses_../../etc/passwd",
		"ses_a/b", `ses_a\b`, "ses_*", "ses_?", "ses_a b", "ses_a%00", "ses_" + strings.Repeat("a", 200), "/tmp/ses_x", "SES_abc"} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
		if _, err := Locate(env, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Locate(%q): %v, want ErrNotFound", id, err)
		}
	}
	for _, id := range []string{"ses_e0079bc40ffeWGiAVrGg0Ba6kx", "ses_histc", parent} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
}

// TestStorageBesideDatabase lists a storage/ session once when the
// database holds it too (OpenCode migrated it), and reads one the database
// lacks from its files.
func TestStorageBesideDatabase(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".local", "share", "opencode")
	buildDB(t, dir, caseRows(t, "conversation-db"), asLeft)
	const conv = "ses_dfff632e1ffeNW6YJ7eJ603fa4"
	for _, f := range []struct{ path, data string }{
		{"storage/session/global/" + conv + ".json", `{"id":"` + conv + `","title":"migrated","time":{"created":1,"updated":2}}`},
		{"storage/session/global/ses_onlyInStorage.json", `{"id":"ses_onlyInStorage","directory":"/old","title":"old","time":{"created":1795000000000,"updated":1795000001000}}`},
		{"storage/message/ses_onlyInStorage/msg_a.json", `{"id":"msg_a","sessionID":"ses_onlyInStorage","role":"user","time":{"created":1795000000500}}`},
		{"storage/part/msg_a/prt_a.json", `{"id":"prt_a","sessionID":"ses_onlyInStorage","messageID":"msg_a","type":"text","text":"hello"}`},
		// The oldest layout: info, messages and parts under session/.
		{"storage/session/info/ses_oldestLayout.json", `{"id":"ses_oldestLayout","title":"oldest","time":{"created":1700000000000,"updated":1700000001000}}`},
		{"storage/session/message/ses_oldestLayout/msg_o.json", `{"id":"msg_o","sessionID":"ses_oldestLayout","role":"user","time":{"created":1700000000500}}`},
		{"storage/session/part/ses_oldestLayout/msg_o/prt_o.json", `{"id":"prt_o","sessionID":"ses_oldestLayout","messageID":"msg_o","type":"text","text":"very old"}`},
	} {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(f.path)), []byte(f.data))
	}
	env := session.Env{Home: home}
	refs, warns := Discover(env)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(refs) != 3 || refs[0].ID != conv || refs[1].ID != "ses_onlyInStorage" || refs[2].ID != "ses_oldestLayout" {
		t.Fatalf("refs %+v", refs)
	}
	old, err := Open(env, refs[2])
	if err != nil || len(old.Timeline) != 1 || old.Timeline[0].Content != "very old" {
		t.Errorf("oldest layout: %+v %v", old, err)
	}
	ref, err := Locate(env, "ses_onlyInStorage")
	if err != nil || !strings.HasSuffix(ref.Path, "ses_onlyInStorage.json") {
		t.Fatalf("locate: %+v %v", ref, err)
	}
	s, err := Open(env, session.Ref{ID: "ses_onlyInStorage"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Timeline) != 1 || s.Timeline[0].Content != "hello" || s.Project.Path != "/old" {
		t.Errorf("session %+v", s)
	}
}

func TestSniff(t *testing.T) {
	yes := []string{
		"SQLite format 3\x00\x10\x00\x02\x02",
		`{"info":{"id":"ses_e0079bc40ffeWGiAVrGg0Ba6kx","slug":"x"},"messages":[]}`,
		`    "id": "ses_e0079bc40ffeWGiAVrGg0Ba6kx",`,
		`        "sessionID": "ses_e0079bc40ffeWGiAVrGg0Ba6kx"`,
		`    "projectID": "f05139b88d91f0eca28b2be18205050d2853eea4",`,
	}
	no := []string{
		"{",
		`{"type":"user","sessionId":"742233ee","message":{"role":"user","content":"hi"}}`,
		`{"timestamp":"2026-11-21T10:00:00.000Z","type":"session_meta","payload":{"id":"x"}}`,
		`  "sessionId": "0193d000-0000-7000-8000-000000000abc",`,
		`    "id": "1f0c0c7e-aaaa-bbbb-cccc-000000000000",`,
		"",
	}
	for _, l := range yes {
		if !Sniff([]byte(l)) {
			t.Errorf("Sniff(%q) = false", l)
		}
	}
	for _, l := range no {
		if Sniff([]byte(l)) {
			t.Errorf("Sniff(%q) = true", l)
		}
	}
}

// TestReadBadExports checks that what is wrong with an export is a warning
// and that only a failing reader is an error.
func TestReadBadExports(t *testing.T) {
	for _, tt := range []struct{ name, data, warning string }{
		{"empty", "", "empty input"},
		{"not an object", `[1,2]`, "not a JSON object"},
		{"cut short", `{"info":{"id":"ses_abc","title":"t"},"messages":[{"info":{"id":"msg_a","role":"user"},"parts":[{"id":"prt_a","type":"text","text":"hi"}]},{"info":`, "ends early"},
		{"garbage", "\x00\x01not json", "malformed export JSON"},
		{"sqlite", "SQLite format 3\x00rest", "SQLite database"},
		{"messages not an array", `{"info":{"id":"ses_abc"},"messages":{"a":[1,{"b":2}]}}`, "messages is not an array"},
		{"message not an object", `{"info":{"id":"ses_abc"},"messages":[7]}`, "message: not an object"},
		{"part of wrong shape", `{"info":{"id":"ses_abc"},"messages":[{"info":{"id":"msg_a","role":"assistant"},"parts":[{"id":"prt_a","type":"text","text":5}]}]}`, "part prt_a: not understood"},
		{"info of wrong shape", `{"info":{"id":"ses_abc"},"messages":[{"info":{"id":"msg_a","role":7},"parts":[{"id":"prt_a","type":"text","text":"x"}]}]}`, "message msg_a: not understood"},
		{"unknown part type", `{"info":{"id":"ses_abc"},"messages":[{"info":{"id":"msg_a","role":"assistant"},"parts":[{"id":"prt_a","type":"laser"}]}]}`, `unknown type "laser"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, w := range s.Warnings {
				found = found || strings.Contains(w.Message, tt.warning)
			}
			if !found {
				t.Errorf("warnings %v lack %q", s.Warnings, tt.warning)
			}
			for _, d := range []session.Detail{session.DetailFull, session.DetailList} {
				if _, err := Summarize(strings.NewReader(tt.data), d); err != nil {
					t.Errorf("summarize: %v", err)
				}
			}
		})
	}
	// The session read before the damage is kept.
	s, _ := Read(strings.NewReader(`{"info":{"id":"ses_abc","title":"t"},"messages":[{"info":{"id":"msg_a","role":"user"},"parts":[{"id":"prt_a","type":"text","text":"hi"}]},{"info":`))
	if s.ID != "ses_abc" || len(s.Timeline) != 1 {
		t.Errorf("cut-short export: %+v", s)
	}
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(`{"info":{"id":"ses_abc"},"messages":[{"info":`), iotest.ErrReader(boom))
	if _, err := Read(r); !errors.Is(err, boom) {
		t.Errorf("failing reader: %v", err)
	}
}

// TestDiscoverAsksUnchanged: Discover asks env.Unchanged of each database
// with a stamp of its files that changes when a session is written, and
// takes its answer instead of querying the database.
func TestDiscoverAsksUnchanged(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".local", "share", "opencode")
	db := buildDB(t, dir, caseRows(t, "synthetic-db"), checkpointed)
	var stamps []session.Stamp
	var answer []session.Ref
	env := session.Env{Home: home, Unchanged: func(path string, st session.Stamp) ([]session.Ref, bool) {
		if path != db {
			t.Errorf("Unchanged asked of %s; want %s", path, db)
		}
		stamps = append(stamps, st)
		return answer, answer != nil
	}}
	queried, warns := Discover(env)
	if len(queried) != 2 || len(warns) != 0 {
		t.Fatalf("Discover: %d sessions, warnings %v; want the database's 2", len(queried), warns)
	}
	answer = []session.Ref{{CLI: session.OpenCode, ID: "ses_0000000000001zzzzzzzzzzzzz", Path: db}}
	if refs, _ := Discover(env); len(refs) != 1 || refs[0] != answer[0] {
		t.Errorf("Discover with the database unchanged: %+v; want Unchanged's answer", refs)
	}
	if len(stamps) != 2 || stamps[0] != stamps[1] || stamps[0].Key == "" {
		t.Fatalf("stamps %+v; want two, the same", stamps)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	if stamps[0].Newest.Before(fi.ModTime()) {
		t.Errorf("stamp's newest time %s, before the database's %s", stamps[0].Newest, fi.ModTime())
	}

	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(`UPDATE session SET title = 'renamed'`); err != nil {
		t.Fatal(err)
	}
	answer = nil
	Discover(env)
	if stamps[2] == stamps[1] {
		t.Errorf("the stamp after a session was written is the one before: %+v", stamps[2])
	}
}
