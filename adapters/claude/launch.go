package claude

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// stubKey is the API key given to a CLI pointed at a model stub; any value
// works, and Claude Code remembers the last 20 characters as approved.
const stubKey = "sk-ant-stead-stub-key-0000000000"

// Setup returns what Claude Code needs to run l against l.BaseURL with no
// dialog and no traffic elsewhere (claude.md §2, §7.1): the config dir under
// l.Home, onboarding done, the API key approved, the project trusted,
// bypass-mode confirmed, non-essential traffic and retries off.
func Setup(l live.Launch) live.Setup {
	dir := filepath.Join(l.Home, ".claude")
	env := []string{
		"HOME=" + l.Home,
		"CLAUDE_CONFIG_DIR=" + dir,
		"ANTHROPIC_API_KEY=" + stubKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=0", // fail at once rather than retry for minutes
		"IS_SANDBOX=1",              // bypass mode is refused to root otherwise
	}
	if l.BaseURL != "" {
		env = append(env, "ANTHROPIC_BASE_URL="+l.BaseURL)
	}
	projects := map[string]any{}
	if l.Dir != "" {
		projects[l.Dir] = map[string]any{"hasTrustDialogAccepted": true}
	}
	cfg, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{stubKey[len(stubKey)-20:]}, "rejected": []string{}},
		"projects":               projects,
	})
	settings := map[string]any{"skipDangerousModePermissionPrompt": true}
	if l.Model != "" {
		settings["model"] = l.Model // as a user's settings name it
	}
	sb, _ := json.Marshal(settings)
	return live.Setup{
		Env: env,
		Files: map[string]string{
			".claude/.claude.json":  string(cfg),
			".claude/settings.json": string(sb),
		},
		Notes: "Run claude -p PROMPT --dangerously-skip-permissions (headless) or claude (TUI).",
	}
}

// Argv returns the arguments of a headless run of l: a print-mode run
// printing JSON, with every tool allowed.
func Argv(l live.Launch) []string {
	args := []string{"-p", l.Prompt, "--output-format", "json", "--dangerously-skip-permissions"}
	if l.Model != "" {
		args = append(args, "--model", l.Model)
	}
	if l.Resume != "" {
		args = append(args, "--resume", l.Resume)
	}
	return args
}

// DefaultModel is the model Claude Code 2.1.330 uses when none is
// configured (claude.md §1).
const DefaultModel = "claude-opus-5-5"

// aliases are the model names Claude Code takes for its current models.
var aliases = map[string]string{
	"default": DefaultModel,
	"opus":    "claude-opus-5-5",
	"sonnet":  "claude-sonnet-5-5",
	"haiku":   "claude-haiku-5-5",
}

// ConfiguredModel is the model Claude Code uses in env for a session in
// dir when none is given on its command line, and where that was read:
// $ANTHROPIC_MODEL, else the model of the project's
// .claude/settings.local.json, else of its .claude/settings.json, else of
// the user's settings.json (in the config directory), else Claude Code's
// default. Aliases (opus, sonnet, haiku) are resolved. Managed settings
// are not read.
func ConfiguredModel(env session.Env, dir string) (model, from string) {
	resolve := func(m string) string {
		if full, ok := aliases[strings.ToLower(m)]; ok {
			return full
		}
		return m
	}
	if m := strings.TrimSpace(env.Get("ANTHROPIC_MODEL")); m != "" {
		return resolve(m), "ANTHROPIC_MODEL"
	}
	var files []string
	if dir != "" {
		files = append(files, filepath.Join(dir, ".claude", "settings.local.json"), filepath.Join(dir, ".claude", "settings.json"))
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
			Model string `json:"model"`
		}
		if json.Unmarshal(data, &s) == nil && strings.TrimSpace(s.Model) != "" {
			return resolve(strings.TrimSpace(s.Model)), path
		}
	}
	return DefaultModel, "default"
}
