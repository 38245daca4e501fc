// Package jsonl reads JSON Lines the way stead's adapters need: any line
// length, bad lines reported with their number and skipped, and a fast path
// that never holds a whole record in memory.
//
// Reader yields whole lines (its buffer grows to the longest line) for
// decoders that build a full session. Scanner is a pull parser over a fixed
// window: it walks the structure of each record, hands out the few values a
// caller asks for, and skips everything else at memchr speed, so listing and
// totalling sessions costs memory independent of record size. Because a raw
// newline can never occur inside a JSON string, a newline always ends a
// record: a truncated or malformed record costs exactly its own line.
//
// A last line without its newline that does not parse is an incomplete
// record (Reader.Partial, Scanner.Partial). In a file modified within
// GrowingWindow it is a record still being written, and is skipped
// without a word (Record.Report, SkipFailed); in a file that has stayed
// as it is, or in a stream, it is reported as cut short (Incomplete).
//
// This package is internal to the adapters; it knows nothing of any CLI.
package jsonl
