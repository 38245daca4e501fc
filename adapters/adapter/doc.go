// Package adapter is the shape of an adapter: the Adapter each CLI's
// package (adapters/claude, adapters/codex, ...) fills in with its own
// functions, grouped into the parts a CLI may have (Reader, Writer,
// Driver) and its Toolset, with the Decoder and Encoder they return and
// small glue for CLIs that keep one session per file.
//
// It holds types only, so that the CLI packages can name them without
// importing the registry (package adapters, which imports them all);
// adapters re-exports each type under the same name. It imports nothing
// of stead's but session and live.
package adapter
