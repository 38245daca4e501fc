// Package adapters is the registry of the CLIs stead understands: All, a
// list of values, one per CLI, each the Adapter of that CLI's package
// (claude.Adapter in adapters/claude, codex.Adapter, ...). Lookup finds one
// by name, Names lists them, and NativeCall and NativeTools ask them all
// for the model stub.
//
// An Adapter groups what stead can do with a CLI into parts: Reader (its
// sessions read), Writer (sessions written into its store) and Driver (the
// CLI run headless or under a supervisor); a part the CLI lacks is nil,
// and Reads, Writes and Runs say which are there. Its Toolset (its tools'
// names and arguments) and its names (Title, and the names other tools
// give it) are beside the parts. The types are declared in
// adapters/adapter, which the CLI packages import, and re-exported here
// under the same names.
//
// Everything stead knows about a CLI lives in its package; nothing outside
// adapters/ switches on a CLI's name. Adding a CLI means one new package
// with its Adapter and one line in All (docs/adding-a-cli.md).
//
// The CLI packages import only session, live, adapters/adapter and
// adapters/internal helpers; they never import this package.
package adapters
