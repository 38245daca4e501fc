// Package samples opens the real sessions in the adapters' testdata for
// tests of other packages: each txtar case's native files are laid out in
// a temporary home and read through the CLI's adapter. For benchmarks it
// writes large sessions: the testdata repeated, or the corpus generator's.
//
// Non-goals: it is for tests only, and does not build the SQLite
// databases some OpenCode cases hold as SQL (those cases are skipped).
package samples
