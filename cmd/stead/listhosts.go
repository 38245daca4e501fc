package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/session"
)

// hostsWait is how long stead session list --hosts waits for a machine.
const hostsWait = 5 * time.Second

// hostSummary is a session and the machine it is on.
type hostSummary struct {
	host string
	session.Summary
}

// listHostsRun is stead session list --hosts: every machine's sessions,
// through the bus, with a host column.
func listHostsRun(cmd *cobra.Command, opts *ListOptions) error {
	f := opts.Factory
	filter, err := opts.Scan.filter(time.Now())
	if err != nil {
		return err
	}
	var names []string
	if !slices.Equal(opts.Hosts, []string{"all"}) {
		names = opts.Hosts
	}
	b, err := connectBus(cmd.Context(), f, BusFlags{}, true)
	if err != nil {
		return err
	}
	defer b.Close()
	answers, err := hosts.List(cmd.Context(), b, hosts.Query{CLIs: opts.Scan.CLIs}, names, hostsWait)
	if err != nil {
		return err
	}
	var sums []hostSummary
	warns := []session.Warning{}
	for _, a := range answers {
		if a.Err != nil {
			warns = append(warns, session.Warning{Message: a.Err.Error()})
			continue
		}
		for _, w := range a.Warnings {
			w.Message = a.Host + ": " + w.Message
			warns = append(warns, w)
		}
		for i := range a.Sessions {
			if filter.Keep(&a.Sessions[i]) {
				sums = append(sums, hostSummary{a.Host, a.Sessions[i]})
			}
		}
	}
	slices.SortStableFunc(sums, func(x, y hostSummary) int {
		if c := y.Start.Compare(x.Start); c != 0 {
			return c
		}
		return strings.Compare(x.host, y.host)
	})
	if opts.Limit > 0 && len(sums) > opts.Limit {
		sums = sums[:opts.Limit]
	}
	if opts.JSON {
		return writeJSON(f.IO.RawOut(),
			jsonField{name: "sessions", items: func(yield func(any) error) error {
				for _, s := range sums {
					err := yield(listItem(s.Summary, s.host))
					if err != nil {
						return err
					}
				}
				return nil
			}},
			jsonField{name: "warnings", value: warns})
	}
	printWarnings(f.IO, warns)
	if len(sums) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no sessions found")
		return nil
	}
	tw := newTable(f.IO.Out, 0, 0, 2)
	fmt.Fprintln(tw, "HOST\tCLI\tID\tSTARTED\tDURATION\tMSGS\tPROJECT\tTITLE")
	for _, s := range sums {
		// Every text of another machine's answer is made safe for a
		// terminal: it is untrusted input.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", clip(s.host, 30), clip(s.CLI, 12), clip(s.ID, 80), formatTime(s.Start),
			formatDuration(s.Duration()), s.Messages, clip(s.Project, 40), clip(s.Title, 60))
	}
	return tw.Flush()
}
