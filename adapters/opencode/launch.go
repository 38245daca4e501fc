package opencode

import (
	"encoding/json"
	"strings"

	"github.com/stead-dev/stead/live"
)

// DefaultModel is the model a stub run asks for.
const DefaultModel = "stub-model"

// Setup returns what OpenCode needs to run l against l.BaseURL with no
// traffic elsewhere (opencode.md §2): isolated XDG directories, a provider
// "stub" for the server, every permission granted, the models catalog
// fetch, the update check, sharing and the plugin install off.
func Setup(l live.Launch) live.Setup {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	cfg, _ := json.MarshalIndent(map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{
			"stub": map[string]any{
				"npm":     "@ai-sdk/openai-compatible",
				"name":    "stead stub",
				"options": map[string]any{"baseURL": l.BaseURL + "/v1", "apiKey": "sk-stub"},
				"models": map[string]any{model: map[string]any{
					"name": model, "tool_call": true, "reasoning": true,
					"limit": map[string]any{"context": 128000, "output": 4096},
				}},
			},
		},
		"model":       "stub/" + model,
		"small_model": "stub/" + model,
		"autoupdate":  false,
		"share":       "disabled",
		"permission":  map[string]any{"bash": "allow", "edit": "allow", "webfetch": "allow", "external_directory": "allow"},
	}, "", "  ")
	return live.Setup{
		Env: []string{
			"HOME=" + l.Home,
			"XDG_DATA_HOME=" + l.Home + "/.local/share",
			"XDG_CONFIG_HOME=" + l.Home + "/.config",
			"XDG_STATE_HOME=" + l.Home + "/.local/state",
			"XDG_CACHE_HOME=" + l.Home + "/.cache",
			"OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_AUTOUPDATE=1",
			"npm_config_registry=http://127.0.0.1:9/", // the background plugin install fails at once
		},
		Files: map[string]string{".config/opencode/opencode.json": string(cfg)},
		Notes: "Run opencode run --format json WORDS... </dev/null (headless; pass the prompt as separate words: one with spaces arrives quoted) or opencode (TUI).",
	}
}

// Argv returns the arguments of a headless run of l. The prompt goes as
// separate words: OpenCode quotes an argument that contains spaces.
func Argv(l live.Launch) []string {
	args := []string{"run", "--format", "json"}
	if l.Resume != "" {
		args = append(args, "--session", l.Resume)
	}
	return append(args, strings.Fields(l.Prompt)...)
}
