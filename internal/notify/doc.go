// Package notify is the system's notification of changes in folders
// (inotify on Linux), for the search index's watcher and the control
// room's live sessions. Elsewhere New fails with errors.ErrUnsupported,
// and its callers fall back to reading again when asked.
package notify

// Event is one change a notifier heard.
type Event struct {
	WD       int    // the watch of the folder it happened in
	Name     string // the name in the folder, if any
	Created  bool   // Name was made in the folder
	Ignored  bool   // the watch is gone
	Overflow bool   // events were lost
}
