package claude

import (
	"encoding/json"
	"path/filepath"

	"github.com/stead-dev/stead/session"
)

// stubKey is the API key given to a CLI pointed at a model stub; any value
// works, and Claude Code remembers the last 20 characters as approved.
const stubKey = "sk-ant-stead-stub-key-0000000000"

// Setup returns what Claude Code needs to run l against l.BaseURL with no
// dialog and no traffic elsewhere (claude.md §2, §7.1): the config dir under
// l.Home, onboarding done, the API key approved, the project trusted,
// bypass-mode confirmed, non-essential traffic and retries off.
func Setup(l session.Launch) session.Setup {
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
	return session.Setup{
		Env: env,
		Files: map[string]string{
			".claude/.claude.json":  string(cfg),
			".claude/settings.json": `{"skipDangerousModePermissionPrompt":true}`,
		},
		Notes: "Run claude -p PROMPT --dangerously-skip-permissions (headless) or claude (TUI).",
	}
}

// Argv returns the arguments of a headless run of l: a print-mode run
// printing JSON, with every tool allowed.
func Argv(l session.Launch) []string {
	args := []string{"-p", l.Prompt, "--output-format", "json", "--dangerously-skip-permissions"}
	if l.Model != "" {
		args = append(args, "--model", l.Model)
	}
	if l.Resume != "" {
		args = append(args, "--resume", l.Resume)
	}
	return args
}
