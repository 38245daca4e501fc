package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// resolveRef finds the adapter and session a reference names (see
// catalog.Resolve); a file no adapter recognises is a usage error.
func resolveRef(env session.Env, ref, cli string) (adapters.Adapter, session.Ref, error) {
	a, r, err := catalog.Resolve(env, ref, cli)
	if errors.Is(err, catalog.ErrUndetected) {
		err = flagErrorf("%v", err)
	}
	return a, r, err
}

// resolveRun returns the record of the run ref names (see
// runs.ResolveRun).
func resolveRun(ctx context.Context, b *bus.Bus, ref string) (live.Run, error) {
	return (&runs.Supervisor{Bus: b}).ResolveRun(ctx, ref)
}

// resolveAB returns the id of the A/B run ref names (see runs.ResolveAB).
func resolveAB(env session.Env, ref string) (string, error) {
	return runs.ResolveAB(abRoot(env), ref)
}

// hostRef splits a reference to a session of another machine,
// <host>:<cli>:<id> (a host of stead session list --hosts all), into the
// host and <cli>:<id>. A file of that name is a file, and <cli>:<id> and
// run:<run> are what they are.
func hostRef(ref string) (host, rest string, ok bool) {
	host, rest, ok = strings.Cut(ref, ":")
	if !ok || host == "run" || !bus.ValidHost(host) || !hosts.ValidRef(rest) {
		return "", "", false
	}
	if _, known := adapters.Lookup(host); known {
		return "", "", false
	}
	if _, err := os.Lstat(ref); err == nil {
		return "", "", false
	}
	return host, rest, true
}

// onBus reports whether ref names a session read through the bus: a run's
// (run:<run>) or another machine's (<host>:<cli>:<id>).
func onBus(ref string) bool {
	_, _, ok := hostRef(ref)
	return ok || strings.HasPrefix(ref, "run:")
}

// fetchWait is how long reading a session of another machine may take.
const fetchWait = time.Minute
