package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/scenarios"
)

// StubOptions are the inputs of `stead stub`.
type StubOptions struct {
	Factory *Factory
	Script  string
	Port    int
	Log     string
	// Dir is the project the CLIs run in; Homes, when set, is where each
	// CLI's home is seeded (Homes/<cli>).
	Dir   string
	Homes string
	// Permissive answers what the real APIs refuse (see modelstub.Options).
	Permissive bool
}

func newStubCmd(f *Factory, runF func(*StubOptions) error) *cobra.Command {
	opts := &StubOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "stub --script FILE",
		Short: "Serve a scripted model on 127.0.0.1 for the CLIs to talk to offline",
		Long: fill("Serve a scripted model on 127.0.0.1: Anthropic Messages, OpenAI Responses, OpenAI "+
			"Chat Completions and Gemini, so "+cliTitles(launchable)+" run offline against it. "+
			"Each request the CLI makes for its conversation plays the script's next turn (text, thinking, "+
			"tool calls mapped to the tools the CLI declares, or a fault); titles, summaries and routing "+
			"are answered on the side. It prints the environment each CLI needs, and runs until interrupted.", 80) + `

It refuses what the real APIs refuse, with their status and error: a model of
another provider, a tool result without its call or a call without its result,
thinking or reasoning the API did not sign (--log records why). --permissive
answers those too.`,
		Example: `  # Serve the example script on port 8765, seeding a home for each CLI
  stead stub --script examples/stub/two-turns.json --port 8765 --homes /tmp/stub-homes
  # Any free port, every request logged, CLIs run in another project
  stead stub --script turns.json --log requests.jsonl --dir ~/work/alpha`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Script == "" {
				return flagErrorf("--script is required")
			}
			if opts.Port < 0 || opts.Port > 65535 {
				return flagErrorf("--port must be between 0 and 65535")
			}
			if runF != nil {
				return runF(opts)
			}
			return stubRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Script, "script", "", "the script to play (JSON; see examples/stub/)")
	cmd.Flags().IntVar(&opts.Port, "port", 0, "port to listen on, on 127.0.0.1 (0: any free port)")
	cmd.Flags().StringVar(&opts.Log, "log", "", "append every request to this JSONL file")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "the project directory the CLIs run in; relative paths in the script resolve against it (default: the current directory)")
	cmd.Flags().StringVar(&opts.Homes, "homes", "", "seed a home for each CLI in `DIR`/<cli> (config that skips dialogs and keeps traffic on the stub) and print the exact environment")
	cmd.Flags().BoolVar(&opts.Permissive, "permissive", false, "answer what the real APIs refuse (a model of another provider, a tool result without its call, thinking they did not sign)")
	return cmd
}

func stubRun(cmd *cobra.Command, opts *StubOptions) error {
	f := opts.Factory
	file, err := os.Open(opts.Script)
	if err != nil {
		return err
	}
	script, err := modelstub.ReadScript(file)
	file.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Script, err)
	}
	if opts.Dir == "" {
		if opts.Dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	if opts.Dir, err = filepath.Abs(opts.Dir); err != nil {
		return err
	}
	so := modelstub.Options{
		Script:     script,
		Dir:        opts.Dir,
		Addr:       net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)),
		ToolNames:  adapters.NativeTools,
		ToolCall:   adapters.NativeCall,
		Logger:     f.Logger,
		Permissive: opts.Permissive,
	}
	if opts.Log != "" {
		lf, err := atomicfile.OpenAppend(opts.Log, 0o600)
		if err != nil {
			return err
		}
		defer lf.Close()
		so.Log = lf
	}
	stub, err := modelstub.Start(so)
	if err != nil {
		return err
	}
	defer stub.Close()
	if err := printStubHelp(f.IO, stub.URL(), script, opts); err != nil {
		return err
	}
	stop := context.AfterFunc(cmd.Context(), func() { stub.Close() })
	defer stop()
	if err := stub.Wait(); err != nil {
		return err
	}
	if err := cmd.Context().Err(); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "stead stub: stopped after %d requests, %d of %d turns played\n", len(stub.Requests()), stub.Played(), len(script.Turns))
	}
	return nil
}

// launchable reports whether the stub can say how to point a's CLI at
// it.
func launchable(a adapters.Adapter) bool { return a.Driver != nil && a.Setup != nil }

func printStubHelp(io *IOStreams, url string, script *modelstub.Script, opts *StubOptions) error {
	w := io.Out
	fmt.Fprintf(w, "stead stub: serving %d scripted turns on %s\n\n", len(script.Turns), url)
	if !opts.Permissive {
		fmt.Fprintf(w, "It refuses what the real APIs refuse, with their errors: a model of another provider, a tool result\n"+
			"without its call or a call without its result, thinking they did not sign (--permissive answers them).\n\n")
	}
	fmt.Fprintf(w, "  Anthropic Messages    POST %s/v1/messages\n", url)
	fmt.Fprintf(w, "  OpenAI Responses      POST %s/v1/responses\n", url)
	fmt.Fprintf(w, "  Chat Completions      POST %s/v1/chat/completions\n", url)
	fmt.Fprintf(w, "  Gemini                POST %s/v1beta/models/{model}:streamGenerateContent?alt=sse\n\n", url)
	if opts.Homes != "" {
		fmt.Fprintf(w, "Point a CLI at it: run these in %s.\n", opts.Dir)
	} else {
		fmt.Fprintf(w, "Point a CLI at it (replace $STEAD_HOME with a home of its own, or use --homes DIR; run it in %s):\n", opts.Dir)
	}
	for _, a := range adapters.All {
		if !launchable(a) {
			continue
		}
		home := homeVar
		if opts.Homes != "" {
			h, err := filepath.Abs(filepath.Join(opts.Homes, a.Name))
			if err != nil {
				return err
			}
			home = h
		}
		l := live.Launch{Home: home, Dir: opts.Dir, BaseURL: url, Prompt: "PROMPT"}
		st := a.Setup(l)
		fmt.Fprintf(w, "\n%s:\n", a.Name)
		if opts.Homes != "" {
			if err := writeHome(home, st.Files); err != nil {
				return err
			}
		}
		for _, e := range st.Env {
			k, v, _ := strings.Cut(e, "=")
			fmt.Fprintf(w, "  export %s=%s\n", k, quoteWithHome(v))
		}
		names := make([]string, 0, len(st.Files))
		for n := range st.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if opts.Homes != "" {
				fmt.Fprintf(w, "  # wrote %s\n", filepath.Join(home, n))
				continue
			}
			fmt.Fprintf(w, "  # write $STEAD_HOME/%s:\n", n)
			for _, line := range strings.Split(strings.TrimRight(st.Files[n], "\n"), "\n") {
				fmt.Fprintf(w, "  #   %s\n", line)
			}
		}
		if st.Notes != "" {
			fmt.Fprintf(w, "  # %s\n", st.Notes)
		}
		if a.Argv != nil {
			args := a.Argv(l)
			for i, arg := range args {
				args[i] = quoteWithHome(arg)
			}
			fmt.Fprintf(w, "  %s %s\n", scenarios.Program(a.Name), strings.Join(args, " "))
		}
	}
	if len(script.Prompts) > 0 {
		fmt.Fprintf(w, "\nThe script answers these prompts, in order:\n")
		for i, p := range script.Prompts {
			fmt.Fprintf(w, "  %d. %s\n", i+1, p)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// writeHome seeds a CLI home with its setup files, written atomically
// (files seeded before, for another port, are replaced).
func writeHome(home string, files map[string]string) error {
	for name, data := range files {
		p := filepath.Join(home, filepath.FromSlash(name))
		if !strings.HasPrefix(p, filepath.Clean(home)+string(filepath.Separator)) {
			return fmt.Errorf("setup file %q is outside %s", name, home)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := atomicfile.Write(p, []byte(data), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// homeVar is the placeholder for a CLI's home in the printed setup.
const homeVar = "$STEAD_HOME"

// quoteWithHome quotes s for a shell, keeping each $STEAD_HOME in it a
// variable reference; nothing else in s is interpreted.
func quoteWithHome(s string) string {
	if !strings.Contains(s, homeVar) {
		return safetext.Quote(s)
	}
	parts := strings.Split(s, homeVar)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(`"` + homeVar + `"`)
		}
		if p != "" {
			b.WriteString(safetext.Quote(p))
		}
	}
	return b.String()
}
