package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/daemon"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// member is one stead daemon of a cluster on loopback, with a home and a
// state of its own, as on a machine of its own.
type member struct {
	name  string
	env   []string
	state string
	cmd   *exec.Cmd
	log   string
	// exited is closed when the daemon has exited (waitErr: how); wait
	// for it rather than calling cmd.Wait.
	exited  chan struct{}
	waitErr error
}

// wait waits for the member's daemon to exit.
func (m *member) wait() { <-m.exited }

// steadCluster starts n stead daemons forming a NATS cluster on loopback
// (stead serve --cluster-key), each with its own home and state.
func steadCluster(t *testing.T, bin string, n int) (string, []*member) {
	return steadClusterOf(t, bin, n, nil)
}

// steadClusterOf is steadCluster with the environment of each member:
// envOf(i), or else one with a home and state of its own, the first two
// with the example sessions.
func steadClusterOf(t *testing.T, bin string, n int, envOf func(i int) []string) (string, []*member) {
	t.Helper()
	dir := t.TempDir()
	key := filepath.Join(dir, "cluster.key")
	if out, err := exec.Command(bin, "serve", "cluster-key", key, "--name", "e2e").CombinedOutput(); err != nil {
		t.Fatalf("stead serve cluster-key: %v\n%s", err, out)
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STEAD_NATS_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			base = append(base, kv)
		}
	}
	ms := make([]*member, n)
	for i := range n {
		m := &member{name: fmt.Sprintf("node-%d", i), state: filepath.Join(dir, fmt.Sprintf("state-%d", i))}
		home := filepath.Join(dir, fmt.Sprintf("home-%d", i))
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		m.env = append(append([]string(nil), base...), "HOME="+home, "XDG_STATE_HOME="+m.state, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
		if envOf != nil {
			m.env = append(envOf(i), "XDG_STATE_HOME="+m.state)
		} else if i < 2 { // the first two machines have the example sessions; the third none
			root := clitest.Root(t)
			m.env = append(m.env, "CLAUDE_CONFIG_DIR="+filepath.Join(root, "examples", "claude"), "CODEX_HOME="+filepath.Join(root, "examples", "codex"))
		}
		ms[i] = m
	}
	// The members listen on ports found free, then let go; another
	// process can take one meanwhile. A member that could not listen
	// exits at once ("address already in use"): the cluster is formed
	// again on other ports.
	for try := 1; ; try++ {
		taken := startCluster(t, bin, key, ms)
		if taken == "" {
			return key, ms
		}
		if try == 3 {
			t.Fatalf("%s could not listen on the port it was given, three times", taken)
		}
		t.Logf("%s could not listen on the port it was given; forming the cluster on other ports", taken)
		for _, m := range ms {
			m.cmd.Process.Signal(syscall.SIGTERM)
			m.wait()
		}
	}
}

// startCluster starts ms on ports found free, each routed to the others,
// and waits for each to come up; it returns the name of a member that
// could not listen on its port, "" when all came up.
func startCluster(t *testing.T, bin, key string, ms []*member) string {
	t.Helper()
	var ports []int
	var held []net.Listener
	for range ms {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		held = append(held, l)
	}
	for _, l := range held {
		l.Close()
	}
	for i, m := range ms {
		var routes []string
		for j, p := range ports {
			if j != i {
				routes = append(routes, fmt.Sprintf("127.0.0.1:%d", p))
			}
		}
		m.start(t, bin, key, fmt.Sprintf("127.0.0.1:%d", ports[i]), routes)
	}
	for _, m := range ms {
		if _, err := m.up(); err != nil {
			if data, _ := os.ReadFile(m.log); strings.Contains(string(data), "address already in use") {
				return m.name
			}
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	return ""
}

func (m *member) start(t *testing.T, bin, key, listen string, routes []string) {
	t.Helper()
	m.cmd = exec.Command(bin, "serve", "-v", "--web", "off", "--index", "off", "--cluster-key", key, "--node", m.name,
		"--cluster-listen", listen, "--routes", strings.Join(routes, ","))
	m.cmd.Env = m.env
	m.log = filepath.Join(t.TempDir(), m.name+".log")
	logf, err := os.Create(m.log)
	if err != nil {
		t.Fatal(err)
	}
	m.cmd.Stdout, m.cmd.Stderr = logf, logf
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmd, exited := m.cmd, make(chan struct{})
	m.exited = exited
	go func() {
		m.waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		logf.Close()
		if t.Failed() {
			data, _ := os.ReadFile(m.log)
			// Without the route retries of a member whose peers
			// have gone: they would fill the tail.
			var kept []string
			for _, l := range strings.Split(string(data), "\n") {
				if !strings.Contains(l, "Error trying to connect to route") {
					kept = append(kept, l)
				}
			}
			daemonLog(t, m.name, strings.Join(kept, "\n"), 12000)
		}
	})
}

// info waits for the member's daemon to publish itself.
func (m *member) info(t *testing.T) daemon.Info {
	t.Helper()
	info, err := m.up()
	if err != nil {
		t.Fatalf("%s: %v", m.name, err)
	}
	return info
}

// up waits for the member's daemon to publish itself, or to exit.
func (m *member) up() (daemon.Info, error) {
	env := session.Env{Vars: map[string]string{}}
	for _, kv := range m.env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env.Vars[k] = v
		}
	}
	env.Home = env.Vars["HOME"]
	deadline := time.After(2 * time.Minute)
	for {
		info, err := daemon.Read(env)
		if err == nil && info.PID == m.cmd.Process.Pid {
			return info, nil
		}
		select {
		case <-m.exited:
			return daemon.Info{}, fmt.Errorf("the daemon exited before it came up (%v)", m.waitErr)
		case <-deadline:
			return daemon.Info{}, fmt.Errorf("the daemon did not come up: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stead runs a stead command as a client of the member's daemon.
func (m *member) stead(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = m.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: stead %s: %v\n%s%s", m.name, strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

// TestClusterOfThreeDaemons: three stead daemons form a NATS cluster, each
// on its own state; a run written through one member is seen, with every
// entry, through the others; when that member is killed (SIGKILL), the two
// left still hold it all and take new entries, and the stead commands of
// their machines read it through their own daemon.
func TestClusterOfThreeDaemons(t *testing.T) {
	bin := steadBinary(t)
	key, ms := steadCluster(t, bin, 3)
	infos := make([]daemon.Info, len(ms))
	for i, m := range ms {
		infos[i] = m.info(t)
		if infos[i].ClusterKey == "" || infos[i].Node != m.name {
			t.Errorf("%s published %+v; want its cluster key and node", m.name, infos[i])
		}
	}
	k, err := bus.ReadClusterKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dial := func(i int) *bus.Bus {
		b, err := bus.New(ctx, bus.Options{URL: infos[i].URL, Key: &k, Bind: true})
		if err != nil {
			t.Fatalf("%s: %v", ms[i].name, err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	// Every machine's sessions, asked from the one that has none.
	local := listJSON(t, ms[0].stead(t, bin, "session", "list", "--json"))
	if len(local.Sessions) == 0 {
		t.Fatal("the first machine lists no sessions of its own")
	}
	all := listJSON(t, ms[2].stead(t, bin, "session", "list", "--hosts", "all", "--json"))
	byHost := map[string]int{}
	for _, s := range all.Sessions {
		byHost[s.Host]++
	}
	if byHost["node-0"] != len(local.Sessions) || byHost["node-1"] != len(local.Sessions) || len(byHost) != 2 {
		t.Errorf("--hosts all from node-2 listed %v; want node-0 and node-1 with %d sessions each", byHost, len(local.Sessions))
	}
	// A session of another machine, read through the bus.
	first := local.Sessions[0]
	var shown struct {
		ID     string `json:"id"`
		Source struct {
			CLI string `json:"cli"`
		} `json:"source"`
		Timeline []json.RawMessage `json:"timeline"`
	}
	ref := "node-0:" + first.CLI + ":" + first.ID
	if err := json.Unmarshal(ms[2].stead(t, bin, "session", "show", ref, "--json"), &shown); err != nil {
		t.Fatalf("stead session show %s --json: %v", ref, err)
	}
	if shown.ID != first.ID || shown.Source.CLI != first.CLI || len(shown.Timeline) == 0 {
		t.Errorf("stead session show %s on node-2 gave session %s of %s with %d entries", ref, shown.ID, shown.Source.CLI, len(shown.Timeline))
	}
	// Every machine searched, each its own index: node-0 has one.
	ms[0].stead(t, bin, "index")
	var found struct {
		Hits []struct {
			Host    string `json:"host"`
			CLI     string `json:"cli"`
			Session string `json:"session"`
		} `json:"hits"`
		Warnings []session.Warning `json:"warnings"`
	}
	if err := json.Unmarshal(ms[2].stead(t, bin, "search", "NO_TOOL", "--hosts", "all", "--json"), &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Hits) == 0 || found.Hits[0].Host != "node-0" {
		t.Errorf("search --hosts all found %+v; want node-0's hits", found.Hits)
	}
	if len(found.Warnings) != 2 { // node-1 and node-2 have no index
		t.Errorf("search --hosts all warned %+v; want the two machines without an index", found.Warnings)
	}
	// ... and converted into another CLI's format on this one.
	if out := ms[2].stead(t, bin, "session", "convert", ref, "--to", "codex"); len(out) == 0 {
		t.Errorf("stead session convert %s --to codex on node-2 wrote nothing", ref)
	}
	run := "c1"
	b0 := dial(0)
	if err := b0.PutRun(ctx, live.Run{ID: run, CLI: "codex", State: live.RunBusy, Host: ms[0].name, Started: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := b0.Publish(ctx, run, bus.Entry, fmt.Appendf(nil, `{"line":%d}`, i), fmt.Sprintf("c1-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	ms[0].cmd.Process.Signal(syscall.SIGKILL)
	ms[0].wait()
	for _, i := range []int{1, 2} {
		var recs []live.Run
		if err := json.Unmarshal(ms[i].stead(t, bin, "runs", "--json"), &recs); err != nil {
			t.Fatalf("%s: stead runs --json: %v", ms[i].name, err)
		}
		if len(recs) != 1 || recs[0].ID != run {
			t.Errorf("%s after %s was killed: stead runs lists %+v; want run %s", ms[i].name, ms[0].name, recs, run)
		}
		b := dial(i)
		n := 0
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := b.Replay(rctx, run, bus.Entry, func(bus.Msg) error { n++; return nil })
		cancel()
		if err != nil || n != 40 {
			t.Errorf("%s after %s was killed: %d entries (%v); want 40", ms[i].name, ms[0].name, n, err)
		}
	}
	// A machine gone is a warning; the others' sessions are listed.
	all = listJSON(t, ms[2].stead(t, bin, "session", "list", "--hosts", "all", "--json"))
	byHost = map[string]int{}
	for _, s := range all.Sessions {
		byHost[s.Host]++
	}
	if byHost["node-1"] != len(local.Sessions) || byHost["node-0"] != 0 {
		t.Errorf("--hosts all with node-0 killed listed %v; want node-1's %d sessions", byHost, len(local.Sessions))
	}
	if len(all.Warnings) != 1 || !strings.Contains(all.Warnings[0].Message, "node-0") {
		t.Errorf("--hosts all with node-0 killed warned %+v; want one warning naming node-0", all.Warnings)
	}
	// The two left take new entries, and each holds them.
	b1 := dial(1)
	if err := b1.Publish(ctx, run, bus.Entry, []byte(`{"line":40}`), "c1-40"); err != nil {
		t.Fatalf("publishing with one member of three killed: %v", err)
	}
	last, err := dial(2).Last(ctx, run, bus.Entry)
	if err != nil || last == 0 {
		t.Errorf("member 2 does not hold the entry published through member 1: %d, %v", last, err)
	}
}

// listOut is stead session list --json.
type listOut struct {
	Sessions []struct {
		CLI  string `json:"cli"`
		ID   string `json:"id"`
		Host string `json:"host"`
	} `json:"sessions"`
	Warnings []session.Warning `json:"warnings"`
}

func listJSON(t *testing.T, data []byte) listOut {
	t.Helper()
	var out listOut
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("stead session list --json: %v\n%s", err, data)
	}
	return out
}
