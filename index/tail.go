package index

import (
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// A watcher reads a session file a CLI appends to from where it left off:
// it keeps the file's decoder (a tail) once the file has changed under
// it, paused where the file ended, and on the next change hands it what
// was appended, and nothing else. A tail is kept only when what it read
// of the whole file is what a full read gives (entry for entry, row for
// row), and used only while the file is as the tail left it: the same
// inode, no shorter, its bytes before where the tail stopped unchanged,
// and the index holding what the tail last gave it. Anything else is a
// full read, as without a watcher.
//
// What list and stats show of the session (its summary) is still taken
// from the whole file, by the adapter's summarizer (a scan at GB/s, not
// a decode).

// tailMin is the smallest file kept a tail of: a smaller one is read
// again in a few milliseconds.
var tailMin int64 = 1 << 20

// maxTails is how many tails a watcher keeps (the files appended to most
// recently): each holds its session's indexed text.
const maxTails = 8

// tailCheck is how many bytes before where a tail stopped must be as they
// were for the tail to go on (a file rewritten in place to a larger size
// is read whole).
const tailCheck = 256

// tails are the tails a watcher keeps, most recently used first.
type tails struct {
	mu    sync.Mutex
	byKey map[string]*list.Element // path → *tail
	lru   list.List
}

func newTails() *tails { return &tails{byKey: make(map[string]*list.Element)} }

// take takes the tail of path out of the set (a refresh's worker owns it
// until put back); nil when there is none.
func (ts *tails) take(path string) *tail {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	el, ok := ts.byKey[path]
	if !ok {
		return nil
	}
	delete(ts.byKey, path)
	ts.lru.Remove(el)
	return el.Value.(*tail)
}

// put keeps t, closing the least recently used tail beyond maxTails.
func (ts *tails) put(t *tail) {
	ts.mu.Lock()
	if old, ok := ts.byKey[t.path]; ok {
		ts.lru.Remove(old)
		defer old.Value.(*tail).close()
	}
	ts.byKey[t.path] = ts.lru.PushFront(t)
	var gone []*tail
	for ts.lru.Len() > maxTails {
		el := ts.lru.Back()
		ts.lru.Remove(el)
		t := el.Value.(*tail)
		delete(ts.byKey, t.path)
		gone = append(gone, t)
	}
	ts.mu.Unlock()
	for _, t := range gone {
		t.close()
	}
}

// close closes every tail.
func (ts *tails) close() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for el := ts.lru.Front(); el != nil; el = el.Next() {
		el.Value.(*tail).close()
	}
	ts.lru.Init()
	ts.byKey = make(map[string]*list.Element)
}

// tail is a session file's decoder, paused where the file ended: its
// goroutine blocks reading past what it was handed until handed more, or
// closed.
type tail struct {
	path string
	f    *os.File
	r    *tailReader
	evs  chan session.Event
	// stopped is closed when the decoder's goroutine ends, with err:
	// the decoder's error, or io.EOF once the tail is closed.
	stopped chan struct{}
	err     error
	rowSet
	warns []session.Warning
	// fp is the file as the tail left it, and as the index holds it.
	fp fingerprint
	// check is the file's last bytes before fp.size.
	check []byte
	// handed is how many rows the index was last given (and holds).
	handed int
}

// newTail starts a tail of the file at path with a's decoder, at its
// start.
func newTail(a adapters.Adapter, path string, pk *packer) (*tail, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	t := &tail{path: path, f: f, r: newTailReader(f), evs: make(chan session.Event), stopped: make(chan struct{}),
		rowSet: rowSet{a: a, pk: pk, ids: new(session.IDs)}}
	dec := a.NewDecoder(t.r)
	go func() {
		defer close(t.stopped)
		defer func() {
			if p := recover(); p != nil { // as readSafely's
				t.err = fmt.Errorf("reading it failed: panic: %v", p)
			}
		}()
		for {
			ev, err := dec.Decode()
			if err != nil {
				t.err = err
				return
			}
			select {
			case t.evs <- ev:
			case <-t.r.done:
				t.err = io.EOF
				return
			}
		}
	}()
	return t, nil
}

// errTailEnded says a tail's decoder stopped short of the end it was
// handed (it failed, or took the end for the file's).
var errTailEnded = errors.New("index: the file's decoder ended")

// advance hands the decoder the file up to size and takes the events it
// makes of it; it returns once the decoder waits for more.
func (t *tail) advance(size int64) error {
	idle := t.r.extend(size)
	for {
		select {
		case ev := <-t.evs:
			if ev.Warning != nil {
				w := *ev.Warning
				if w.Path == "" {
					w.Path = t.path
				}
				t.warns = append(t.warns, w)
			}
			t.add(ev, nil)
		case <-idle:
			return nil
		case <-t.stopped:
			if t.err == nil || errors.Is(t.err, io.EOF) {
				return errTailEnded
			}
			return fmt.Errorf("%s: %w", t.path, t.err)
		}
	}
}

// mark records the file as the tail leaves it: fp, and its last bytes.
func (t *tail) mark(fp fingerprint) error {
	n := min(fp.size, tailCheck)
	t.check = make([]byte, n)
	if _, err := t.f.ReadAt(t.check, fp.size-n); err != nil {
		return err
	}
	t.fp = fp
	return nil
}

// fits reports whether the file, now fp, is the one the tail left, and
// only appended to since (held is what the index holds of it).
func (t *tail) fits(fp, held fingerprint) bool {
	if held != t.fp || fp.inode != t.fp.inode || fp.inode == 0 || fp.size < t.fp.size {
		return false
	}
	got := make([]byte, len(t.check))
	if _, err := t.f.ReadAt(got, t.fp.size-int64(len(got))); err != nil {
		return false
	}
	return bytes.Equal(got, t.check)
}

// readTail reads a session for the index (as read) through the tail the
// watcher keeps of its file when the file was only appended to since the
// tail left it (held is what the index holds of it): its entries from
// what was appended alone. Otherwise it reads it whole, and keeps a tail
// of its file for the next append (when its tail reads what read does).
// A session new to the index is read whole, with no tail: a tail is for
// a file that changes again and again.
func (ix *Index) readTail(env session.Env, a adapters.Adapter, ref session.Ref, fp, held fingerprint, update bool) (doc *indexed, appended bool, err error) {
	ts := ix.tails
	if ts == nil || !update || a.NewDecoder == nil || fp.size < tailMin || fp.inode == 0 {
		doc, err := read(env, a, ref, ix.dicts.packer())
		return doc, false, err
	}
	if t := ts.take(ref.Path); t != nil {
		if doc, ok := t.next(a, ref, fp, held); ok {
			ts.put(t)
			return doc, true, nil
		}
		t.close()
	}
	pk := ix.dicts.packer()
	doc, err = read(env, a, ref, pk)
	if err != nil {
		return nil, false, err
	}
	if t, err := newTail(a, ref.Path, pk); err == nil {
		if t.advance(fp.size) == nil && sameRows(t.rows, doc.rows) && t.mark(fp) == nil {
			t.handed, t.changed = len(t.rows), len(t.rows)
			ts.put(t)
		} else {
			t.close()
		}
	}
	return doc, false, nil
}

// next is the session's document when the file, now fp, was only
// appended to since the tail left it.
func (t *tail) next(a adapters.Adapter, ref session.Ref, fp, held fingerprint) (*indexed, bool) {
	if !t.fits(fp, held) || t.advance(fp.size) != nil {
		return nil, false
	}
	doc, err := summarize(a, ref)
	if err != nil || t.mark(fp) != nil {
		return nil, false
	}
	doc.rows = append([]row(nil), t.rows...)
	doc.warns = append([]session.Warning(nil), t.warns...)
	doc.held = min(t.handed, t.changed)
	t.handed, t.changed = len(t.rows), len(t.rows)
	return doc, true
}

// sameRows reports whether a and b hold the same entries' rows.
func sameRows(a, b []row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.entry != y.entry || !x.time.Equal(y.time) || x.role != y.role || x.tool != y.tool || x.model != y.model || x.text != y.text {
			return false
		}
	}
	return true
}

// close stops the tail's decoder and closes its file.
func (t *tail) close() {
	t.r.close()
	<-t.stopped
	t.f.Close()
}

// tailReader reads a file up to the end it was handed (extend), and waits
// there for more until closed.
type tailReader struct {
	f    *os.File
	mu   sync.Mutex
	cond *sync.Cond
	pos  int64
	end  int64
	// idle is signalled when a Read waits at end.
	idle   chan struct{}
	closed bool
	done   chan struct{} // closed by close
}

func newTailReader(f *os.File) *tailReader {
	r := &tailReader{f: f, idle: make(chan struct{}, 1), done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// extend hands the reader the file up to end; the channel it returns is
// signalled once a Read waits at end (every byte before it was read, and
// what the decoder made of them taken).
func (r *tailReader) extend(end int64) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.idle: // a wait at the old end
	default:
	}
	r.end = max(r.end, end)
	r.cond.Broadcast()
	return r.idle
}

func (r *tailReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.pos >= r.end && !r.closed {
		select {
		case r.idle <- struct{}{}:
		default:
		}
		r.cond.Wait()
	}
	if r.closed {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > r.end-r.pos {
		n = r.end - r.pos
	}
	got, err := r.f.ReadAt(p[:n], r.pos)
	r.pos += int64(got)
	if err == io.EOF && got > 0 {
		err = nil
	}
	if err == io.EOF {
		// The file is shorter than it was said to be (cut under us):
		// the decoder ends, and the tail with it.
		return 0, io.ErrUnexpectedEOF
	}
	return got, err
}

func (r *tailReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.done)
		r.cond.Broadcast()
	}
}
