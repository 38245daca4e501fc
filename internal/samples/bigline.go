package samples

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigLineID is the session id of the file BigLine writes.
const bigLineID = "5f0c1a7e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"

// BigLine writes a Claude Code session whose tool result is one record of
// about size bytes, as Claude Code writes a large command output: the
// output twice (the result block's content and toolUseResult.stdout),
// many short lines with characters JSON escapes (quotes, tabs,
// backslashes) and others it does not (é, →). Around it are a prompt, the
// tool call and an answer. It returns the file's path.
func BigLine(tb testing.TB, size int64) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), bigLineID+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	head := `"userType":"external","entrypoint":"cli","cwd":"/home/dev/work/big","sessionId":"` + bigLineID + `","version":"2.1.330","gitBranch":"main"`
	fmt.Fprintf(w, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Print the build log"},"uuid":"a0000000-0000-4000-8000-000000000001","timestamp":"2026-11-21T19:12:09.761Z",%s}`+"\n", head)
	fmt.Fprintf(w, `{"parentUuid":"a0000000-0000-4000-8000-000000000001","isSidechain":false,"message":{"id":"msg_big_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_big_1","name":"Bash","input":{"command":"cat build.log","description":"Print the build log"}}],"stop_reason":"tool_use","usage":{"input_tokens":136,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":20}},"requestId":"req_big_1","type":"assistant","uuid":"a0000000-0000-4000-8000-000000000002","timestamp":"2026-11-21T19:12:10.000Z",%s}`+"\n", head)
	// Each copy of the output is half the record.
	line := "2026-11-21T19:12:09.906Z INFO worker[%d]: built \"pkg/%d\"\tin C:\\tmp é → ok\n"
	escaped := func(n int) string {
		s := fmt.Sprintf(line, n%16, n)
		return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`).Replace(s)
	}
	writeOutput := func() {
		for n, written := 0, int64(0); written < size/2; n++ {
			k, _ := w.WriteString(escaped(n))
			written += int64(k)
		}
	}
	fmt.Fprint(w, `{"parentUuid":"a0000000-0000-4000-8000-000000000002","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_big_1","type":"tool_result","content":"`)
	writeOutput()
	fmt.Fprint(w, `","is_error":false}]},"uuid":"a0000000-0000-4000-8000-000000000003","timestamp":"2026-11-21T19:12:14.000Z","toolUseResult":{"stdout":"`)
	writeOutput()
	fmt.Fprintf(w, `","stderr":"","interrupted":false,"isImage":false},"sourceToolAssistantUUID":"a0000000-0000-4000-8000-000000000002",%s}`+"\n", head)
	fmt.Fprintf(w, `{"parentUuid":"a0000000-0000-4000-8000-000000000003","isSidechain":false,"message":{"id":"msg_big_2","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"The build succeeded."}],"stop_reason":"end_turn","usage":{"input_tokens":9000,"cache_creation_input_tokens":0,"cache_read_input_tokens":136,"output_tokens":8}},"requestId":"req_big_2","type":"assistant","uuid":"a0000000-0000-4000-8000-000000000004","timestamp":"2026-11-21T19:12:20.000Z",%s}`+"\n", head)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}
