package runs

import (
	"context"
	"io"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Imported is a session read from an exported file, to store as a
// finished run: whole, or (a large file read in two passes) its meta with
// its entries and native records read as they are stored.
type Imported struct {
	Session *session.Session
	Entries session.Entries // nil: Session.Timeline
	Records session.Records // nil: Session.Records
	// N is the number of its entries.
	N int
}

// Import stores an imported session on the bus as a run that has ended,
// so that show, resume and fork take it as run:<id>; from says where it
// came from (the run's reason). It returns the run's record.
func (sv *Supervisor) Import(ctx context.Context, in Imported, from string) (live.Run, error) {
	id := NewID()
	s := in.Session
	entries := in.Entries
	if entries == nil {
		entries = session.EntriesOf(s.Timeline)
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		pw.CloseWithError(session.EncodeStream(pw, s, entries, in.Records, false))
	}()
	err := sv.Bus.PutSession(ctx, id, pr)
	pr.CloseWithError(err)
	<-done
	if err != nil {
		return live.Run{}, err
	}
	host := sv.host()
	rec := live.Run{ID: id, CLI: s.Source.CLI, SessionID: s.ID, Host: host, Supervisor: SupervisorName(host),
		State: live.RunExited, Reason: "imported from " + from, Entries: in.N,
		Started: s.Metadata.Created, Ended: time.Now().UTC()}
	PutRun(sv.Bus, rec, sv.logger())
	return rec, nil
}
