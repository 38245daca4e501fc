// Package adapters is the registry of the CLIs stead understands: a list of
// values, one per CLI, whose fields are the functions of that CLI's package
// (adapters/claude, adapters/codex, ...). Everything stead knows about a
// CLI's native store lives in its package; nothing outside adapters/
// switches on a CLI's name. Adding a CLI means one new package and one new
// entry in All.
//
// The CLI packages import only session and adapters/internal helpers; they
// never import this package.
package adapters
