package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/session"
)

// ListOptions are the inputs of `stead session list`.
type ListOptions struct {
	Factory *Factory
	Scan    scanFlags
	Limit   int
	JSON    bool
	// Hosts asks the machines of the bus for their sessions: "all", or
	// their names.
	Hosts []string
}

func newListCmd(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the sessions of every CLI, newest first",
		Long: `List the sessions found in every CLI's store ($CLAUDE_CONFIG_DIR or ~/.claude,
$CODEX_HOME or ~/.codex), newest first, with their project, start time,
duration and message count (user prompts plus assistant replies).`,
		Example: `  # Every session of every CLI, newest first
  stead session list
  # Claude Code and Codex sessions active in the last week
  stead session list --cli claude,codex --since 7d
  # The 10 newest sessions of one project, subagents included, as JSON
  stead session list --project ~/work/alpha --subagents -n 10 --json
  # Every machine's sessions, on a cluster of stead daemons (docs/deployment.md)
  stead session list --hosts all`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Limit < 0 {
				return flagErrorf("--limit must not be negative")
			}
			if runF != nil {
				return runF(opts)
			}
			if len(opts.Hosts) > 0 {
				return listHostsRun(cmd, opts)
			}
			return listRun(cmd, opts)
		},
	}
	opts.Scan.register(cmd)
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 0, "show at most this many sessions (0: all)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "write JSON (see docs/json.md)")
	cmd.Flags().StringSliceVar(&opts.Hosts, "hosts", nil, "ask the machines whose daemons share this bus for their sessions: all, or their names (a machine that does not answer is a warning)")
	return cmd
}

// listJSON is one session in `list --json`.
type listJSON struct {
	CLI      string        `json:"cli"`
	ID       string        `json:"id"`
	Project  string        `json:"project"`
	Title    string        `json:"title"`
	Start    *string       `json:"start"`
	End      *string       `json:"end"`
	Messages int           `json:"messages"`
	Turns    int           `json:"turns"`
	Path     string        `json:"path"`
	Size     int64         `json:"size"`
	Parent   *session.Link `json:"parent,omitempty"`
	// Host is the machine the session is on (--hosts).
	Host string `json:"host,omitempty"`
}

// listItem is s in `list --json`, on host ("" for this machine's).
func listItem(s session.Summary, host string) listJSON {
	return listJSON{
		CLI: s.CLI, ID: s.ID, Project: s.Project, Title: s.Title,
		Start: jsonTime(s.Start), End: jsonTime(s.End), Host: host,
		Messages: s.Messages, Turns: s.Turns, Path: s.Path, Size: s.Size, Parent: s.Parent,
	}
}

// appendJSON writes l as json.Marshal would (a listing of 10,000 sessions
// spent a third of its output time in reflection).
func (l listJSON) appendJSON(b []byte) ([]byte, error) {
	str := func(name, v string) {
		b = append(b, name...)
		b = session.AppendJSONString(b, v)
	}
	optional := func(name string, v *string) {
		if v == nil {
			b = append(b, name...)
			b = append(b, "null"...)
			return
		}
		str(name, *v)
	}
	str(`{"cli":`, l.CLI)
	str(`,"id":`, l.ID)
	str(`,"project":`, l.Project)
	str(`,"title":`, l.Title)
	optional(`,"start":`, l.Start)
	optional(`,"end":`, l.End)
	b = append(b, `,"messages":`...)
	b = strconv.AppendInt(b, int64(l.Messages), 10)
	b = append(b, `,"turns":`...)
	b = strconv.AppendInt(b, int64(l.Turns), 10)
	str(`,"path":`, l.Path)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, l.Size, 10)
	if l.Host != "" {
		str(`,"host":`, l.Host)
	}
	if l.Parent != nil {
		var p bytes.Buffer
		enc := json.NewEncoder(&p)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l.Parent); err != nil {
			return b, err
		}
		b = append(b, `,"parent":`...)
		b = append(b, bytes.TrimSuffix(p.Bytes(), []byte("\n"))...)
	}
	return append(b, '}'), nil
}

func listRun(cmd *cobra.Command, opts *ListOptions) error {
	f := opts.Factory
	filter, err := opts.Scan.filter(time.Now())
	if err != nil {
		return err
	}
	f.answerFromIndex(answerGC)
	res, err := scan(cmd, f, &opts.Scan, session.DetailList)
	if err != nil {
		return err
	}
	var sums []session.Summary
	for i := range res.Summaries {
		if filter.Keep(&res.Summaries[i]) {
			sums = append(sums, res.Summaries[i])
		}
	}
	if opts.Limit > 0 && len(sums) > opts.Limit {
		sums = sums[:opts.Limit]
	}
	if opts.JSON {
		warns := res.Warnings
		if warns == nil {
			warns = []session.Warning{}
		}
		return writeJSON(f.IO.RawOut(),
			jsonField{name: "sessions", items: func(yield func(any) error) error {
				for _, s := range sums {
					err := yield(listItem(s, ""))
					if err != nil {
						return err
					}
				}
				return nil
			}},
			jsonField{name: "warnings", value: warns})
	}
	printWarnings(f.IO, res.Warnings)
	if len(sums) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no sessions found")
		return nil
	}
	tw := newTable(f.IO.Out, 0, 0, 2)
	fmt.Fprintln(tw, "CLI\tID\tSTARTED\tDURATION\tMSGS\tPROJECT\tTITLE")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.CLI, s.ID, formatTime(s.Start), formatDuration(s.Duration()),
			s.Messages, clip(shortPath(s.Project, f.Env.Home), 40), clip(s.Title, 60))
	}
	return tw.Flush()
}
