// Package kimi knows Moonshot's Kimi Code (npm @moonshot-ai/kimi-code,
// measured on 2.1.0; it needs Node 22.19 or later): how to run it offline
// against a model server, and its tool names. Its session reader, and the
// legacy kimi-cli's, come with the readers for the other CLIs.
//
// Kimi Code keeps its state under $KIMI_CODE_HOME (default ~/.kimi-code)
// and can take its whole model from KIMI_MODEL_* environment variables.
//
// All knowledge of Kimi lives in this package.
package kimi
