// Package jsonread is a single-pass JSON reader for records whose types
// read their own members (Object), several times faster than
// encoding/json: it checks the syntax while it reads, reads each member
// straight into its field (json.RawMessage fields are slices of the
// input, not copies) and skips what no field wants.
//
// It reads only what encoding/json reads the same way, and gives up on
// anything else: invalid UTF-8, a key that matches a field only when case
// is ignored, a key given twice, a key with escapes, a value of a type its
// field cannot hold, a number its field cannot hold, or invalid JSON. The
// caller then reads the input again with encoding/json, which decides what
// it holds and says what is wrong with it, so behaviour never differs.
//
// The gemini and kimi adapters use it; their record types implement
// Object. It differs from adapters/internal/fastjson, a pull parser that
// its callers walk token by token: here the records are read by callbacks
// and a Parser gives up by unwinding (a panic that Parse recovers).
//
// This package is internal to the adapters; it knows nothing of any CLI.
package jsonread
