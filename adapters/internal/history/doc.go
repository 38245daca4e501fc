// Package history tells, in the summary of a session stead wrote from
// another session's history (a conversion, fork, A/B arm, chain step or
// template), that copied history from what happened in the session
// itself, the same way for every adapter's summarizer.
//
// A written session records its provenance (session.Origin) with the
// time stead wrote it. Every record stead wrote carries the history's own
// time, at or before then; what the target CLI appends later is the
// session's own. A summarizer hands Split the provenance when it reads it
// and every record's time before counting the record; Finish then moves
// the history's usage to Borrowed under the source's key, takes its
// turns, tool calls, errors and files back, and makes the summary's
// times the session's own.
//
// It is not a decoder: the full decoders keep every copied entry with its
// history time.
package history
