// Package e2e drives the real CLIs (Claude Code, Codex, Gemini CLI,
// OpenCode, Kimi Code), installed at the versions pinned in scenarios/clis.txt by
// scripts/install-clis.sh, against stead's model stub on loopback.
//
// The tests skip when a CLI is not installed, naming the install script,
// and fail instead when STEAD_REQUIRE_CLIS=1 (as in CI).
package e2e
