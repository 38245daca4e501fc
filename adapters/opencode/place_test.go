package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

var idForm = regexp.MustCompile(`^(ses|msg|prt)_[0-9a-f]{12}[0-9A-Za-z]{14}$`)

// TestIDs checks ids have OpenCode's form: session ids inverted, so newer
// sort first; message and part ids ascending, whatever order times come
// in.
func TestIDs(t *testing.T) {
	t1 := time.Date(2026, 11, 21, 19, 12, 31, 679_000_000, time.UTC)
	a, b := newSessionID(t1), newSessionID(t1.Add(time.Second))
	if !idForm.MatchString(a) || !ValidID(a) || b >= a {
		t.Errorf("session ids %s then %s", a, b)
	}
	// The measured example: ses_e0079bc40ffe… is the inverse of 1ff8643bf001.
	if got := newSessionID(time.UnixMilli(0x1ff8643bf001 >> 12)); !strings.HasPrefix(got, "ses_e0079bc40ffe") {
		t.Errorf("session id %s, want ses_e0079bc40ffe…", got)
	}
	var c idClock
	last := ""
	for _, ms := range []int64{1795288351798, 1795288351798, 1795288351000, 0, 1795288352000} {
		id := c.ascending("prt", ms)
		if !idForm.MatchString(id) || id[:16] <= last {
			t.Errorf("part id %s after %s", id, last)
		}
		last = id[:16]
	}
	if id := (&idClock{}).ascending("msg", 1795288351798); !strings.HasPrefix(id, "msg_1ff864436001") {
		t.Errorf("message id %s, want msg_1ff864436001…", id)
	}
}

// TestPlace checks where a new session goes and how it is resumed.
func TestPlace(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	dir := t.TempDir()
	real, _ := filepath.EvalSymlinks(dir)

	tg := session.Target{Dir: dir}
	p, err := Place(envFor(home, data), &tg)
	if err != nil {
		t.Fatal(err)
	}
	if !ValidID(tg.ID) || !idForm.MatchString(tg.ID) {
		t.Errorf("id %q", tg.ID)
	}
	if p.Root != filepath.Join(data, "opencode") || p.Path != filepath.Join(data, "opencode", "opencode.db") {
		t.Errorf("placed in %s (root %s)", p.Path, p.Root)
	}
	if tg.Dir != real {
		t.Errorf("directory %s, want the physical %s", tg.Dir, real)
	}
	if strings.Join(p.Resume, " ") != "opencode --session "+tg.ID {
		t.Errorf("resume %v", p.Resume)
	}

	// The home directory's default data directory.
	tg = session.Target{Dir: dir, ID: "ses_given"}
	p, err = Place(session.Env{Home: home}, &tg)
	if err != nil || tg.ID != "ses_given" || p.Path != filepath.Join(home, ".local", "share", "opencode", "opencode.db") {
		t.Errorf("placed %s in %s (%v)", tg.ID, p.Path, err)
	}

	// OPENCODE_DB.
	for db, want := range map[string][2]string{
		"/srv/oc/sessions.db": {"/srv/oc/sessions.db", "/srv/oc"},
		"other.db":            {filepath.Join(data, "opencode", "other.db"), filepath.Join(data, "opencode")},
	} {
		env := envFor(home, data)
		env.Vars["OPENCODE_DB"] = db
		tg := session.Target{Dir: dir}
		p, err := Place(env, &tg)
		if err != nil || p.Path != want[0] || p.Root != want[1] {
			t.Errorf("OPENCODE_DB=%s: placed in %s, root %s (%v)", db, p.Path, p.Root, err)
		}
	}

	for name, c := range map[string]struct {
		env session.Env
		tg  session.Target
	}{
		"relative directory": {envFor(home, data), session.Target{Dir: "proj"}},
		"not a session id":   {envFor(home, data), session.Target{Dir: dir, ID: "8d7c6b5a-0000-4000-8000-000000000001"}},
		"memory database":    {session.Env{Home: home, Vars: map[string]string{"OPENCODE_DB": ":memory:"}}, session.Target{Dir: dir}},
		"no home":            {session.Env{}, session.Target{Dir: dir}},
	} {
		if p, err := Place(c.env, &c.tg); err == nil {
			t.Errorf("%s: placed in %s", name, p.Path)
		}
	}
}

// TestPlaceModel checks the session asks for OpenCode's configured model,
// merged as OpenCode merges its configuration, never the source's (none
// when none is configured), and for the model asked for when one is.
func TestPlaceModel(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "config")
	proj := filepath.Join(t.TempDir(), "proj")
	write := func(path, data string) {
		t.Helper()
		writeFile(t, path, []byte(data))
	}
	env := session.Env{Home: home, Vars: map[string]string{"XDG_CONFIG_HOME": cfg, "XDG_DATA_HOME": filepath.Join(home, "data"), "KEY": "local"}}
	asked := ""
	place := func() (string, string) {
		t.Helper()
		tg := session.Target{Dir: proj, Model: asked, SourceModel: "claude-sonnet-4-5", SourceProvider: "anthropic"}
		if _, err := Place(env, &tg); err != nil {
			t.Fatal(err)
		}
		return tg.Provider, tg.Model
	}
	os.MkdirAll(proj, 0o755)
	if p, m := place(); p != "" || m != "" {
		t.Errorf("no configuration: %s/%s, want none (not the source's)", p, m)
	}
	write(filepath.Join(cfg, "opencode", "opencode.json"), `{"model": "stub/stub-model"}`)
	if p, m := place(); p != "stub" || m != "stub-model" {
		t.Errorf("global opencode.json: %s/%s", p, m)
	}
	write(filepath.Join(cfg, "opencode", "opencode.jsonc"), "{\n  // the default\n  \"model\": \"openrouter/anthropic/claude-x\", /* a comment */\n  \"share\": \"disabled\",\n}\n")
	if p, m := place(); p != "openrouter" || m != "anthropic/claude-x" {
		t.Errorf("global opencode.jsonc over opencode.json: %s/%s", p, m)
	}
	write(filepath.Join(filepath.Dir(proj), "opencode.json"), `{"model": "{env:KEY}/parent-model"}`)
	write(filepath.Join(proj, ".opencode", "opencode.json"), `{"model": "dot/dot-model", "theme": "x"}`)
	if p, m := place(); p != "dot" || m != "dot-model" {
		t.Errorf("project files: %s/%s", p, m)
	}
	os.Remove(filepath.Join(proj, ".opencode", "opencode.json"))
	if p, m := place(); p != "local" || m != "parent-model" {
		t.Errorf("a parent directory's opencode.json with {env:}: %s/%s", p, m)
	}
	env.Vars["OPENCODE_DISABLE_PROJECT_CONFIG"] = "1"
	if p, m := place(); p != "openrouter" {
		t.Errorf("project configuration disabled: %s/%s", p, m)
	}
	env.Vars["OPENCODE_CONFIG_CONTENT"] = `{"model":"content/content-model"}`
	if p, m := place(); p != "content" || m != "content-model" {
		t.Errorf("OPENCODE_CONFIG_CONTENT: %s/%s", p, m)
	}
	if m, from := ConfiguredModel(env, proj); m != "content-model" || from != "OPENCODE_CONFIG_CONTENT" {
		t.Errorf("ConfiguredModel = %q from %q", m, from)
	}
	asked = "other/asked-model"
	if p, m := place(); p != "other" || m != "asked-model" {
		t.Errorf("--model other/asked-model: %s/%s", p, m)
	}
	asked = "bare-model"
	if p, m := place(); p != "content" || m != "bare-model" {
		t.Errorf("--model bare-model: %s/%s, want the configured provider", p, m)
	}
}

func TestStripJSONC(t *testing.T) {
	in := `{"a": "x // not a comment", /* c */ "b": [1, 2,], // end
"c": "/* kept */",}`
	var v struct {
		A string `json:"a"`
		B []int  `json:"b"`
		C string `json:"c"`
	}
	if err := json.Unmarshal(stripJSONC([]byte(in)), &v); err != nil || v.A != "x // not a comment" || len(v.B) != 2 || v.C != "/* kept */" {
		t.Errorf("stripJSONC = %s: %+v %v", stripJSONC([]byte(in)), v, err)
	}
	if modelOf([]byte("{\"model\":\"a/b\", // x\n}"), session.Env{}) != "a/b" {
		t.Error("a trailing comma before a comment")
	}
}
