package index

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// fakeNotifier watches nothing: it numbers the folders it is given.
type fakeNotifier struct{ wds int }

func (n *fakeNotifier) Add(string) (int, error) { n.wds++; return n.wds, nil }
func (n *fakeNotifier) Remove(int)              {}

// TestOverflowAnswersMarkedSyncs: when the system drops events, a sync
// whose marker may have been among them is not left waiting for it: it
// rides a full refresh, and is answered when that ends.
func TestOverflowAnswersMarkedSyncs(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w := &watcher{
		ctx: ctx, ix: ix, n: &fakeNotifier{}, markers: t.TempDir(), readyDone: true,
		start: make(chan map[string]bool, 1), changed: make(map[string]bool), marked: make(map[string]*syncReq),
		paths: make(map[string]int), wds: make(map[int]*watched),
	}
	if _, err := w.watch(w.markers, nil); err != nil { // as the loop does first
		t.Fatal(err)
	}
	s := &syncReq{done: make(chan watchReply, 1)}
	w.marked["1"] = s
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()

	w.heard(event{Overflow: true}, timer)
	select {
	case only := <-w.start:
		if only != nil {
			t.Errorf("after lost events, a refresh of %v; want all the stores", only)
		}
	default:
		t.Fatal("after lost events, a sync waiting for its marker started no refresh")
	}
	if len(w.marked) != 0 {
		t.Errorf("%d syncs still wait for their marker", len(w.marked))
	}
	w.refreshed(refreshResult{res: Refreshed{Sessions: 3, Added: 1}, lk: &looked{}}, timer)
	select {
	case r := <-s.done:
		if r.Result == nil || r.Result.Added != 1 {
			t.Errorf("the sync was answered %+v; want the refresh's result", r)
		}
	default:
		t.Error("the sync was not answered when its refresh ended")
	}
}
