// Package inject writes a universal session into a CLI's native store, so
// that the CLI resumes it as if it had written it itself.
//
// Convert turns a session into the entries a target CLI can hold and hands
// them to the target adapter's encoder; Install does the same into a new
// file placed in the target's store. On the way it:
//
//   - keeps the main line of the conversation (subagent sidechains and the
//     context CLIs inject for themselves stay behind);
//   - carries each tool call over as a call of the target's own tool, its
//     input rewritten through the universal arguments (session.Arg*), or,
//     when the target has no such tool, as faithful text;
//   - gives every tool call its result, right after it, making up a
//     placeholder where the source has none, so no model API sees an
//     orphaned call;
//   - records everything it dropped or changed, and why, in a loss report.
//
// Install never changes an existing file: the new session gets a new id,
// is written to a temporary file in the target directory, synced, and
// linked into place only if nothing is there; paths the target adapter
// chooses must lie inside its store.
//
// inject knows no CLI: what it needs of the source and target adapters
// comes in as function values (Reader, Writer), wired in cmd/stead.
package inject
