package main

import "testing"

// TestHostRef: <host>:<cli>:<id> names another machine's session; a
// CLI's reference, a run's and a malformed one do not.
func TestHostRef(t *testing.T) {
	for ref, want := range map[string]string{
		"laptop:claude:742233ee-d311-4040-bf40-f490e4667f65": "laptop",
		"node-1:codex:01a1ff8c-5b6b-7b51-b595-f342cca3b147":  "node-1",
		"claude:742233ee-d311-4040-bf40-f490e4667f65":        "",
		"run:20261120-100000-abc":                            "",
		"laptop:claude:../../etc/passwd":                     "",
		"laptop:nocli:x":                                     "",
		"lap.top:claude:x":                                   "",
		"/tmp/x.jsonl":                                       "",
	} {
		host, _, ok := hostRef(ref)
		if ok != (want != "") || host != want {
			t.Errorf("hostRef(%q) = %q, %v; want %q", ref, host, ok, want)
		}
	}
}
