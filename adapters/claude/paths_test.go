package claude

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

// javaHash is String.hashCode computed the slow, obvious way, to check the
// encoder's int32 arithmetic against.
func javaHash(s string) int64 {
	var h int64
	for _, r := range s {
		units := []int64{int64(r)}
		if r > 0xFFFF {
			r -= 0x10000
			units = []int64{0xD800 + int64(r>>10), 0xDC00 + int64(r&0x3FF)}
		}
		for _, u := range units {
			h = (31*h + u) % (1 << 32)
		}
	}
	if h >= 1<<31 {
		h -= 1 << 32
	}
	return h
}

func TestJavaHashReference(t *testing.T) {
	// Known values of Java's String.hashCode.
	for s, want := range map[string]int64{"": 0, "a": 97, "Aa": 2112, "BB": 2112, "hello": 99162322, "polygenelubricants": -2147483648} {
		if got := javaHash(s); got != want {
			t.Errorf("javaHash(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestEncodeProjectDir(t *testing.T) {
	long := "/tmp/lab"
	for i := 1; i <= 16; i++ {
		long += "/longdirname" + strconv.Itoa(100 + i)[1:]
	}
	long += "/x"
	hash := javaHash(long)
	if hash < 0 {
		hash = -hash
	}
	longEnc := strings.NewReplacer("/", "-").Replace(long)
	wantLong := longEnc[:200] + "-" + strconv.FormatInt(hash, 36)

	tests := []struct{ in, want string }{
		// Measured on Claude Code 2.1.330 (claude.md §4.2, §6.2).
		{"/home/dev/lab-claude/work/alpha", "-home-dev-lab-claude-work-alpha"},
		{"/home/dev/lab-claude/work/we.ird_dir name+x@y~z", "-home-dev-lab-claude-work-we-ird-dir-name-x-y-z"},
		{"/home/dev/lab-claude/work/inj.we_ird dir+sp", "-home-dev-lab-claude-work-inj-we-ird-dir-sp"},
		// Every non-alphanumeric UTF-16 unit is one dash.
		{"/home/dév/ünï", "-home-d-v--n-"},
		{"/x/😀", "-x---"},
		{"C:\\Users\\me\\proj", "C--Users-me-proj"},
		{long, wantLong},
	}
	for _, tt := range tests {
		if got := EncodeProjectDir(tt.in); got != tt.want {
			t.Errorf("EncodeProjectDir(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := len(EncodeProjectDir(long)); n <= 200 || n > 200+1+7 {
		t.Errorf("long name has length %d", n)
	}
	// Exactly 200 characters is not cut.
	p200 := "/" + strings.Repeat("a", 199)
	if got := EncodeProjectDir(p200); got != "-"+strings.Repeat("a", 199) {
		t.Errorf("200-character name was changed: %q", got)
	}
}

func TestProjectDirResolvesSymlinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real.dir")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "alias-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	realPath, _ := filepath.EvalSymlinks(real)
	if got, want := ProjectDir("/c", link), filepath.Join("/c", "projects", EncodeProjectDir(realPath)); got != want {
		t.Errorf("ProjectDir(link) = %q, want %q", got, want)
	}
	// A path that does not exist is encoded as given.
	if got := ProjectDir("/c", "/no/such/dir"); got != "/c/projects/-no-such-dir" {
		t.Errorf("got %q", got)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverAndLocate(t *testing.T) {
	root := t.TempDir()
	b64 := base64.RawURLEncoding.EncodeToString([]byte("/Users/foo/dev/bar"))
	files := []string{
		"projects/-home-u-proj/11111111-1111-4111-8111-111111111111.jsonl",
		"projects/-home-u-proj/11111111-1111-4111-8111-111111111111/subagents/agent-abc1234.jsonl",
		"projects/-home-u-proj/agent-old0001.jsonl",
		"projects/-home-u-proj/subagents/agent-seed004.jsonl",
		"projects/" + b64 + "/22222222-2222-4222-8222-222222222222.jsonl",
		"projects/33333333-3333-4333-8333-333333333333.jsonl",
		"sessions/44444444-4444-4444-8444-444444444444.jsonl",
	}
	for _, f := range files {
		writeFile(t, filepath.Join(root, f), "{}\n")
	}
	// Not sessions: the live registry, memory and tool output folders.
	writeFile(t, filepath.Join(root, "sessions/1234.json"), "{}")
	writeFile(t, filepath.Join(root, "projects/-home-u-proj/memory/notes.jsonl"), "{}\n")
	writeFile(t, filepath.Join(root, "projects/-home-u-proj/11111111-1111-4111-8111-111111111111/tool-results/x.txt"), "x")

	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"CLAUDE_CONFIG_DIR": root}}
	refs, warns := Discover(env)
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	var got []string
	for _, r := range refs {
		rel, _ := filepath.Rel(root, r.Path)
		got = append(got, rel+" id="+r.ID+" parent="+r.Parent)
	}
	sort.Strings(got)
	want := []string{
		"projects/-home-u-proj/11111111-1111-4111-8111-111111111111.jsonl id=11111111-1111-4111-8111-111111111111 parent=",
		"projects/-home-u-proj/11111111-1111-4111-8111-111111111111/subagents/agent-abc1234.jsonl id=agent-abc1234 parent=11111111-1111-4111-8111-111111111111",
		"projects/-home-u-proj/agent-old0001.jsonl id=agent-old0001 parent=",
		"projects/-home-u-proj/subagents/agent-seed004.jsonl id=agent-seed004 parent=",
		"projects/" + b64 + "/22222222-2222-4222-8222-222222222222.jsonl id=22222222-2222-4222-8222-222222222222 parent=",
		"projects/33333333-3333-4333-8333-333333333333.jsonl id=33333333-3333-4333-8333-333333333333 parent=",
		"sessions/44444444-4444-4444-8444-444444444444.jsonl id=44444444-4444-4444-8444-444444444444 parent=",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Discover:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if decodeBase64Dir(b64) != "/Users/foo/dev/bar" {
		t.Errorf("base64 folder not decoded")
	}

	for _, id := range []string{"22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444", "agent-abc1234"} {
		if _, err := Locate(env, id); err != nil {
			t.Errorf("Locate(%s): %v", id, err)
		}
	}
	for _, id := range []string{"55555555-5555-4555-8555-555555555555", "../../etc/passwd", "*", "a/b", ""} {
		if _, err := Locate(env, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Locate(%q) = %v, want ErrNotFound", id, err)
		}
	}
	// The default root is ~/.claude.
	if got := Root(session.Env{Home: "/h"}); got != "/h/.claude" {
		t.Errorf("Root = %q", got)
	}
	// A missing store is not an error.
	if refs, warns := Discover(session.Env{Home: t.TempDir()}); len(refs)+len(warns) != 0 {
		t.Errorf("empty home: %v %v", refs, warns)
	}
}
