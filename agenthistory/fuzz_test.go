package agenthistory_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/session"
)

// FuzzReader reads arbitrary exports, seeded from the golden file. The
// reader must never panic; whatever it reads must export; and that export
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
		r.Warnings()
		once := export(t, ss)
		back, _ := importAll(t, once, "once.ndjson")
		if twice := export(t, back); !bytes.Equal(once, twice) {
			t.Errorf("export → import → export differs:\n%s", firstDiff(once, twice))
		}
	})
}
