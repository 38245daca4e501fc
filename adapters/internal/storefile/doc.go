// Package storefile opens the files of a CLI's store for reading, and only
// those that are regular files (or symbolic links to one). Anything else
// where a session file should be (a folder, a named pipe, a socket, a
// device) is reported, never opened: opening a named pipe blocks until
// some process writes to it, and a device could be anything.
//
// This package is internal to the adapters; it knows nothing of any CLI.
package storefile
