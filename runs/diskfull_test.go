package runs

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/testdisk"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// diskFullRun supervises the stand-in Codex with the bus's store on a
// small disk, and returns the bus, the run's id and a channel with what
// Run returned.
func diskFullRun(t *testing.T, records int, exit bool, drain time.Duration) (*bus.Bus, string, string, context.CancelFunc, chan error) {
	t.Helper()
	disk := testdisk.Small(t, "24m")
	root := t.TempDir()
	cli := filepath.Join(root, "codex")
	if err := os.WriteFile(cli, []byte(fakeCodex), 0o755); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	env := session.Env{Home: root, Vars: map[string]string{
		"HOME": root, "PATH": os.Getenv("PATH"), "CODEX_HOME": filepath.Join(root, ".codex"),
		"XDG_STATE_HOME":  filepath.Join(root, "state"),
		"STEAD_CODEX_BIN": cli, "RECORDS": strconv.Itoa(records), "DELAY": "0.05",
	}}
	if exit {
		env.Vars["EXIT"] = "1"
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("STEAD_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	b, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(disk, "nats"), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	sv := &Supervisor{Bus: b, Env: env, Log: log, Drain: drain}
	src := &session.Session{Source: session.Source{CLI: "claude", OriginalID: "s1"}, Timeline: []session.Entry{
		{ID: "u1", Type: session.User, Content: "Start the work"},
	}}
	id := "diskfull-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		rec, err := sv.Run(ctx, src, Spec{ID: id, To: "codex", Dir: proj}, nil, nil)
		if err == nil && rec.State != live.RunExited {
			err = errors.New("ended " + string(rec.State) + ": " + rec.Reason)
		}
		if err != nil && rec.Reason != "" && !strings.Contains(err.Error(), rec.Reason) {
			err = errors.New(err.Error() + " (" + rec.Reason + ")")
		}
		done <- err
	}()
	return b, id, disk, cancel, done
}

func waitCount(t *testing.T, n interface{ Load() int64 }, want int64, within time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d entries on the bus after %s", what, n.Load(), want, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunDiskFull fills the disk holding the bus's store in the middle of
// a run, then frees it: the run goes on, and every entry the CLI wrote
// reaches the bus and the stored session, none lost, none twice.
func TestRunDiskFull(t *testing.T) {
	const records = 120
	b, id, disk, stop, done := diskFullRun(t, records, false, 0)
	count := countEntries(context.Background(), b, id)
	waitCount(t, count, 20, time.Minute, "before the disk filled")
	free := testdisk.Fill(t, disk)
	time.Sleep(3 * time.Second) // the CLI writes on; the bus stores nothing
	during := count.Load()
	free()
	waitCount(t, count, records, 2*time.Minute, "after the disk was freed")
	if during >= records {
		t.Fatalf("all %d entries were stored while the disk was full: the test filled nothing", during)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("the run: %v", err)
	}
	rd, err := b.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var s session.Session
	if err := json.NewDecoder(rd).Decode(&s); err != nil {
		t.Fatal(err)
	}
	rd.Close()
	var got []string
	for _, e := range s.Timeline {
		if e.Type == session.Assistant {
			got = append(got, e.Content)
		}
	}
	if len(got) != records {
		t.Fatalf("the stored session has %d answers, want %d", len(got), records)
	}
	for i, g := range got {
		if want := "answer " + strconv.Itoa(i); g != want {
			t.Fatalf("answer %d is %q, want %q", i, g, want)
		}
	}
	t.Logf("%d of %d entries were stored while the disk was full; all %d after it was freed", during, records, records)
}

// TestRunDiskStaysFull: a disk that stays full until the run is over
// loses entries, and the run says so and which, instead of succeeding.
func TestRunDiskStaysFull(t *testing.T) {
	const records = 60
	b, id, disk, _, done := diskFullRun(t, records, true, 2*time.Second)
	count := countEntries(context.Background(), b, id)
	waitCount(t, count, 10, time.Minute, "before the disk filled")
	free := testdisk.Fill(t, disk)
	defer free()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end within 2 minutes of its CLI")
	}
	if err == nil || !errors.Is(err, ErrRunFailed) || !strings.Contains(err.Error(), "could not store") {
		t.Fatalf("the run ended with %v, want it failed, saying entries were lost", err)
	}
	t.Log(err)
}
