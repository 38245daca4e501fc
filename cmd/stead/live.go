package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/daemon"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

func newServeCmd(f *Factory) *cobra.Command {
	var bf BusFlags
	var listen, keepIndex string
	var handoverWait time.Duration
	var terminal byteSize
	var wf webFlags
	var cf clusterFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the stead daemon: the embedded bus, and a worker for detached runs",
		Long: `Run the stead daemon. It embeds the NATS server (JetStream data in stead's state
directory, clients on a loopback port with a generated token, written to
<state>/bus.json for other stead commands), and takes detached runs
(stead session resume --detach) from the work queue. With --nats-url it embeds
nothing and is one of several workers sharing an external NATS deployment. With
--cluster-key its embedded server is a member of a NATS cluster of stead
daemons: the runs' streams and records are kept on three members (JetStream,
replicated), so that they outlive any one machine.

Stopping it (Ctrl-C, SIGTERM, stead serve stop) stops its runs' CLIs. A
detached run is handed to another worker instead when one is up (a cluster's
other members, other workers of an external NATS): a turn under way may end
first (--handover-wait), then that worker continues the run in its own CLI,
as after a failover. With no other worker up, the runs end here.

A daemon that starts after one was killed takes its address and token back
(so that running watches reconnect). A detached run of the killed daemon is
a job of the work queue: once its lease expires, this daemon (or another
worker) continues it from what the bus captured (a failover). The other runs
whose supervisor is gone (a killed stead session resume) are ended: each is
marked failed, its CLI stopped, and its session stored from what the bus
captured, so that stead session show, resume and fork work on it. It keeps
looking for such runs every 30 s.

When there is a search index (stead index or stead search made one), the
daemon keeps it fresh: it watches the CLIs' stores and reads what changes, so
that a search need not look at every file first (--index on|off to choose).`,
		Example: `  # The daemon in the foreground (commands that need it start it in the background)
  stead serve
  # Keep at most 256 MB of the runs' terminal output
  stead serve --terminal-bytes 256M
  # A worker sharing an external NATS deployment
  stead serve --nats-url nats://nats.example.com:4222 --nats-creds ~/.config/stead/nats.creds
  # A member of a three-machine cluster (see stead serve cluster-key, docs/deployment.md)
  stead serve --cluster-key ~/.config/stead/cluster.key --cluster-listen 10.0.0.1:6222 \
    --routes 10.0.0.2:6222,10.0.0.3:6222`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode, ok := map[string]daemon.IndexMode{"auto": daemon.IndexAuto, "on": daemon.IndexOn, "off": daemon.IndexOff}[keepIndex]
			if !ok {
				return flagErrorf("--index: %q is not one of auto, on, off", keepIndex)
			}
			if err := wf.check(); err != nil {
				return err
			}
			cl, err := cf.cluster(bf)
			if err != nil {
				return err
			}
			if handoverWait < 0 {
				return flagErrorf("--handover-wait: %s is negative", handoverWait)
			}
			return serve(cmd.Context(), f, bf, listen, int64(terminal), mode, wf, cl, cf.KeyFile, handoverWait)
		},
	}
	cmd.Flags().StringVar(&keepIndex, "index", "auto", "keep the search index fresh: auto (when there is one), on, off")
	cmd.Flags().DurationVar(&handoverWait, "handover-wait", 30*time.Second, "as the daemon stops while another worker is up, how long a turn under way may end before its run is handed over (0: at once)")
	cmd.Flags().StringVar(&listen, "listen", "", "the loopback address the embedded bus takes clients on (default: the last daemon's when free, else any free port on 127.0.0.1)")
	cmd.AddCommand(newServeStatusCmd(f), newServeStopCmd(f), newServeClusterKeyCmd(f))
	cmd.Flags().Var(&terminal, "terminal-bytes", "the runs' terminal output kept, the oldest discarded first, e.g. 256M (default 1G, or a quarter of what the store's disk may hold when that is less)")
	addBusFlags(cmd, &bf)
	wf.register(cmd)
	cf.register(cmd)
	return cmd
}

func serve(ctx context.Context, f *Factory, bf BusFlags, listen string, terminalBytes int64, keepIndex daemon.IndexMode, wf webFlags, cl *bus.Cluster, keyFile string, handoverWait time.Duration) error {
	prices, err := f.Prices()
	if err != nil {
		return err
	}
	d := &daemon.Daemon{Env: f.Env, Logger: f.Logger, Listen: listen, TerminalBytes: terminalBytes, Index: keepIndex,
		URL: bf.URL, Token: bf.Token, Creds: bf.Creds, Version: version, Notices: f.IO.ErrOut, Supervisor: *f.supervisor(nil),
		Web: wf.Addr, WebHosts: wf.Hosts, WebReadOnly: wf.ReadOnly, Prices: prices, Cluster: cl, ClusterKeyFile: keyFile, HandoverWait: handoverWait}
	if cl != nil && keyFile != "" {
		if abs, err := filepath.Abs(keyFile); err == nil {
			d.ClusterKeyFile = abs
		}
	}
	if wf.Expose {
		fmt.Fprintf(f.IO.ErrOut, "stead: warning: the control room listens on %s, beyond this machine: anyone who can reach it "+
			"and has its token (in %s) can read every session of this user and start, type into and stop runs; "+
			"it speaks plain HTTP, so put it behind TLS (a reverse proxy) on any network you do not trust\n", wf.Addr, daemon.File(f.Env))
	}
	return d.Run(ctx)
}

// webFlags say where and how the daemon serves the control room.
type webFlags struct {
	Addr     string
	Expose   bool
	Hosts    []string
	ReadOnly bool
}

func (w *webFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&w.Addr, "web", "", `the address the control room listens on ("off": none; default: 127.0.0.1, on the last daemon's port when free)`)
	cmd.Flags().BoolVar(&w.Expose, "web-expose", false, "allow a --web address beyond loopback (anyone who reaches it with the token reads every session)")
	cmd.Flags().StringSliceVar(&w.Hosts, "web-host", nil, "with --web-expose, a host name the control room is reached as (repeat or comma-separate)")
	cmd.Flags().BoolVar(&w.ReadOnly, "read-only", false, "the control room refuses every request that changes anything (starting, typing into or stopping runs)")
}

// check refuses an address beyond loopback unless --web-expose says so.
func (w *webFlags) check() error {
	if w.Addr == "" || w.Addr == "off" {
		if w.Expose || len(w.Hosts) > 0 {
			return flagErrorf("--web-expose and --web-host need a --web address beyond loopback")
		}
		return nil
	}
	host, _, err := net.SplitHostPort(w.Addr)
	if err != nil {
		return flagErrorf("--web: %q is not host:port (127.0.0.1:7070) or off", w.Addr)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		loopback = true
	}
	if !loopback && !w.Expose {
		return flagErrorf("--web %s listens beyond this machine: add --web-expose if that is what you want (anyone who reaches it with the token reads every session)", w.Addr)
	}
	if !loopback && host != "" && net.ParseIP(host) != nil && !net.ParseIP(host).IsUnspecified() {
		w.Hosts = append(w.Hosts, host)
	}
	if !loopback {
		if h, err := os.Hostname(); err == nil {
			w.Hosts = append(w.Hosts, h)
		}
	}
	return nil
}

func newServeStatusCmd(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether the local stead daemon runs: its pid, address, uptime, build and runs",
		Long: `Say whether the local stead daemon runs, and if so its pid, bus address, uptime,
version and build (and whether it is this build of stead), its store and log, and how many
runs it holds. Exit code 1 when none runs.`,
		Example: `  # Whether the daemon runs: pid, address, uptime, build, runs
  stead serve status
  # As JSON
  stead serve status --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st := daemon.StatusOf(cmd.Context(), f.Env)
			if asJSON {
				if err := printJSON(f.IO.RawOut(), st); err != nil {
					return err
				}
			} else if st.Running {
				w := f.IO.Out
				fmt.Fprintf(w, "stead daemon: running, pid %d, up %s (since %s)\n", st.PID, unknownIf(st.Uptime), st.Started.Local().Format("2006-01-02 15:04:05"))
				build := "this build"
				if !st.SameBuild {
					build = "another build than this stead (" + daemon.Build() + "): stead serve stop, and the next command starts this one"
				}
				fmt.Fprintf(w, "  stead %s, build %s: %s\n", unknownIf(st.Version), unknownIf(st.Build), build)
				fmt.Fprintf(w, "  bus:   %s (token in %s)\n", st.URL, daemon.File(f.Env))
				fmt.Fprintf(w, "  runs:  %d active, %d in all (stead runs lists them)\n", st.Active, st.Runs)
				fmt.Fprintf(w, "  store: %s\n  log:   %s\n", st.Store, st.Log)
			} else {
				fmt.Fprintf(f.IO.Out, "stead daemon: not running (the first command that needs the bus starts it; its log would be %s)\n", st.Log)
			}
			if !st.Running {
				return &silentError{err: daemon.ErrNoDaemon}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newServeStopCmd(f *Factory) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the local stead daemon: its runs go to another worker, or their CLIs are stopped and their sessions stored",
		Example: `  # Stop the daemon; its runs' CLIs are stopped and their sessions stored
  stead serve stop
  # Give its runs 5 minutes before it is killed
  stead serve stop --wait 5m`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, err := daemon.Read(f.Env)
			if err != nil || !info.Alive() {
				fmt.Fprintln(f.IO.ErrOut, "stead: no stead daemon runs")
				return nil
			}
			begin := time.Now()
			if err := daemon.Stop(info, wait); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "stead: stopped the daemon (pid %d) in %s\n", info.PID, time.Since(begin).Round(10*time.Millisecond))
			return nil
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", time.Minute, "how long to wait for it to stop its runs before killing it")
	return cmd
}

// byteSize is a flag of a size in bytes: 1048576, 512K, 256M, 2G.
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a size (a number of bytes, or with K, M or G)", s)
	}
	*b = byteSize(n * mult)
	return nil
}

func newWatchCmd(f *Factory) *cobra.Command {
	var bf BusFlags
	var asJSON, raw, all bool
	cmd := &cobra.Command{
		Use:   "watch <run>",
		Short: "Print a run's universal entries and state changes as they happen",
		Long: `Print a run's entries and state changes, from its start, then live until the
run ends. --json prints one JSON object per line: {"kind":"entry","event":{...}}
(a session.Event: new entries, updates to earlier ones) or
{"kind":"status","status":{...}}. --terminal prints the raw terminal output instead.

Each entry is a line, cut at 200 characters; context a CLI injected for its
model (environment, instructions, reminders) is one line saying so. --all
prints every entry whole, injected context too.`,
		Example: `  # A run's entries as they happen (an id prefix is enough)
  stead watch 20261121-101500-3f9a0c1d2e4b
  # Every entry whole, injected context too
  stead watch 20261121-1015 --all
  # JSON lines, or the raw terminal output
  stead watch 20261121-1015 --json
  stead watch 20261121-1015 --terminal`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := connectBus(cmd.Context(), f, bf, true)
			if err != nil {
				return err
			}
			defer b.Close()
			r, err := resolveRun(cmd.Context(), b, args[0])
			if err != nil {
				return err
			}
			if raw {
				return f.supervisor(b).WatchTerminal(cmd.Context(), r.ID, f.IO.RawOut())
			}
			out := f.IO.Out
			if asJSON {
				out = f.IO.RawOut()
			}
			return watchRun(cmd.Context(), b, r.ID, out, asJSON, all)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON lines")
	cmd.Flags().BoolVar(&raw, "terminal", false, "print the raw terminal output")
	cmd.Flags().BoolVar(&all, "all", false, "print every entry whole, the context the CLI injected too")
	addBusFlags(cmd, &bf)
	return cmd
}

// watchRun prints a run's entries and states to out until it ends: JSON
// lines, or a line per entry for a person (every entry whole with all).
func watchRun(ctx context.Context, b *bus.Bus, id string, out io.Writer, asJSON, all bool) error {
	enc := json.NewEncoder(out)
	return b.Watch(ctx, id, bus.FromStart, func(m bus.Msg) error {
		switch m.Kind {
		case bus.Entry:
			var ev session.Event
			if err := json.Unmarshal(m.Data, &ev); err != nil {
				return fmt.Errorf("run %s: entry %d: %w", id, m.Seq, err)
			}
			if asJSON {
				return enc.Encode(map[string]any{"kind": "entry", "event": ev})
			}
			for _, e := range ev.Entries {
				fmt.Fprintln(out, describeEntry(e, all))
			}
		case bus.Status:
			var st live.Status
			if err := json.Unmarshal(m.Data, &st); err != nil {
				return fmt.Errorf("run %s: status %d: %w", id, m.Seq, err)
			}
			if asJSON {
				if err := enc.Encode(map[string]any{"kind": "status", "status": st}); err != nil {
					return err
				}
			} else {
				line := fmt.Sprintf("%s  [%s]", st.Time.Local().Format("15:04:05.000"), st.State)
				if st.ExitCode != nil {
					line += " exit code " + strconv.Itoa(*st.ExitCode)
				}
				if st.Detail != "" {
					line += " " + st.Detail
				}
				if st.Signal != "" {
					line += " (" + st.Signal + ")"
				}
				fmt.Fprintln(out, line)
			}
			if st.State.Done() {
				return bus.ErrStop
			}
		}
		return nil
	}, bus.Entry, bus.Status)
}

// injected reports whether e is context a CLI injected for its model
// rather than something said.
func injected(e session.Entry) bool {
	switch e.Kind {
	case session.KindContext, session.KindInstructions:
		return true
	case session.KindMeta:
		return e.Type == session.User
	}
	return false
}

// describeEntry is a line about an entry, for a person: its text cut at
// 200 characters, injected context only named; with all, the whole text,
// its lines indented below the first.
func describeEntry(e session.Entry, all bool) string {
	ts := e.Timestamp.Local().Format("15:04:05.000")
	who := string(e.Type)
	if e.Kind != "" {
		who += "/" + e.Kind
	}
	text := e.Content
	switch e.Type {
	case session.ToolCall:
		text = string(e.Tool)
		if e.OriginalTool != "" && e.OriginalTool != string(e.Tool) {
			text += " (" + e.OriginalTool + ")"
		}
		text += " " + e.InputText()
	case session.ToolResult:
		text = e.Output
		if e.Error != "" {
			text = "error: " + e.Error
		}
	}
	if text == "" && e.Thinking != "" {
		text = "(thinking) " + e.Thinking
	}
	switch {
	case all:
		text = strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n    ")
	case injected(e):
		text = fmt.Sprintf("(injected context, %s; watch --all shows it)", humanBytes(int64(len(text))))
	default:
		text = clipFields(text, 200)
	}
	cli := ""
	if e.CLI != "" {
		cli = e.CLI + " "
	}
	return fmt.Sprintf("%s  %s%s: %s", ts, cli, who, text)
}

func newRunsCmd(f *Factory) *cobra.Command {
	var bf BusFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List supervised runs, newest first",
		Example: `  # Every run and its state, newest first
  stead runs
  # As JSON
  stead runs --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := connectBus(cmd.Context(), f, bf, true)
			if err != nil {
				return err
			}
			defer b.Close()
			runs, err := b.Runs(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if runs == nil {
					runs = []live.Run{}
				}
				enc := json.NewEncoder(f.IO.RawOut())
				enc.SetIndent("", "  ")
				return enc.Encode(runs)
			}
			if len(runs) == 0 {
				fmt.Fprintln(f.IO.ErrOut, "no runs yet: start one with stead session resume")
				return nil
			}
			tw := newTable(f.IO.Out, 0, 4, 2)
			fmt.Fprintln(tw, "RUN\tCLI\tSTATE\tSTARTED\tENTRIES\tFROM\tDIR")
			for _, r := range runs {
				state := string(r.State)
				if r.ExitCode != nil {
					state += " (" + strconv.Itoa(*r.ExitCode) + ")"
				}
				from := ""
				if r.Source != nil {
					from = r.Source.CLI + ":" + r.Source.ID
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.CLI, state,
					r.Started.Local().Format("2006-01-02 15:04:05"), r.Entries, from, r.Dir)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addBusFlags(cmd, &bf)
	return cmd
}

func newSendCmd(f *Factory) *cobra.Command {
	var bf BusFlags
	var raw bool
	cmd := &cobra.Command{
		Use:   "send <run> <text>",
		Short: "Type a prompt into a run's CLI, the way that CLI takes one",
		Long: `Type a prompt into a run's CLI through the bus, wherever the run is: as a
bracketed paste then Enter, with the pause the CLI needs, once it is ready.
--raw sends the bytes as they are (escape sequences included) instead.`,
		Example: `  # Type a prompt into a run's CLI once it is ready
  stead send 20261121-101500-3f9a0c1d2e4b "now run the tests"
  # Press Enter in a dialog (answer it), the bytes as they are
  stead send --raw 20261121-1015 $'\r'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := connectBus(cmd.Context(), f, bf, true)
			if err != nil {
				return err
			}
			defer b.Close()
			sv := f.supervisor(b)
			r, err := sv.Running(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
			defer cancel()
			if raw {
				err = sv.Input(ctx, r, []byte(args[1]))
			} else {
				if r.State != live.RunReady {
					fmt.Fprintf(f.IO.ErrOut, "stead: run %s is %s: the prompt is typed once it is ready (waiting at most %s)\n", r.ID, r.State, runs.PromptWait)
				}
				err = sv.Prompt(ctx, r, args[1])
			}
			if err != nil {
				return err
			}
			if raw {
				fmt.Fprintf(f.IO.ErrOut, "stead: sent %d bytes to run %s\n", len(args[1]), r.ID)
			} else {
				fmt.Fprintf(f.IO.ErrOut, "stead: run %s took the prompt (stead watch %s shows the turn)\n", r.ID, r.ID)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "send the bytes as they are")
	addBusFlags(cmd, &bf)
	return cmd
}

func newStopCmd(f *Factory) *cobra.Command {
	var bf BusFlags
	cmd := &cobra.Command{
		Use:   "stop <run>",
		Short: "Make a run's CLI exit: its own quit keys first, then signals to its whole process group",
		Example: `  # Make a run's CLI exit; its session is stored
  stead stop 20261121-101500-3f9a0c1d2e4b
  # By an id prefix
  stead stop 20261121-1015`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := connectBus(cmd.Context(), f, bf, true)
			if err != nil {
				return err
			}
			defer b.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			r, err := resolveRun(ctx, b, args[0])
			if err != nil {
				return err
			}
			if r.State.Done() {
				fmt.Fprintf(f.IO.ErrOut, "stead: run %s had already ended\n", r.ID)
				printRunEnd(f.IO.ErrOut, r)
				return nil
			}
			r, err = f.supervisor(b).Stop(ctx, r)
			if err != nil {
				return err
			}
			printRunEnd(f.IO.ErrOut, r)
			return nil
		},
	}
	addBusFlags(cmd, &bf)
	return cmd
}

func newAttachCmd(f *Factory) *cobra.Command {
	var bf BusFlags
	cmd := &cobra.Command{
		Use:   "attach <run>",
		Short: "Show a run's live terminal and type into it (Ctrl-] detaches)",
		Example: `  # A run's live terminal on a screen of its own; Ctrl-] detaches
  stead attach 20261121-101500-3f9a0c1d2e4b
  # By an id prefix
  stead attach 20261121-1015`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			b, err := connectBus(ctx, f, bf, true)
			if err != nil {
				return err
			}
			defer b.Close()
			r, err := resolveRun(ctx, b, args[0])
			if err != nil {
				return err
			}
			id := r.ID
			in, ok := f.IO.In.(*os.File)
			if !ok || !term.IsTerminal(int(in.Fd())) {
				return flagErrorf("attach needs a terminal; use stead watch --terminal to only look")
			}
			err = f.supervisor(b).Attach(ctx, id, in, f.IO.RawOut())
			fmt.Fprintf(f.IO.ErrOut, "stead: detached from %s\n", id)
			return err
		},
	}
	addBusFlags(cmd, &bf)
	return cmd
}

func unknownIf(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
