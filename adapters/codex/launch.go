package codex

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/stead-dev/stead/live"
)

// DefaultModel is the model a stub run asks for: a catalog model, so Codex
// knows its metadata and declares its usual tools.
const DefaultModel = "gpt-5.5"

// Setup returns what Codex needs to run l against l.BaseURL with no dialog
// and no traffic elsewhere (codex.md §2): CODEX_HOME under l.Home with a
// custom Responses provider (no retries), analytics, plugins, the update
// check and the app-server daemon off, the project trusted, one-time
// notices seen.
func Setup(l live.Launch) live.Setup {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	cfg := fmt.Sprintf(`model = %s
model_provider = "stead-stub"
check_for_update_on_startup = false

[model_providers.stead-stub]
name = "stead stub"
base_url = %s
wire_api = "responses"
env_key = "STEAD_STUB_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
daemon_auto_start = false

[tui]
screen_reader_detection_done = true
disable_paste_burst = true
resume_cwd = "current"

[tui.model_availability_nux]
"gpt-6.1-sol" = 1

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"
`, strconv.Quote(model), strconv.Quote(l.BaseURL+"/v1"))
	if l.Dir != "" {
		cfg += fmt.Sprintf("\n[projects.%s]\ntrust_level = \"trusted\"\n", strconv.Quote(l.Dir))
	}
	return live.Setup{
		Env: []string{
			"HOME=" + l.Home,
			"CODEX_HOME=" + filepath.Join(l.Home, ".codex"),
			"STEAD_STUB_API_KEY=stub",
		},
		Files: map[string]string{".codex/config.toml": cfg},
		Notes: "Run codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox PROMPT </dev/null (headless) or codex --no-daemon (TUI).",
	}
}

// Argv returns the arguments of a headless run of l: codex exec printing
// JSON events, sandbox and approvals off; a resume continues l.Resume.
func Argv(l live.Launch) []string {
	args := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	if l.Model != "" {
		args = append(args, "-m", l.Model)
	}
	if l.Resume != "" {
		return append(args, "resume", l.Resume, l.Prompt)
	}
	return append(args, l.Prompt)
}
