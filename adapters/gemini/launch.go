package gemini

import (
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
// backoff (minutes).
const settings = `{
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
func Setup(l session.Launch) session.Setup {
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
	return session.Setup{
		Env:   env,
		Files: map[string]string{".gemini/settings.json": settings},
		Notes: "Run gemini -p PROMPT --yolo -m " + DefaultModel + " (headless; without --yolo the shell tool is not offered) or gemini (TUI).",
	}
}

// Argv returns the arguments of a headless run of l: JSON output, every
// tool allowed, a named model.
func Argv(l session.Launch) []string {
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
