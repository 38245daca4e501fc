// Package opencode knows OpenCode (npm opencode-ai, measured on 1.18.33):
// how to run it offline against a model server, and its tool names. Its
// session reader comes with the readers for the other CLIs.
//
// OpenCode keeps its state under the XDG directories (its sessions in
// $XDG_DATA_HOME/opencode/opencode.db) and talks to any OpenAI-compatible
// provider its config names.
//
// All knowledge of OpenCode lives in this package.
package opencode
