// Package toolarg reads universal tool arguments (session.Arg*) the way
// every adapter's ToolCall should: a number is a number whatever Go type
// holds it. Arguments read from JSON are float64, but a Go caller (a
// scenario, a test, the model stub) may pass an int, an int64 or a
// json.Number; reading only float64 drops those silently.
//
// This package is internal to the adapters; it knows nothing of any CLI.
package toolarg
