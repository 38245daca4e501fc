// Package vt keeps the screen of a terminal from the bytes a program
// writes to it: a small VT100/xterm emulator that knows where text lands
// (cursor moves, erases, scroll regions, the alternate screen, wide
// characters) and ignores how it looks (colours, attributes, mouse and
// keyboard modes).
//
// stead reads a CLI's screen only as a fallback, where the CLI gives no
// structural signal of its state: a footer that says the model is
// working, a dialog waiting for an approval. TUIs that paint by cell
// diffs (OpenCode writes "esc ", "inter" and "upt" at separate cursor
// positions) can only be read this way, not from the raw stream.
//
// The emulator takes untrusted input: any byte sequence leaves it in a
// valid state, and memory is bounded by the screen's size.
package vt
