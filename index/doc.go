// Package index is stead's search index: a SQLite database (the pure-Go
// modernc.org/sqlite) under $XDG_CACHE_HOME/stead/ holding, for every
// session of every CLI's store the environment points at, what `list` and
// `stats` show of it, and the text of its entries, searchable through a
// full-text index of stead's own: segment files beside the database, each
// the words of the entries one transaction wrote, gathered on another core
// as the writer writes them, and merged in the background (ftbuild.go,
// ftseg.go, ftmatch.go, ftindex.go).
//
// Refresh brings it up to date without rescanning: it lists each store
// (the adapters' Discover), compares every session with what the index
// holds of it (size, modification time and inode of its file; a database
// session by the time its rows were updated), reads only the sessions that
// changed, and drops those that are gone, each session in a transaction of
// its own so that an interrupted refresh leaves a usable index. Search
// answers a query (words, "phrases", prefix*, OR, -exclusion; see
// ParseQuery) with filters, ranked by relevance and recency.
//
// What is indexed, per entry: a prompt's and a reply's text, thinking (as
// entries of role thinking), a tool call's tool and key input (command,
// path, pattern, URL, query; the raw input otherwise), a tool result's
// output and error. Each entry's indexed text is cut at MaxEntryText; the
// native records, attachments and encrypted reasoning are not indexed.
//
// Watch keeps the index fresh from inotify, and reads a file a CLI keeps
// appending to from where it left off (a tail: the file's decoder, paused
// where the file ended; tail.go). A RunFeed writes a live run's entries as
// its bus carries them (runs.go), for the daemon, so that a run is found
// wherever it runs; a store's copy of the same session replaces the run's.
//
// An index written by another schema version is rebuilt, never misread; a
// file SQLite cannot read is moved aside with a warning and rebuilt. Its
// files are the user's alone (0600, its folder 0700).
package index
