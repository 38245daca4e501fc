// Package stead is the root of stead's module: a command-line tool and
// daemon that reads, converts and supervises the sessions of AI coding CLIs
// (Claude Code, Codex, Gemini CLI, OpenCode, Kimi) through one universal
// session format.
//
// The root package holds no code. The layout:
//
//	session/     the universal session model (standard library only)
//	adapters/    one package per CLI's native store, and their registry
//	catalog/     finds and summarises sessions across every CLI's store
//	pricing/     cost estimates from list prices
//	cmd/stead/   the command
//
// deps_test.go in this directory states which package may import which.
package stead
