// Package clitest runs the real AI coding CLIs in tests: it finds the
// pinned versions installed by scripts/install-clis.sh, gives each run an
// isolated home seeded so no dialog appears and nothing leaves the
// machine, points the CLI at a model stub playing a script, runs it
// headless with a timeout and stdin from /dev/null, and collects its
// stdout, stderr, exit code and native session files.
//
// A test whose CLI is not installed is skipped with a message naming the
// install script; with STEAD_REQUIRE_CLIS=1 (set by .ci/run) it fails.
// Only tests import this package.
package clitest
