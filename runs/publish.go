package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// runPublisher puts a capture's output on the bus. What the bus cannot
// store (its disk is full, its server restarts) is retried with backoff
// until it can, the capture waiting meanwhile (the CLI's session file
// holds what is not read yet); only once giveUp ends is it counted lost,
// and the run says so.
type runPublisher struct {
	b        *bus.Bus
	run      string
	log      *slog.Logger
	drain    time.Duration // how long what could not be stored is retried after the run
	onStatus func(live.Status)
	giveUp   context.Context
	// fenced reports that the run's lease is lost: another worker owns
	// the run, and nothing more is published.
	fenced func() bool
	// quiet reports that the run is being handed to another worker: the
	// states of its CLI quitting are not the run's, and are not
	// published (its entries are, up to the last).
	quiet func() bool
	// epoch tells this worker's messages from those of the workers that
	// ran the run before it (their ids would be taken for duplicates).
	epoch string
	// retyped is a prompt typed again after a failover: the first user
	// entry holding it is on the bus already, and is not published again.
	retyped string
	skipped atomic.Int32

	mu sync.Mutex // guards the run record onStatus updates

	failing      atomic.Bool // the last publish failed
	gaveUp       atomic.Bool // what could not be stored is given up
	lostMu       sync.Mutex
	lostEntries  []string // ids of entries given up
	lostNative   int      // native records given up
	droppedBytes atomic.Int64
}

// publishTimeout bounds one attempt to store a message.
const publishTimeout = 10 * time.Second

// publishDrain is how long a run that ended goes on retrying what the bus
// could not store, unless Supervisor.Drain says otherwise.
const publishDrain = 2 * time.Minute

// retry calls publish until it succeeds or giveUp ends.
func (p *runPublisher) retry(what string, publish func(ctx context.Context) error) error {
	delay := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(p.giveUp, publishTimeout)
		err := publish(ctx)
		cancel()
		if err == nil {
			if p.failing.Swap(false) {
				p.log.Warn("the bus stores the run's messages again")
			}
			return nil
		}
		if !p.failing.Swap(true) {
			p.log.Warn("the bus cannot store the run's messages; retrying until it can", "what", what, "err", err)
		}
		select {
		case <-p.giveUp.Done():
			if !p.gaveUp.Swap(true) {
				p.log.Error("the bus cannot store the run's messages: giving up what is left", "what", what, "err", err)
			}
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// Terminal publishes terminal output without waiting. While the bus fails
// it is dropped (the terminal stream keeps only the latest output anyway),
// so that a CLI's screen is never slowed by it.
func (p *runPublisher) Terminal(data []byte) error {
	if p.fenced != nil && p.fenced() {
		return nil
	}
	if p.failing.Load() {
		p.droppedBytes.Add(int64(len(data)))
		return nil
	}
	return p.b.PublishTerminal(p.run, data)
}

func (p *runPublisher) Native(line []byte, n int) error {
	if p.fenced != nil && p.fenced() {
		return nil
	}
	err := p.retry("storing a native record", func(ctx context.Context) error {
		return p.b.Publish(ctx, p.run, bus.Native, line, fmt.Sprintf("%s:%sn%d", p.run, p.epoch, n))
	})
	if err != nil {
		// Counted, and said when the run ends.
		p.lostMu.Lock()
		p.lostNative++
		p.lostMu.Unlock()
	}
	return nil
}

func (p *runPublisher) Entry(ev session.Event) error {
	if p.fenced != nil && p.fenced() {
		return nil
	}
	if p.retyped != "" && p.skipped.Load() == 0 {
		for i, e := range ev.Entries {
			if e.Type == session.User && strings.Contains(e.Content, strings.TrimSpace(p.retyped)) {
				ev.Entries = append(ev.Entries[:i:i], ev.Entries[i+1:]...)
				p.skipped.Store(1)
				break
			}
		}
		if len(ev.Entries) == 0 && len(ev.Updates) == 0 && ev.Info == nil {
			return nil
		}
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	id := ""
	if len(ev.Entries) > 0 {
		id = p.run + ":e:" + p.epoch + ev.Entries[0].ID
	}
	err = p.retry("storing an entry", func(ctx context.Context) error {
		return p.b.Publish(ctx, p.run, bus.Entry, data, id)
	})
	if err != nil {
		p.lostMu.Lock()
		for _, e := range ev.Entries {
			p.lostEntries = append(p.lostEntries, e.ID)
		}
		for _, u := range ev.Updates {
			p.lostEntries = append(p.lostEntries, "an update of "+u.EntryID)
		}
		p.lostMu.Unlock()
	}
	return nil // counted, and said when the run ends
}

func (p *runPublisher) Status(st live.Status) error {
	if p.fenced != nil && p.fenced() || p.quiet != nil && p.quiet() {
		return nil
	}
	data, _ := json.Marshal(st)
	p.retry("storing a state", func(ctx context.Context) error {
		return p.b.Publish(ctx, p.run, bus.Status, data, "")
	})
	if p.onStatus != nil {
		p.onStatus(st)
	}
	return nil // the final state is in the run's record, stored however long it takes
}

// lost says what the bus never stored, for the run's reason; "" when
// nothing was lost.
func (p *runPublisher) lost() string {
	p.lostMu.Lock()
	defer p.lostMu.Unlock()
	if len(p.lostEntries) == 0 && p.lostNative == 0 {
		return ""
	}
	ids := p.lostEntries
	if len(ids) > 20 {
		ids = append(ids[:20:20], fmt.Sprintf("and %d more", len(ids)-20))
	}
	msg := fmt.Sprintf("the bus could not store %d entries and %d native records within %s of the run's end (is the disk holding it full?)",
		len(p.lostEntries), p.lostNative, p.drain)
	if len(ids) > 0 {
		msg += "; lost: " + strings.Join(ids, ", ")
	}
	return msg
}

func PutRun(b *bus.Bus, r live.Run, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if err := b.PutRun(ctx, r); err != nil {
		log.Warn("storing the run record", "err", err)
	}
}

// StoreSession stores the whole universal session of a run: the history
// it started from, then the entries the run added (read back from the
// bus, so a run holds none in memory), each marked with the CLI that
// produced it.
// It returns how many entries the run added.
func StoreSession(b *bus.Bus, id string, history *session.Session, cli, path string) (int, error) {
	sctx, cancel := context.WithTimeout(context.Background(), storeWait)
	defer cancel()
	added, err := capturedEntries(sctx, b, id, cli, path)
	if err != nil {
		return 0, err
	}
	whole := joined(history, added)
	data, err := json.Marshal(whole)
	if err != nil {
		return 0, err
	}
	return len(added), b.PutSession(sctx, id, bytes.NewReader(data))
}

// capturedEntries are the entries the bus captured of run id, whose CLI
// wrote them at path.
func capturedEntries(ctx context.Context, b *bus.Bus, id, cli, path string) ([]session.Entry, error) {
	build := session.NewBuilder(cli, path)
	err := b.Replay(ctx, id, bus.Entry, func(m bus.Msg) error {
		var ev session.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			return fmt.Errorf("entry message %d: %w", m.Seq, err)
		}
		build.Add(ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return build.Session().Timeline, nil
}

// joined is history followed by added, without native records: the
// session of a run.
func joined(history *session.Session, added []session.Entry) *session.Session {
	whole := *history
	whole.Timeline = append(append([]session.Entry(nil), history.Timeline...), added...)
	for i := range whole.Timeline[:len(history.Timeline)] {
		if whole.Timeline[i].CLI == "" {
			whole.Timeline[i].CLI = history.Source.CLI
		}
	}
	whole.Records = nil
	return &whole
}

// HistoryObject names the stored session a run starts from.
func HistoryObject(run string) string { return "source-" + run }

// putHistory stores the session a run starts from, without its native
// records, encoded as it is sent.
func putHistory(ctx context.Context, b *bus.Bus, run string, s *session.Session) error {
	lean := *s
	lean.Records = nil
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(session.Encode(pw, &lean, false)) }()
	err := b.PutSession(ctx, HistoryObject(run), pr)
	pr.CloseWithError(err)
	return err
}
