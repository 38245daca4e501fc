// Package gemini knows Google's Gemini CLI (measured on 0.61.0): how to run
// it offline against a model server, and its tool names. Its session
// reader comes with the readers for the other CLIs.
//
// Gemini CLI keeps its state under $GEMINI_CLI_HOME/.gemini (default
// ~/.gemini) and talks to the Gemini API at $GOOGLE_GEMINI_BASE_URL.
//
// All knowledge of Gemini CLI lives in this package.
package gemini
