package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/index"
)

func newIndexCmd(f *Factory) *cobra.Command {
	var rebuild, asJSON, noRefresh, watch bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Bring the search index up to date and say what it holds",
		Long: `Bring the search index (in $XDG_CACHE_HOME/stead, else ~/.cache/stead) up to
date with every CLI's store, reading only the sessions that changed since the
last time, and say what it holds: sessions, entries, its size and the last
refresh. stead search does the same refresh before it searches.

When a watcher keeps the index fresh (stead index --watch, or the daemon,
stead serve, which does so whenever there is an index), stead index and stead
search ask it instead: it answers at once when nothing changed.

--rebuild drops the index and reads every session again.
--watch keeps the index fresh until interrupted: it watches the folders of
every CLI's store (inotify, Linux only) and reads what changes.`,
		Example: `  # Refresh the index and show what it holds
  stead index
  # Read everything again
  stead index --rebuild
  # As JSON, with the refresh's figures and the files it could not read
  stead index --json
  # Keep it fresh (in the foreground; the daemon does the same)
  stead index --watch`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			path := index.DefaultPath(f.Env)
			if rebuild {
				if err := index.Remove(path); err != nil {
					return err
				}
			}
			if watch {
				f.limitIndexMemory() // a long-lived process: memory before speed
			} else {
				f.answerFromIndex(freshGC)
			}
			ix, err := index.Open(ctx, path, f.Logger)
			if err != nil {
				return err
			}
			defer ix.Close()
			if watch {
				return watchIndex(ctx, f, ix)
			}
			ix.ForOneAnswer()
			var res *index.Refreshed
			if !noRefresh {
				prog := newIndexProgress(f.IO)
				fresh := ix.Fresh
				if rebuild {
					// A watcher keeps the index just removed.
					fresh = ix.Refresh
				}
				r, err := fresh(ctx, f.Env, prog.update)
				prog.done()
				if err != nil {
					return err
				}
				res = &r
			}
			st, err := ix.Status(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(f.IO.RawOut(), map[string]any{"index": st, "refresh": res})
			}
			w := f.IO.Out
			if res != nil {
				how := "refreshed in " + res.Took.Round(time.Millisecond).String()
				if res.Watcher != 0 {
					how = fmt.Sprintf("brought up to date by the watcher (pid %d) in %s", res.Watcher, res.Took.Round(time.Millisecond))
				}
				fmt.Fprintf(w, "%s: %d sessions in the stores, %d added, %d updated, %d removed, %d unchanged (%s read)\n",
					how, res.Sessions, res.Added, res.Updated, res.Removed, res.Unchanged, humanBytes(res.Bytes))
			}
			if res != nil {
				for _, wr := range res.Warnings {
					fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", wr)
				}
			}
			fmt.Fprintf(w, "index: %s\n  %d sessions (%s of session files), %d entries, %s on disk\n", st.Path, st.Sessions,
				humanBytes(st.Indexed), st.Entries, humanBytes(st.Bytes))
			if st.Runs > 0 {
				fmt.Fprintf(w, "  %d runs from the bus (%d entries; the daemon indexes them as they run)\n", st.Runs, st.RunEntries)
			}
			if !st.Refresh.IsZero() {
				fmt.Fprintf(w, "  last refresh: %s\n", st.Refresh.Local().Format("2006-01-02 15:04:05"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&rebuild, "rebuild", false, "drop the index and read every session again")
	cmd.Flags().BoolVar(&noRefresh, "no-refresh", false, "only say what the index holds")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&watch, "watch", false, "keep the index fresh until interrupted")
	cmd.MarkFlagsMutuallyExclusive("watch", "no-refresh")
	cmd.MarkFlagsMutuallyExclusive("watch", "json")
	return cmd
}

// watchIndex keeps ix fresh until ctx ends.
func watchIndex(ctx context.Context, f *Factory, ix *index.Index) error {
	fmt.Fprintf(f.IO.ErrOut, "stead: bringing %s up to date...\n", ix.Path())
	err := ix.Watch(ctx, f.Env, func(r index.Refreshed) {
		fmt.Fprintf(f.IO.ErrOut, "stead: watching the stores of %d sessions; Ctrl-C to stop\n", r.Sessions)
	})
	if errors.Is(err, index.ErrWatched) {
		return fmt.Errorf("%w (stead serve keeps the index fresh whenever there is one; see stead serve status)", err)
	}
	return err
}
