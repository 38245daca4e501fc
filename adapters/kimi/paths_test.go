package kimi

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestWorkDirKey checks the bucket names against kimi.md §3.2's vectors
// (the first two produced by the real Kimi Code 2.1.0) and the buckets the
// real CLI made in this repository's e2e runs.
func TestWorkDirKey(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/dev/demo-project":        "wd_demo-project_a451240a36c0",
		"/opt/kcwork/demo-project":      "wd_demo-project_582e2dcdf5f8",
		"/Users/Alice/My Project (v2)/": "wd_my-project-v2_5032b1f57ab8",
		`C:\Work\Repo`:                  "wd_repo_68df598fe77f",
		"/x/Ünïcödé-Dir":                "wd_n-c-d--dir_5561227b97c1",
		"/x/.hidden":                    "wd_.hidden_ec1df0d6968d",
		"/":                             "wd_workspace_e3b0c44298fc",
		"/tmp/kimiwork/sub/project":     "wd_project_c21a106b834b",
	} {
		if got := WorkDirKey(dir); got != want {
			t.Errorf("WorkDirKey(%q) = %q, want %q", dir, got, want)
		}
	}
	long := "/p/" + "abcdefghij" + "abcdefghij" + "abcdefghij" + "abcdefghi-" + "tail"
	if got := WorkDirKey(long); got[:len("wd_")+39+1] != "wd_abcdefghijabcdefghijabcdefghijabcdefghi_" {
		t.Errorf("a long name is cut to 40 characters and trimmed of '-': %q", got)
	}
}

func TestLegacyBucket(t *testing.T) {
	if got := LegacyBucket("/home/dev/demo-project", "local"); got != "05489f3258091050cc7f8d3f25ada307" {
		t.Errorf("LegacyBucket = %q", got)
	}
	if got := LegacyBucket("/home/dev/demo-project", "ssh"); got != "ssh_05489f3258091050cc7f8d3f25ada307" {
		t.Errorf("LegacyBucket with a remote KAOS = %q", got)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	codeSID   = "session_11111111-2222-4333-8444-555555555555"
	legacySID = "3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f"
	wireHead  = `{"type": "metadata", "protocol_version": "1.10"}` + "\n"
	turnBegin = `{"timestamp": 1784542500.0, "message": {"type": "TurnBegin", "payload": {"user_input": "hi"}}}` + "\n"
	ctxRow    = `{"role":"user","content":"hi"}` + "\n"
)

// store lays out both stores under a home: a Kimi Code session with a
// subagent, and legacy sessions read from wire.jsonl, from context.jsonl
// (no wire, or a wire with only its metadata line), a flat file and a
// subagent.
func store(t *testing.T) (home string) {
	home = t.TempDir()
	code := filepath.Join(home, ".kimi-code")
	cs := filepath.Join(code, "sessions", WorkDirKey("/p"), codeSID)
	write(t, filepath.Join(cs, "agents", "main", "wire.jsonl"), `{"type":"metadata","protocol_version":"1.5","created_at":1795290344152}`+"\n")
	write(t, filepath.Join(cs, "agents", "agent-0", "wire.jsonl"), `{"type":"metadata","protocol_version":"1.5","created_at":1795290344152}`+"\n")
	write(t, filepath.Join(cs, "state.json"), `{"id":"`+codeSID+`","cwd":"/p","title":"T","agents":{"main":{"type":"main"},"agent-0":{"type":"sub","parentAgentId":"main"}}}`)
	write(t, filepath.Join(code, "sessions", ".index-dirty", codeSID+".1795290344105"), "")
	write(t, filepath.Join(code, "sessions", ".index-cache", "scan.json"), "{}")
	write(t, filepath.Join(code, "sessions", WorkDirKey("/p"), "not a session!", "agents", "main", "wire.jsonl"), "{}\n")
	write(t, filepath.Join(code, "session_index.jsonl"), `{"sessionId":"`+codeSID+`","sessionDir":"x","workDir":"/p"}`+"\n")

	legacy := filepath.Join(home, ".kimi")
	b := filepath.Join(legacy, "sessions", LegacyBucket("/w", "local"))
	write(t, filepath.Join(legacy, "kimi.json"), `{"work_dirs":[{"path":"/w","kaos":"local"}]}`)
	write(t, filepath.Join(b, legacySID, "wire.jsonl"), wireHead+turnBegin)
	write(t, filepath.Join(b, legacySID, "context.jsonl"), ctxRow)
	write(t, filepath.Join(b, legacySID, "subagents", "a1", "wire.jsonl"), wireHead+turnBegin)
	write(t, filepath.Join(b, "00000000-0000-4000-8000-00000000000c", "context.jsonl"), ctxRow)
	write(t, filepath.Join(b, "00000000-0000-4000-8000-00000000000d", "wire.jsonl"), wireHead)
	write(t, filepath.Join(b, "00000000-0000-4000-8000-00000000000d", "context.jsonl"), ctxRow)
	write(t, filepath.Join(b, "00000000-0000-4000-8000-00000000000f.jsonl"), ctxRow)
	if err := os.MkdirAll(filepath.Join(b, "00000000-0000-4000-8000-0000000000ee"), 0o755); err != nil {
		t.Fatal(err) // an empty session folder is not listed
	}
	return home
}

func TestDiscover(t *testing.T) {
	home := store(t)
	refs, warns := Discover(session.Env{Home: home})
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	b := filepath.Join(home, ".kimi", "sessions", LegacyBucket("/w", "local"))
	cs := filepath.Join(home, ".kimi-code", "sessions", WorkDirKey("/p"), codeSID)
	want := map[string][2]string{ // id -> path, parent
		codeSID:                                {filepath.Join(cs, "agents", "main", "wire.jsonl")},
		codeSID + "/agent-0":                   {filepath.Join(cs, "agents", "agent-0", "wire.jsonl"), codeSID},
		legacySID:                              {filepath.Join(b, legacySID, "wire.jsonl")},
		legacySID + "/a1":                      {filepath.Join(b, legacySID, "subagents", "a1", "wire.jsonl"), legacySID},
		"00000000-0000-4000-8000-00000000000c": {filepath.Join(b, "00000000-0000-4000-8000-00000000000c", "context.jsonl")},
		"00000000-0000-4000-8000-00000000000d": {filepath.Join(b, "00000000-0000-4000-8000-00000000000d", "context.jsonl")},
		"00000000-0000-4000-8000-00000000000f": {filepath.Join(b, "00000000-0000-4000-8000-00000000000f.jsonl")},
	}
	got := map[string][2]string{}
	for _, r := range refs {
		if r.CLI != session.Kimi || r.Size == 0 || r.ModTime.IsZero() {
			t.Errorf("ref %+v lacks its CLI, size or time", r)
		}
		got[r.ID] = [2]string{r.Path, r.Parent}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Discover:\n got %v\nwant %v", got, want)
	}
	for _, r := range refs {
		sum, err := SummarizeFile(r, session.DetailList)
		if err != nil {
			t.Fatal(err)
		}
		if sum.ID != r.ID {
			t.Errorf("summary of %s has id %q", r.ID, sum.ID)
		}
	}
}

func TestDiscoverEnvAndMissing(t *testing.T) {
	home := store(t)
	other := t.TempDir()
	if err := os.Rename(filepath.Join(home, ".kimi-code"), filepath.Join(other, "code")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(home, ".kimi"), filepath.Join(other, "share")); err != nil {
		t.Fatal(err)
	}
	if refs, warns := Discover(session.Env{Home: home}); len(refs) != 0 || len(warns) != 0 {
		t.Errorf("an empty home lists %v, %v", refs, warns)
	}
	env := session.Env{Home: home, Vars: map[string]string{"KIMI_CODE_HOME": filepath.Join(other, "code"), "KIMI_SHARE_DIR": filepath.Join(other, "share")}}
	refs, _ := Discover(env)
	if len(refs) != 7 {
		t.Errorf("KIMI_CODE_HOME and KIMI_SHARE_DIR: %d refs, want 7", len(refs))
	}
	if refs, warns := Discover(session.Env{}); refs != nil || warns != nil {
		t.Errorf("no home: %v %v", refs, warns)
	}
}

func TestLocate(t *testing.T) {
	home := store(t)
	env := session.Env{Home: home}
	refs, _ := Discover(env)
	for _, r := range refs {
		got, err := Locate(env, r.ID)
		if err != nil {
			t.Errorf("Locate(%q): %v", r.ID, err)
			continue
		}
		if got.Path != r.Path || got.ID != r.ID || got.Parent != r.Parent || got.Size != r.Size {
			t.Errorf("Locate(%q) = %+v, want %+v", r.ID, got, r)
		}
	}
	if got, err := Locate(env, codeSID+"/main"); err != nil || got.ID != codeSID {
		t.Errorf("<session>/main = %+v, %v; want the main agent", got, err)
	}
	for _, id := range []string{
		"", ".", "..", "../x", "x/..", "../../etc/passwd", "a/b/c", codeSID + "/../" + codeSID,
		"*", "session_*", "a?b", "[a]", `a\b`, "/abs", "a/", "/", "x\x00y", "nope",
	} {
		if _, err := Locate(env, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Locate(%q) = %v, want ErrNotFound", id, err)
		}
	}
	// The same id in two buckets.
	b2 := filepath.Join(home, ".kimi", "sessions", LegacyBucket("/w2", "local"), legacySID)
	write(t, filepath.Join(b2, "wire.jsonl"), wireHead+turnBegin)
	if _, err := Locate(env, legacySID); !errors.Is(err, session.ErrAmbiguous) {
		t.Errorf("an id in two buckets: %v, want ErrAmbiguous", err)
	}
	if _, err := Locate(session.Env{}, codeSID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("no home: %v", err)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		codeSID: true, "ses_3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f": true, legacySID: true, codeSID + "/agent-0": true,
		"": false, ".": false, "..": false, "a/b/c": false, "a/": false, "/a": false, "a b": false, "a/..": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v", id, got)
		}
	}
}

// TestOpenByID opens sessions by id alone, as `stead session show kimi:<id>`
// does, and checks what the sidecars contribute.
func TestOpenByID(t *testing.T) {
	home := store(t)
	env := session.Env{Home: home}
	s, err := Open(env, session.Ref{ID: codeSID})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != codeSID || s.Project.Path != "/p" || s.Title != "T" {
		t.Errorf("Kimi Code session: id %q, project %q, title %q", s.ID, s.Project.Path, s.Title)
	}
	var subs []string
	for _, l := range s.Subagents {
		subs = append(subs, l.ID+" "+filepath.Base(filepath.Dir(l.Path)))
	}
	if want := []string{codeSID + "/agent-0 agent-0"}; !reflect.DeepEqual(subs, want) {
		t.Errorf("subagents %v, want %v", subs, want)
	}
	sub, err := Open(env, session.Ref{ID: codeSID + "/agent-0"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Parent == nil || sub.Parent.ID != codeSID || sub.Parent.Kind != session.LinkSubagent || sub.Project.Path != "/p" {
		t.Errorf("subagent: parent %+v, project %q", sub.Parent, sub.Project.Path)
	}
	l, err := Open(env, session.Ref{ID: legacySID})
	if err != nil {
		t.Fatal(err)
	}
	if l.Project.Path != "/w" || len(l.Subagents) != 1 || l.Subagents[0].ID != legacySID+"/a1" {
		t.Errorf("legacy session: project %q, subagents %+v", l.Project.Path, l.Subagents)
	}
	if _, err := Open(env, session.Ref{ID: "../x"}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Open of an escaping id: %v", err)
	}
	// A v1-shaped state.json, without cwd: the index has the work dir.
	cs := filepath.Join(home, ".kimi-code", "sessions", WorkDirKey("/p"), codeSID)
	write(t, filepath.Join(cs, "state.json"), `{"createdAt":"2026-11-21T19:45:44.067Z","title":"v1"}`)
	s, err = Open(env, session.Ref{ID: codeSID})
	if err != nil {
		t.Fatal(err)
	}
	if s.Project.Path != "/p" || s.Title != "v1" {
		t.Errorf("v1 state: project %q, title %q", s.Project.Path, s.Title)
	}
	write(t, filepath.Join(cs, "state.json"), `{not json`)
	s, err = Open(env, session.Ref{ID: codeSID})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 0 {
		t.Errorf("a broken state.json gives one warning without a line: %v", s.Warnings)
	}
}

func TestPlaceOf(t *testing.T) {
	for path, want := range map[string]place{
		"/h/.kimi-code/sessions/wd_p_1/session_x/agents/main/wire.jsonl":    {store: storeCode, root: "/h/.kimi-code", dir: "/h/.kimi-code/sessions/wd_p_1/session_x", bucket: "wd_p_1", sid: "session_x"},
		"/h/.kimi-code/sessions/wd_p_1/session_x/agents/agent-1/wire.jsonl": {store: storeCode, root: "/h/.kimi-code", dir: "/h/.kimi-code/sessions/wd_p_1/session_x", bucket: "wd_p_1", sid: "session_x", agent: "agent-1"},
		"/h/.kimi/sessions/abc/u1/wire.jsonl":                               {store: storeLegacy, root: "/h/.kimi", dir: "/h/.kimi/sessions/abc/u1", bucket: "abc", sid: "u1"},
		"/h/.kimi/sessions/abc/u1/context.jsonl":                            {store: storeLegacy, root: "/h/.kimi", dir: "/h/.kimi/sessions/abc/u1", bucket: "abc", sid: "u1"},
		"/h/.kimi/sessions/abc/u1/subagents/a1/wire.jsonl":                  {store: storeLegacy, root: "/h/.kimi", dir: "/h/.kimi/sessions/abc/u1", bucket: "abc", sid: "u1", agent: "a1"},
		"/h/.kimi/sessions/abc/u1.jsonl":                                    {store: storeLegacy, root: "/h/.kimi", bucket: "abc", sid: "u1"},
		"/tmp/copy/wire.jsonl":                                              {store: storeLegacy, dir: "/tmp/copy", bucket: "tmp", sid: "copy"},
		"/tmp/other.jsonl":                                                  {sid: "other"},
	} {
		if got := placeOf(filepath.FromSlash(path)); got != want {
			t.Errorf("placeOf(%s) = %+v\nwant %+v", path, got, want)
		}
	}
}
