package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// The requests a daemon takes from the bus, read by pure functions so
// that the handlers act only on checked values and the parsing can be
// fuzzed (requests_test.go). Anyone holding the bus's token can send them.

// parseWorkRequest reads a work request (a JSON workRequest, as detachRun
// sends it) and checks its spec: the run id is a bus subject token, the
// CLI is one stead runs, the project directory is an absolute path, the
// source is the run's stored session and the model cannot be taken for a
// flag of the CLI.
func parseWorkRequest(data []byte) (runs.Spec, error) {
	spec, _, err := parseWork(data)
	return spec, err
}

// parseWork is parseWorkRequest, also returning the environment the
// request carries (nil from a client that sends none: the worker's own is
// used then). A home that is not an absolute path is refused.
func parseWork(data []byte) (runs.Spec, *session.Env, error) {
	var req workRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return runs.Spec{}, nil, fmt.Errorf("bad work request: %w", err)
	}
	if req.Env != nil && (!filepath.IsAbs(req.Env.Home) || strings.ContainsRune(req.Env.Home, 0)) {
		return runs.Spec{}, nil, fmt.Errorf("bad work request: home %.200q is not an absolute path", req.Env.Home)
	}
	spec, err := checkSpec(req.Spec)
	return spec, req.Env, err
}

// checkSpec checks a work request's spec.
func checkSpec(spec runs.Spec) (runs.Spec, error) {
	if !bus.ValidRun(spec.ID) {
		return runs.Spec{}, fmt.Errorf("bad run id %.80q", spec.ID)
	}
	if err := runnable(spec.To); err != nil {
		return runs.Spec{}, fmt.Errorf("bad work request: to: %w", err)
	}
	switch {
	case !filepath.IsAbs(spec.Dir) || strings.ContainsRune(spec.Dir, 0):
		return runs.Spec{}, fmt.Errorf("bad work request: dir %.200q is not an absolute path", spec.Dir)
	case spec.Source != runs.HistoryObject(spec.ID):
		// detachRun stores the session under this name just before it
		// asks; another name would start the run from another session.
		return runs.Spec{}, fmt.Errorf("bad work request: source %.80q is not run %s's session", spec.Source, spec.ID)
	case strings.HasPrefix(spec.Model, "-") || strings.IndexFunc(spec.Model, unicode.IsControl) >= 0:
		// The model goes on the CLI's command line.
		return runs.Spec{}, fmt.Errorf("bad work request: model %.80q", spec.Model)
	}
	return spec, nil
}
