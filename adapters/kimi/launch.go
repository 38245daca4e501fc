package kimi

import (
	"encoding/json"
	"path/filepath"
	"time"

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
func Setup(l session.Launch) session.Setup {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	return session.Setup{
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
func Argv(l session.Launch) []string {
	args := []string{"-p", l.Prompt, "--output-format", "stream-json", "-m", EnvModel}
	if l.Resume != "" {
		args = append(args, "-r", l.Resume)
	}
	return args
}

// tuiFiles seeds what keeps the TUI's dialogs away: the project's folder
// trust (workspace-trust/<work dir key>), no offer to migrate kimi-cli
// sessions, and an Enter right after typed text that submits.
func tuiFiles(l session.Launch) map[string]string {
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
