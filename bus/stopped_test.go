package bus_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
)

// memberEnv names, in a run of this test binary, the JSON of a cluster
// member to serve (memberSpec) instead of running the tests.
const memberEnv = "STEAD_BUS_TEST_MEMBER"

// memberSpec is a cluster member served by a process of its own.
type memberSpec struct {
	Key    bus.ClusterKey
	Node   string
	Listen string
	Routes []string
	Store  string
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(memberEnv); spec != "" {
		os.Exit(serveMember(spec))
	}
	os.Exit(m.Run())
}

// serveMember serves the member of spec until its standard input ends,
// saying "ready" on its standard output once it is up.
func serveMember(spec string) int {
	var s memberSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bus.New(ctx, bus.Options{StoreDir: s.Store, Listen: "127.0.0.1:0",
		Cluster: &bus.Cluster{Key: s.Key, Node: s.Node, Listen: s.Listen, Routes: s.Routes}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer b.Close()
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// memberProcess starts the member of spec in a process of its own (so
// that it can be stopped, as a machine's daemon can). The member is up
// once ready returns (a member waits for a majority of the cluster).
func memberProcess(t *testing.T, spec memberSpec) (cmd *exec.Cmd, ready func()) {
	t.Helper()
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), memberEnv+"="+string(data))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	up := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		up <- sc.Scan() && sc.Text() == "ready"
		io.Copy(io.Discard, stdout)
	}()
	return cmd, func() {
		t.Helper()
		select {
		case ok := <-up:
			if !ok {
				t.Fatalf("member %s did not start", spec.Node)
			}
		case <-time.After(time.Minute):
			t.Fatalf("member %s did not start within a minute", spec.Node)
		}
	}
}

// TestClusterWatchOutlivesAStoppedMember: a watch whose consumer lives on
// a member that is stopped (SIGSTOP: a machine asleep, a daemon paused;
// the cluster does not know it is gone for a minute or more) goes on,
// from a consumer on another member, within seconds. The client
// library's ordered consumer made its consumer again under the same
// name, which the cluster kept on the stopped member: the watch hung
// until the member came back.
func TestClusterWatchOutlivesAStoppedMember(t *testing.T) {
	key := newClusterKey(t, "watch")
	ports := freePorts(t, 3)
	procs := map[string]*exec.Cmd{}
	var ready []func()
	for i := 1; i < 3; i++ {
		node := fmt.Sprintf("node-%d", i)
		cmd, up := memberProcess(t, memberSpec{Key: key, Node: node, Listen: fmt.Sprintf("127.0.0.1:%d", ports[i]),
			Routes: routesOf(ports, i), Store: t.TempDir()})
		procs[node], ready = cmd, append(ready, up)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := bus.New(ctx, bus.Options{Logger: testLogger(t, 0), StoreDir: t.TempDir(), Listen: "127.0.0.1:0",
		Cluster: &bus.Cluster{Key: key, Node: "node-0", Listen: fmt.Sprintf("127.0.0.1:%d", ports[0]), Routes: routesOf(ports, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	for _, up := range ready {
		up()
	}
	const run = "watched"
	publishN(t, b, run, 0, 3)

	// A watch whose consumer is on another member's process (its
	// placement is the cluster's choice: watched again until it is).
	got := make(chan int, 64)
	var stop context.CancelFunc
	var watchErr chan error
	where := ""
	for try := 0; where == "" || where == "node-0"; try++ {
		if try == 10 {
			t.Fatalf("10 watches' consumers were all on node-0")
		}
		if stop != nil {
			stop()
			<-watchErr
		}
		var wctx context.Context
		wctx, stop = context.WithCancel(ctx)
		watchErr = make(chan error, 1)
		seen := make(chan int, 64)
		go func() {
			watchErr <- b.Watch(wctx, run, bus.FromStart, func(m bus.Msg) error {
				var e struct{ Line int }
				json.Unmarshal(m.Data, &e)
				seen <- e.Line
				return nil
			}, bus.Entry)
		}()
		for n := 0; n < 3; n++ {
			select {
			case <-seen:
			case <-time.After(30 * time.Second):
				t.Fatalf("the watch delivered %d of 3 entries", n)
			}
		}
		if where, err = bus.WatchMember(ctx, b); err != nil {
			t.Fatal(err)
		}
		got = seen
	}
	defer func() { stop(); <-watchErr }()

	if err := procs[where].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stoppedAt := time.Now()
	// Written through node-0 (a leader on the stopped member is chosen
	// again first: retried meanwhile).
	for i := 3; i < 6; i++ {
		for {
			pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
			err := b.Publish(pctx, run, bus.Entry, fmt.Appendf(nil, `{"line":%d}`, i), fmt.Sprintf("%s-%d", run, i))
			pcancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("publishing entry %d with %s stopped: %v", i, where, err)
			}
		}
	}
	written := time.Since(stoppedAt)
	for want := 3; want < 6; want++ {
		select {
		case line := <-got:
			if line != want {
				t.Fatalf("after %s stopped, the watch delivered entry %d; want %d", where, line, want)
			}
		case err := <-watchErr:
			t.Fatalf("the watch ended with %s stopped: %v", where, err)
		case <-time.After(30 * time.Second):
			t.Fatalf("the watch, its consumer on %s, delivered nothing for 30 s after %s was stopped (%s ago)",
				where, where, time.Since(stoppedAt).Round(time.Millisecond))
		}
	}
	t.Logf("%s, holding the watch's consumer, stopped: new entries written after %s, delivered by the watch after %s",
		where, written.Round(time.Millisecond), time.Since(stoppedAt).Round(time.Millisecond))
}
