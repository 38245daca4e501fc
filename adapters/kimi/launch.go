package kimi

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// DefaultModel is the model name a stub run asks for.
const DefaultModel = "stub-model"

// EnvModel is the alias Kimi Code gives the model described by the
// KIMI_MODEL_* variables (kimi.md §4.2).
const EnvModel = "__kimi_env_model__"

// Setup returns what Kimi Code needs to run l against l.BaseURL with no
// traffic elsewhere: its home under l.Home, a model from the environment
// (an OpenAI-compatible "kimi" provider with thinking), telemetry and the
// update check off.
func Setup(l live.Launch) live.Setup {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	return live.Setup{
		Env: []string{
			"HOME=" + l.Home,
			"KIMI_CODE_HOME=" + filepath.Join(l.Home, ".kimi-code"),
			"KIMI_MODEL_NAME=" + model,
			"KIMI_MODEL_API_KEY=sk-stub",
			"KIMI_MODEL_BASE_URL=" + l.BaseURL + "/v1",
			"KIMI_MODEL_PROVIDER_TYPE=kimi",
			"KIMI_MODEL_CAPABILITIES=thinking",
			"KIMI_MODEL_MAX_CONTEXT_SIZE=262144",
			"KIMI_DISABLE_TELEMETRY=1",
			"KIMI_CODE_NO_AUTO_UPDATE=1",
			"KIMI_LOOP_MAX_ATTEMPTS_PER_STEP=1", // fail at once, not after 10 attempts with backoff
		},
		Files: tuiFiles(l),
		Notes: "Run kimi -p PROMPT -m " + EnvModel + " (headless) or kimi (TUI); Kimi Code needs Node 22.19 or later.",
	}
}

// Argv returns the arguments of a headless run of l: print mode with
// stream-json output and the environment's model.
func Argv(l live.Launch) []string {
	args := []string{"-p", l.Prompt, "--output-format", "stream-json", "-m", EnvModel}
	if l.Resume != "" {
		args = append(args, "-r", l.Resume)
	}
	return args
}

// tuiFiles seeds what keeps the TUI's dialogs away: the project's folder
// trust (workspace-trust/<work dir key>), no offer to migrate kimi-cli
// sessions, and an Enter right after typed text that submits.
func tuiFiles(l live.Launch) map[string]string {
	files := map[string]string{
		".kimi-code/.skip-migration-from-kimi-cli": "",
		".kimi-code/tui.toml":                      "cache_expiry_hint = false\ndisable_feedback_survey = true\ndisable_paste_burst = true\n",
	}
	if l.Dir != "" {
		trust, _ := json.Marshal(map[string]any{"root": l.Dir, "trustedAt": time.Now().UnixMilli()})
		files[".kimi-code/workspace-trust/"+WorkDirKey(l.Dir)] = string(trust)
	}
	return files
}

// ConfiguredModel is the model Kimi Code uses in env when none is given on
// its command line, and where that was read: $KIMI_MODEL_NAME (the model
// its KIMI_MODEL_* variables describe, alias __kimi_env_model__), else the
// model id of the default_model alias in its config.toml; else "" and
// "default" (Kimi Code has no model then, and asks for one).
func ConfiguredModel(env session.Env) (model, from string) {
	if m := strings.TrimSpace(env.Get("KIMI_MODEL_NAME")); m != "" {
		return m, "KIMI_MODEL_NAME"
	}
	path := filepath.Join(Root(env), "config.toml")
	data, err := storefile.ReadFile(path)
	if err != nil {
		return "", "default"
	}
	alias, models := readConfig(data)
	if alias == "" {
		return "", "default"
	}
	if m := models[alias]; m != "" {
		return m, path
	}
	return alias, path // an alias with no [models] table: its own name
}

// readConfig reads, from a Kimi Code config.toml, the top-level
// default_model and the model id of each [models."<alias>"] table.
func readConfig(data []byte) (alias string, models map[string]string) {
	models = map[string]string{}
	table := ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			table = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), tomlString(val)
		switch {
		case table == "" && key == "default_model":
			alias = val
		case strings.HasPrefix(table, "models.") && key == "model":
			models[tomlString(strings.TrimPrefix(table, "models."))] = val
		}
	}
	return alias, models
}

// tomlString reads a TOML string value or bare key: quoted (a trailing
// comment dropped) or as it is.
func tomlString(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			if v[0] == '"' {
				if s, err := strconv.Unquote(v[:end+2]); err == nil {
					return s
				}
			}
			return v[1 : end+1]
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}
