package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// now is the writer's clock; tests set it.
var now = time.Now

// Place chooses a new session's id (OpenCode's own format, made now) and
// where it goes: the database OpenCode 1.18.33 opens for the store env
// points at ($OPENCODE_DB, else opencode.db in the data directory; the
// database may not exist yet, see Commit). The session is continued with
// the TUI from its directory (`opencode --session <id>`); `opencode run
// --session <id>` works too, but only from that directory or with --dir
// (from another one it hangs, opencode.md §4).
//
// Place also settles the model the session asks for, since OpenCode
// continues a session with the model its last user message names (when
// no --model is given): t.Model when one was asked for ("provider/model",
// or a model of the configured provider), else the default model of the
// OpenCode configuration the store's environment sees; else none
// (unknown/unknown, reported), never the source session's, which is
// another provider's when the CLIs differ.
func Place(env session.Env, t *session.Target) (session.Placement, error) {
	if t.ID == "" {
		t.ID = newSessionID(now())
	}
	if !ValidID(t.ID) {
		return session.Placement{}, fmt.Errorf("opencode: session id %q is not an OpenCode session id (ses_…)", t.ID)
	}
	if !filepath.IsAbs(t.Dir) {
		return session.Placement{}, fmt.Errorf("opencode: project directory %q is not absolute", t.Dir)
	}
	if real, err := filepath.EvalSymlinks(t.Dir); err == nil {
		t.Dir = real // OpenCode records the physical cwd
	}
	db, root, err := installPath(env)
	if err != nil {
		return session.Placement{}, err
	}
	provider, model, from := configuredModel(env, t.Dir)
	switch {
	case t.Model == "":
		t.Provider, t.Model, t.ModelFrom = provider, model, from
	case strings.Contains(t.Model, "/"):
		t.Provider, t.Model, _ = strings.Cut(t.Model, "/")
	default:
		t.Provider = provider
		if t.Provider == "" {
			t.Provider = session.ProviderOf(t.Model)
		}
	}
	return session.Placement{Root: root, Path: db, Resume: []string{"opencode", "--session", t.ID}}, nil
}

// installPath returns the database a new session goes into, and the store
// root it lies in.
func installPath(env session.Env) (db, root string, err error) {
	dir := DataDir(env)
	if p := env.Get("OPENCODE_DB"); p != "" {
		switch {
		case p == ":memory:":
			return "", "", fmt.Errorf("opencode: OPENCODE_DB is :memory:, a database no other process can write into")
		case filepath.IsAbs(p):
			p = filepath.Clean(p)
			if dir != "" && strings.HasPrefix(p, dir+string(filepath.Separator)) {
				return p, dir, nil
			}
			return p, filepath.Dir(p), nil
		case dir == "":
			return "", "", fmt.Errorf("opencode: OPENCODE_DB is relative and there is no data directory (set XDG_DATA_HOME or HOME)")
		}
		return filepath.Join(dir, p), dir, nil
	}
	if dir == "" {
		return "", "", fmt.Errorf("opencode: no data directory (set XDG_DATA_HOME, OPENCODE_DB or HOME)")
	}
	// The latest release channel (npm's) uses opencode.db.
	return filepath.Join(dir, "opencode.db"), dir, nil
}

// configDir returns OpenCode's global configuration directory.
func configDir(env session.Env) string {
	if d := env.Get("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".config", "opencode")
}

// configuredModel returns the default model ("model": "provider/model")
// of the OpenCode configuration seen from dir, merged in the order
// OpenCode 1.18.33 merges it: the global config.json, opencode.json and
// opencode.jsonc, $OPENCODE_CONFIG, the project's opencode.json(c) files
// from the filesystem root down to dir, the .opencode directories' and
// $OPENCODE_CONFIG_DIR's, then $OPENCODE_CONFIG_CONTENT. Remote and
// managed configurations are not read. It is "" when none names one;
// from is the file or variable the model was read from, or "default".
func configuredModel(env session.Env, dir string) (provider, model, from string) {
	var m string
	from = "default"
	apply := func(data []byte, source string) {
		if v := modelOf(data, env); v != "" {
			m, from = v, source
		}
	}
	file := func(path string) {
		if data, err := storefile.ReadFile(path); err == nil {
			apply(data, path)
		}
	}
	global := configDir(env)
	if global != "" {
		for _, name := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
			file(filepath.Join(global, name))
		}
	}
	if p := env.Get("OPENCODE_CONFIG"); p != "" {
		file(p)
	}
	if !truthy(env.Get("OPENCODE_DISABLE_PROJECT_CONFIG")) {
		var dirs []string
		for d := dir; ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if filepath.Dir(d) == d {
				break
			}
		}
		for i := len(dirs) - 1; i >= 0; i-- {
			for _, name := range []string{"opencode.jsonc", "opencode.json"} {
				file(filepath.Join(dirs[i], name))
			}
		}
		for i := len(dirs) - 1; i >= 0; i-- {
			for _, name := range []string{"opencode.json", "opencode.jsonc"} {
				file(filepath.Join(dirs[i], ".opencode", name))
			}
		}
	}
	if d := env.Get("OPENCODE_CONFIG_DIR"); d != "" {
		for _, name := range []string{"opencode.json", "opencode.jsonc"} {
			file(filepath.Join(d, name))
		}
	}
	if c := env.Get("OPENCODE_CONFIG_CONTENT"); c != "" {
		apply([]byte(c), "OPENCODE_CONFIG_CONTENT")
	}
	p, mod, ok := strings.Cut(m, "/")
	if !ok || p == "" || mod == "" {
		return "", "", "default"
	}
	return p, mod, from
}

// ConfiguredModel is the model OpenCode uses in env for a session in dir
// when none is given on its command line: the model id of the default
// model ("provider/model") its configuration names, and the file or
// variable it was read from; else "" and "default" (OpenCode then picks
// one of the providers it can reach).
func ConfiguredModel(env session.Env, dir string) (model, from string) {
	_, model, from = configuredModel(env, dir)
	return model, from
}

func truthy(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "1" || s == "true"
}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{env:([^}]+)\}`) })

// modelOf reads the top-level "model" of a configuration (JSON with
// comments and trailing commas), with {env:NAME} references replaced.
func modelOf(data []byte, env session.Env) string {
	var cfg struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(stripJSONC(data), &cfg) != nil {
		return ""
	}
	m := envRef().ReplaceAllStringFunc(strings.TrimSpace(cfg.Model), func(ref string) string {
		return env.Get(envRef().FindStringSubmatch(ref)[1])
	})
	if strings.Contains(m, "{") {
		return "" // a {file:…} reference, not followed
	}
	return m
}

// stripJSONC removes the comments and trailing commas JSONC allows.
func stripJSONC(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(in) && in[j] != '"' {
				if in[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(in) {
				j = len(in) - 1
			}
			out = append(out, in[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(in) && in[i+1] == '/':
			for i < len(in) && in[i] != '\n' {
				i++
			}
			if i < len(in) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(in) && in[i+1] == '*':
			end := bytes.Index(in[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ']' || c == '}':
			// Drop a comma before the closing bracket.
			k := len(out) - 1
			for k >= 0 && (out[k] == ' ' || out[k] == '\n' || out[k] == '\r' || out[k] == '\t') {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out = append(out[:k], out[k+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
