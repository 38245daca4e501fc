package kimi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

func fixClock(t *testing.T, at time.Time) {
	t.Helper()
	old := now
	now = func() time.Time { return at }
	t.Cleanup(func() { now = old })
}

// TestPlaceCode places a Kimi Code session in the bucket the reader
// computes, with its state.json, under a fresh session_<uuid> id.
func TestPlaceCode(t *testing.T) {
	fixClock(t, time.UnixMilli(1795300000000))
	home := t.TempDir()
	proj := t.TempDir()
	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"KIMI_CODE_HOME": home}}
	tg := &session.Target{Dir: proj, Created: time.UnixMilli(1795000000000), Title: "Fix the bug",
		Origin: session.Origin{CLI: "claude", ID: "abc", Tool: "stead test"}}
	p, err := Place(env, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tg.ID, "session_") || !validName(tg.ID) || len(tg.ID) != len("session_")+36 {
		t.Errorf("id %q", tg.ID)
	}
	dir := filepath.Join(home, "sessions", WorkDirKey(proj), tg.ID)
	if p.Root != home || p.Path != filepath.Join(dir, "agents", "main", "wire.jsonl") {
		t.Errorf("placement %+v", p)
	}
	if got := strings.Join(p.Resume, " "); got != "kimi -r "+tg.ID {
		t.Errorf("resume %q", got)
	}
	if len(p.Files) != 2 || p.Files[0].Path != filepath.Join(dir, "state.json") ||
		p.Files[1].Path != filepath.Join(home, "sessions", ".index-dirty", tg.ID+".1795300000000") || len(p.Files[1].Data) != 0 {
		t.Fatalf("files %v", p.Files)
	}
	var st map[string]any
	if err := json.Unmarshal(p.Files[0].Data, &st); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": tg.ID, "version": 2.0, "cwd": proj, "createdAt": 1795000000000.0, "updatedAt": 1795300000000.0,
		"archived": false, "title": "Fix the bug", "titleKind": "custom", "isCustomTitle": true, "lastTurnReason": "completed",
	}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("state.json %s = %v, want %v", k, st[k], v)
		}
	}
	if o, _ := st["custom"].(map[string]any)["stead_origin"].(map[string]any); o["cli"] != "claude" || o["id"] != "abc" || o["tool"] != "stead test" {
		t.Errorf("provenance %v", st["custom"])
	}
	if h, _ := st["agents"].(map[string]any)["main"].(map[string]any); h["homedir"] != filepath.Join(dir, "agents", "main") || h["type"] != "main" {
		t.Errorf("agents %v", st["agents"])
	}
	// The reader finds the same session, cwd and title.
	os.MkdirAll(filepath.Dir(p.Path), 0o700)
	os.WriteFile(p.Path, []byte(`{"type":"metadata","protocol_version":"1.5","created_at":1795000000000}`+"\n"), 0o600)
	os.WriteFile(p.Files[0].Path, p.Files[0].Data, 0o600)
	ref, err := Locate(env, tg.ID)
	if err != nil || ref.Path != p.Path {
		t.Fatalf("Locate = %v, %v", ref, err)
	}
	m := readMeta(ref.Path, false)
	if m.project != proj || m.title != "Fix the bug" {
		t.Errorf("meta %+v", m)
	}
	// Another placement of the same id fails: nothing is overwritten.
	if _, err := Place(env, &session.Target{Dir: proj, ID: tg.ID}); err == nil {
		t.Error("placing an existing session's id again succeeded")
	}
}

// TestPlaceResolvesSymlinks records the physical directory, which the CLIs
// take from getcwd and compare on resume.
func TestPlaceResolvesSymlinks(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	real, _ = filepath.EvalSymlinks(real)
	tg := &session.Target{Dir: link + "/"}
	p, err := Place(session.Env{Vars: map[string]string{"KIMI_CODE_HOME": t.TempDir()}}, tg)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Dir != real || !strings.Contains(p.Path, WorkDirKey(real)) {
		t.Errorf("dir %q, path %q; want %q", tg.Dir, p.Path, real)
	}
}

// TestPlaceRejects refuses ids that could leave the store and targets
// with no place.
func TestPlaceRejects(t *testing.T) {
	env := session.Env{Vars: map[string]string{"KIMI_CODE_HOME": t.TempDir(), "KIMI_SHARE_DIR": t.TempDir()}}
	for _, format := range []string{"", FormatLegacy} {
		for _, id := range []string{"../x", "..", ".", "a/b", `a\b`, "x y", "/abs", "a*", strings.Repeat("a", 300)} {
			if p, err := Place(env, &session.Target{Dir: "/w", ID: id, Format: format}); err == nil {
				t.Errorf("format %q: id %q placed at %s", format, id, p.Path)
			}
		}
	}
	for name, tg := range map[string]*session.Target{
		"relative dir":   {Dir: "w"},
		"unknown format": {Dir: "/w", Format: "kimi-cli-2"},
	} {
		if _, err := Place(env, tg); err == nil {
			t.Errorf("%s: placed", name)
		}
	}
	if _, err := Place(session.Env{}, &session.Target{Dir: "/w"}); err == nil {
		t.Error("placed without a home")
	}
}

// TestPlaceLegacy places a kimi-cli session in md5(dir), creates kimi.json
// only when there is none, and refuses one kimi-cli would truncate.
func TestPlaceLegacy(t *testing.T) {
	share := t.TempDir()
	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"KIMI_SHARE_DIR": share}}
	tg := &session.Target{Dir: "/home/dev/demo-project", Format: FormatLegacy, Title: "Demo"}
	p, err := Place(env, tg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(share, "sessions", "05489f3258091050cc7f8d3f25ada307", tg.ID)
	if len(tg.ID) != 36 || p.Path != filepath.Join(dir, "wire.jsonl") || p.Root != share || strings.Join(p.Resume, " ") != "kimi -r "+tg.ID {
		t.Errorf("id %q placement %+v", tg.ID, p)
	}
	files := map[string]string{}
	for _, f := range p.Files {
		files[f.Path] = string(f.Data)
	}
	wantIndex := "{\n  \"work_dirs\": [\n    {\n      \"path\": \"/home/dev/demo-project\",\n      \"kaos\": \"local\",\n      \"last_session_id\": \"" + tg.ID + "\"\n    }\n  ]\n}"
	if got := files[filepath.Join(share, "kimi.json")]; got != wantIndex {
		t.Errorf("kimi.json:\n%s\nwant:\n%s", got, wantIndex)
	}
	if got := files[filepath.Join(dir, "state.json")]; got != "{\n  \"version\": 1,\n  \"custom_title\": \"Demo\"\n}" {
		t.Errorf("state.json:\n%s", got)
	}
	if filepath.Dir(p.Path) != dir {
		t.Errorf("the wire file %s is not in the session folder %s", p.Path, dir)
	}

	// kimi.json lists the directory: it is left alone.
	os.WriteFile(filepath.Join(share, "kimi.json"), []byte(wantIndex), 0o600)
	tg2 := &session.Target{Dir: "/home/dev/demo-project", Format: FormatLegacy}
	p, err = Place(env, tg2)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Files {
		if filepath.Base(f.Path) == "kimi.json" {
			t.Error("kimi.json written although it lists the directory")
		}
	}

	// kimi.json does not list it: kimi-cli would start afresh.
	if _, err := Place(env, &session.Target{Dir: "/home/dev/other", Format: FormatLegacy}); err == nil || !strings.Contains(err.Error(), "does not list") {
		t.Errorf("err = %v, want a refusal", err)
	}
	os.WriteFile(filepath.Join(share, "kimi.json"), []byte("{not json"), 0o600)
	if _, err := Place(env, &session.Target{Dir: "/home/dev/demo-project", Format: FormatLegacy}); err == nil {
		t.Error("placed with an unreadable kimi.json")
	}
}
