package session

import "testing"

func TestFamilyOf(t *testing.T) {
	for model, want := range map[string]string{
		"claude-opus-5-5": FamilyAnthropic, "Claude-Sonnet-4-5": FamilyAnthropic, "anthropic/claude-x": FamilyAnthropic,
		"gpt-5.5": FamilyOpenAI, "o3": FamilyOpenAI, "o4-mini": FamilyOpenAI, "codex-mini-latest": FamilyOpenAI, "chatgpt-4o-latest": FamilyOpenAI,
		"gemini-2.5-flash": FamilyGoogle, "models/gemini-3-pro": FamilyGoogle, "gemma-3-27b": FamilyGoogle,
		"kimi-k2": FamilyMoonshot, "moonshot-v1-8k": FamilyMoonshot,
		"stub-model": "", "fake-model": "", "o3x": "", "my-claude-proxy": "", "": "", "auto": "",
	} {
		if got := FamilyOf(model); got != want {
			t.Errorf("FamilyOf(%q) = %q, want %q", model, got, want)
		}
	}
}
