// Package safetext makes untrusted text safe to print: for a terminal, with
// the control characters that a session could use to drive it (escape
// sequences, OSC 52 clipboard writes, title changes, bells) shown as
// visible escapes; and for a shell, quoted so that no character of it is
// interpreted when the line is pasted.
//
// Every session file and every session text is untrusted: a prompt, a tool
// output, a project directory or a title can hold any bytes. What stead
// prints for a person goes through Terminal or a Writer; what it prints
// for a shell goes through Quote. Machine output (JSON, where encoding
// escapes control characters, and exports) is not its business. Clip and
// ClipLine bound how much of a long text goes into a line or a message.
//
// It imports only the standard library.
package safetext
