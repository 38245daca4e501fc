package main

import (
	"context"
	"errors"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
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
