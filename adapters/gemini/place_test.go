package gemini

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/session"
)

// placeIn places a session of dir in a store laid out from files (paths
// under the store, .gemini/...).
func placeIn(t *testing.T, files map[string]string, dir string) (session.Placement, *session.Target, string, error) {
	t.Helper()
	home := t.TempDir()
	write(t, home, files)
	tg := &session.Target{CLI: session.Gemini, Dir: dir, Created: time.Date(2026, 11, 20, 9, 5, 59, 0, time.UTC)}
	p, err := Place(session.Env{Vars: map[string]string{"GEMINI_CLI_HOME": home}}, tg)
	return p, tg, filepath.Join(home, ".gemini"), err
}

func TestPlace(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		dir    string
		folder string   // tmp/<folder>/chats holds the session
		marks  []string // markers created, relative to the store
	}{
		{name: "new project claims its base name", dir: "/work/My Proj",
			folder: "my-proj", marks: []string{"tmp/my-proj/.project_root", "history/my-proj/.project_root"}},
		{name: "projects.json entry", dir: "/work/app",
			files: map[string]string{
				".gemini/projects.json":           `{"projects":{"/work/app":"app-7"}}`,
				".gemini/tmp/app-7/.project_root": "/work/app",
			},
			folder: "app-7", marks: []string{"tmp/app-7/.project_root", "history/app-7/.project_root"}},
		{name: "entry whose marker names another directory", dir: "/work/app",
			files: map[string]string{
				".gemini/projects.json":          `{"projects":{"/work/app":"app"}}`,
				".gemini/tmp/app/.project_root":  "/elsewhere/app",
				".gemini/tmp/mine/.project_root": "/work/app\n",
			},
			folder: "mine", marks: []string{"tmp/mine/.project_root", "history/mine/.project_root"}},
		{name: "marker without an entry", dir: "/work/app",
			files:  map[string]string{".gemini/history/old-app/.project_root": "/work/app"},
			folder: "old-app", marks: []string{"tmp/old-app/.project_root", "history/old-app/.project_root"}},
		{name: "slug taken in projects.json", dir: "/work/app",
			files: map[string]string{
				".gemini/projects.json": `{"projects":{"/other/app":"app","/third/app":"app-1"}}`,
			},
			folder: "app-2", marks: []string{"tmp/app-2/.project_root", "history/app-2/.project_root"}},
		{name: "slug taken by a marker", dir: "/work/app",
			files:  map[string]string{".gemini/history/app/.project_root": "/other/app"},
			folder: "app-1", marks: []string{"tmp/app-1/.project_root", "history/app-1/.project_root"}},
		{name: "corrupt projects.json is empty, as the CLI reads it", dir: "/work/app",
			files:  map[string]string{".gemini/projects.json": `{"projects":`},
			folder: "app", marks: []string{"tmp/app/.project_root", "history/app/.project_root"}},
		{name: "root directory", dir: "/",
			folder: "project", marks: []string{"tmp/project/.project_root", "history/project/.project_root"}},
		{name: "legacy hash folder is migrated by the CLI", dir: "/work/app",
			files: map[string]string{
				".gemini/tmp/" + projectHash("/work/app") + "/chats/session-2025-01-01T00-00-aaaaaaaa.json": `{}`,
			},
			folder: projectHash("/work/app")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, tg, root, err := placeIn(t, c.files, c.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !ids.IsUUID(tg.ID) {
				t.Errorf("id %q is not a UUID", tg.ID)
			}
			if p.Root != root {
				t.Errorf("root %s, want %s", p.Root, root)
			}
			wantDir := filepath.Join(root, "tmp", c.folder, "chats")
			if filepath.Dir(p.Path) != wantDir {
				t.Errorf("path %s, want it in %s", p.Path, wantDir)
			}
			name := filepath.Base(p.Path)
			m := regexp.MustCompile(`^session-2026-11-20T09-05-([0-9a-f]{8})\.jsonl$`).FindStringSubmatch(name)
			if m == nil {
				t.Fatalf("file name %s", name)
			}
			if strings.HasPrefix(tg.ID, m[1]) {
				t.Errorf("file name %s ends in the id's first 8 characters, which session retention deletes with a resume's orphan", name)
			}
			var marks []string
			for _, f := range p.Files {
				rel, _ := filepath.Rel(root, f.Path)
				marks = append(marks, filepath.ToSlash(rel))
				if string(f.Data) != c.dir {
					t.Errorf("marker %s holds %q, want %q", rel, f.Data, c.dir)
				}
			}
			if strings.Join(marks, " ") != strings.Join(c.marks, " ") {
				t.Errorf("markers %v, want %v", marks, c.marks)
			}
			if want := []string{"gemini", "--resume", tg.ID}; strings.Join(p.Resume, " ") != strings.Join(want, " ") {
				t.Errorf("resume %v", p.Resume)
			}
			if b, err := os.ReadFile(filepath.Join(root, "projects.json")); err == nil && string(b) != c.files[".gemini/projects.json"] {
				t.Errorf("projects.json changed: %s", b)
			}
		})
	}
}

// TestPlaceNewIDs gives every placement a new id and file.
func TestPlaceNewIDs(t *testing.T) {
	p1, t1, _, _ := placeIn(t, nil, "/work/app")
	p2, t2, _, _ := placeIn(t, nil, "/work/app")
	if t1.ID == t2.ID || filepath.Base(p1.Path) == filepath.Base(p2.Path) {
		t.Errorf("two placements share %s / %s", t1.ID, filepath.Base(p1.Path))
	}
}

// TestPlaceRejects refuses ids, directories and slugs that would lead a
// write out of the store.
func TestPlaceRejects(t *testing.T) {
	for _, id := range []string{"../../evil", "a/b", "..", "x\x00y", `a\b`, strings.Repeat("a", 300)} {
		home := t.TempDir()
		tg := &session.Target{ID: id, Dir: "/work/app", Created: time.Now()}
		if p, err := Place(session.Env{Home: home}, tg); err == nil {
			t.Errorf("id %q placed at %s", id, p.Path)
		}
	}
	if _, err := Place(session.Env{Home: t.TempDir()}, &session.Target{Dir: "relative/dir"}); err == nil {
		t.Error("a relative project directory was placed")
	}
	for _, slug := range []string{"../../outside", "a/b", "..", ""} {
		files := map[string]string{".gemini/projects.json": `{"projects":{"/work/app":` + quote(slug) + `}}`}
		p, _, _, err := placeIn(t, files, "/work/app")
		if slug == "" {
			if err != nil {
				t.Errorf("an empty slug in projects.json: %v", err)
			}
			continue
		}
		if err == nil {
			t.Errorf("projects.json slug %q placed the session at %s", slug, p.Path)
		}
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestPlaceSymlink places a session of a directory reached through a
// symbolic link under its physical path, the cwd Gemini CLI sees.
func TestPlaceSymlink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	_, tg, _, err := placeIn(t, nil, link)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	if tg.Dir != want {
		t.Errorf("dir %s, want %s", tg.Dir, want)
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"My Project": "my-project", "--a__b--": "a-b", "ÄÖÜ": "project", "x.y.z": "x-y-z", "": "project", "Go1.26": "go1-26",
	} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlaceGivenID takes a given id unless a session has it already.
func TestPlaceGivenID(t *testing.T) {
	const id = "11111111-aaaa-4bbb-8ccc-000000000001"
	home := t.TempDir()
	env := session.Env{Vars: map[string]string{"GEMINI_CLI_HOME": home}}
	tg := &session.Target{ID: id, Dir: "/work/app", Created: time.Now()}
	if _, err := Place(env, tg); err != nil || tg.ID != id {
		t.Fatalf("Place with a new id: %v, id %s", err, tg.ID)
	}
	write(t, home, map[string]string{
		".gemini/tmp/app/chats/session-2026-11-20T09-00-11111111.jsonl": `{"sessionId":"` + id + `","projectHash":"x"}` + "\n" +
			`{"id":"1","type":"user","content":"hi"}` + "\n",
	})
	if _, err := Place(env, &session.Target{ID: id, Dir: "/work/app", Created: time.Now()}); err == nil {
		t.Error("Place took the id of an existing session")
	}
}
