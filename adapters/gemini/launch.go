package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// DefaultModel is the model a stub run asks for: naming one skips the
// CLI's routing request.
const DefaultModel = "gemini-2.5-flash"

// settings turn off what would block or leave the machine (gemini.md §2.1):
// the API-key auth type (the "gateway" type a base URL would pick fails
// headless with exit 41), folder trust, session retention (it deletes
// resumed sessions), update checks, statistics and telemetry; and it makes
// a failing model fail the run at once instead of after ten attempts with
// backoff (minutes). It names the model (%s), as a user's settings do:
// naming one skips the CLI's routing request.
const settings = `{
  "model": {"name": %s},
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "general": {"maxAttempts": 1, "enableAutoUpdate": false, "enableAutoUpdateNotification": false, "sessionRetention": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "ide": {"enabled": false, "hasSeenNudge": true},
  "ui": {"theme": "Default", "hideTips": true}
}
`

// Setup returns what Gemini CLI needs to run l against l.BaseURL with no
// dialog and no traffic elsewhere.
func Setup(l live.Launch) live.Setup {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	env := []string{
		"HOME=" + l.Home,
		"GEMINI_CLI_HOME=" + l.Home,
		"GEMINI_API_KEY=stub",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	}
	if l.BaseURL != "" {
		env = append(env, "GOOGLE_GEMINI_BASE_URL="+l.BaseURL)
	}
	return live.Setup{
		Env:   env,
		Files: map[string]string{".gemini/settings.json": fmt.Sprintf(settings, strconv.Quote(model))},
		Notes: "Run gemini -p PROMPT --yolo -m " + DefaultModel + " (headless; without --yolo the shell tool is not offered) or gemini (TUI).",
	}
}

// Argv returns the arguments of a headless run of l: JSON output, every
// tool allowed, a named model.
func Argv(l live.Launch) []string {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	args := []string{"-p", l.Prompt, "--output-format", "json", "--yolo", "-m", model}
	if l.Resume != "" {
		args = append(args, "--resume", l.Resume)
	}
	return args
}

// AutoModel is what Gemini CLI 0.61.0 uses when no model is configured:
// "auto", a routing request choosing a Gemini model for each prompt
// (gemini.md §2.3).
const AutoModel = "auto"

// ConfiguredModel is the model Gemini CLI uses in env for a session in dir
// when none is given on its command line, and where that was read:
// $GEMINI_MODEL, else model.name of the project's .gemini/settings.json,
// else of the user's settings.json (in the store), else "auto" (Gemini
// CLI routes each prompt to a model of its choosing). System settings are
// not read.
func ConfiguredModel(env session.Env, dir string) (model, from string) {
	if m := strings.TrimSpace(env.Get("GEMINI_MODEL")); m != "" {
		return m, "GEMINI_MODEL"
	}
	var files []string
	if dir != "" {
		files = append(files, filepath.Join(dir, ".gemini", "settings.json"))
	}
	if root := Root(env); root != "" {
		files = append(files, filepath.Join(root, "settings.json"))
	}
	for _, path := range files {
		data, err := storefile.ReadFile(path)
		if err != nil {
			continue
		}
		var s struct {
			Model json.RawMessage `json:"model"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		// model is {"name": ...}; early versions took a string.
		var named struct {
			Name string `json:"name"`
		}
		var name string
		if json.Unmarshal(s.Model, &named) == nil {
			name = named.Name
		} else {
			json.Unmarshal(s.Model, &name)
		}
		if name = strings.TrimSpace(name); name != "" {
			return name, path
		}
	}
	return AutoModel, "default"
}
