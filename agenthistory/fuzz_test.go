package agenthistory_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/session"
)

// FuzzReader reads arbitrary exports, seeded from the golden file. The
// reader must never panic; each warning names a line of the file; whatever
// it reads must export; and that export
// must read back to the same export (export → import → export is a fixed
// point, whatever the first file held).
func FuzzReader(f *testing.F) {
	g := goldenLines(f)
	f.Add([]byte(strings.Join(g, "\n") + "\n"))
	for _, l := range g[1:] {
		f.Add([]byte(header(1) + "\n" + l + "\n"))
		f.Add([]byte(header(1) + "\n" + l[:len(l)/3]))
	}
	f.Add([]byte(header(1) + "\n" + `{"type":"session","session":{"id":"s","agent":"x","source":{"type":"wsl","host":"h"}},"messages":[{"index":1,"uuid":"a","role":"assistant","content":[{"type":"tool_use","tool_id":"t","input":{"x": 1}},{"type":"image"},{"type":"tool_result","tool_id":"t","is_error":true}],"metadata":{"cwd":"/elsewhere","request_id":"r"}},{"index":2,"uuid":"b","parent_uuid":"a","role":"user","content":"hi"}],"graph":{"is_linear":false}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := agenthistory.NewReader(bytes.NewReader(data), "fuzz.ndjson")
		if err != nil {
			return
		}
		r.Header()
		var ss []*session.Session
		for {
			s, err := r.Next()
			if err != nil {
				if err != io.EOF {
					return
				}
				break
			}
			ss = append(ss, s)
		}
		checkWarnings(t, r.Warnings(), data)
		once := export(t, ss)
		back, _ := importAll(t, once, "once.ndjson")
		if twice := export(t, back); !bytes.Equal(once, twice) {
			t.Errorf("export → import → export differs:\n%s", firstDiff(once, twice))
		}
	})
}

// checkWarnings checks that each warning is a *LineError naming a line of
// data (of what it decompresses to, when it is gzipped).
func checkWarnings(t *testing.T, warns []error, data []byte) {
	t.Helper()
	lines := bytes.Count(data, []byte("\n")) + 1
	gzipped := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
	for _, w := range warns {
		var le *agenthistory.LineError
		if !errors.As(w, &le) || le.Line < 1 || !gzipped && le.Line > lines {
			t.Fatalf("a warning that names no line of the %d: %v", lines, w)
		}
	}
}
