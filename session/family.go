package session

import "strings"

// Model families, as FamilyOf names them: the provider whose API serves a
// model of that name.
const (
	FamilyAnthropic = "anthropic"
	FamilyOpenAI    = "openai"
	FamilyGoogle    = "google"
	FamilyMoonshot  = "moonshot"
)

// FamilyOf returns the provider family a model name clearly belongs to, or
// "" for a name of no known family (a local or test model). Unlike
// ProviderOf, which guesses from any part of the name, it looks only at
// how the name begins (after a "models/" or "<provider>/" prefix): claude-*
// is Anthropic's; gpt-*, chatgpt-*, codex-*, o1, o3 and o4 (and their
// -variants) OpenAI's; gemini-* and gemma-* Google's; kimi-* and
// moonshot-* Moonshot's. A model stub refuses a model of another family as
// the real API would.
func FamilyOf(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(m, p) {
				return true
			}
		}
		return false
	}
	exact := func(names ...string) bool {
		for _, n := range names {
			if m == n || strings.HasPrefix(m, n+"-") {
				return true
			}
		}
		return false
	}
	switch {
	case has("claude-") || m == "claude":
		return FamilyAnthropic
	case has("gpt-", "chatgpt-", "codex-") || exact("o1", "o3", "o4"):
		return FamilyOpenAI
	case has("gemini-", "gemma-"):
		return FamilyGoogle
	case has("kimi-", "moonshot-"):
		return FamilyMoonshot
	}
	return ""
}
