package session

// ReadOptions change how a Builder keeps what it folds, for a session too
// large to hold: read once lean for its shape, then again, entry by entry,
// for its content (see Entry.WithContent).
type ReadOptions struct {
	// Lean leaves each entry's content out (see Entry.DropContent): the
	// session keeps its ids, links, times, statuses, usage and models, and
	// its memory no longer grows with what was said.
	Lean bool
	// Records, when set, is handed each native record that produced no
	// entry, in file order, instead of the session's Records keeping it.
	Records func(Record)
	// Limit, when above zero, is how many bytes of the session's file are
	// read, so that a second read of a file still being written sees the
	// same records.
	Limit int64
}

// DropContent leaves out what e says: its text, thinking, tool input and
// output, error, reasoning, attachments and native record. An empty tool
// input ({}) is kept. What is left is what the session is made of: ids,
// links, times, statuses, usage and models.
func (e *Entry) DropContent() {
	e.Content, e.Thinking, e.Output, e.Error = "", "", "", ""
	if len(e.Input) > 0 && string(e.Input) != string(emptyObject) {
		e.Input = nil
	}
	e.Reasoning, e.Attachments = nil, nil
	if e.Native != nil {
		n := *e.Native
		n.Record = nil
		e.Native = &n
	}
}

// WithContent returns e, an entry read lean, with the content of raw, the
// same entry as its decoder yields it on a second read: everything
// DropContent left out, as a Builder would have kept it. e itself is not
// changed.
func (e *Entry) WithContent(raw *Entry) Entry {
	out := *e
	out.Content, out.Thinking, out.Output, out.Error = raw.Content, raw.Thinking, raw.Output, raw.Error
	if len(raw.Input) > 0 {
		out.Input = raw.Input
	}
	out.Reasoning, out.Attachments = raw.Reasoning, raw.Attachments
	if e.Native != nil && raw.Native != nil {
		n := *e.Native
		n.Record = raw.Native.Record
		out.Native = &n
	}
	return out
}
