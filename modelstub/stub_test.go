package modelstub_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/modelstub"
)

// TestStartRefuses checks the options Start rejects and what it says.
func TestStartRefuses(t *testing.T) {
	t.Parallel()
	ok := script(modelstub.Turn{Text: "a"})
	tests := []struct {
		name string
		opts modelstub.Options
		err  string
	}{
		{"no script", modelstub.Options{}, "modelstub: no script"},
		{"no turns", modelstub.Options{Script: &modelstub.Script{}}, "script: no turns"},
		{"bad script", modelstub.Options{Script: script(modelstub.Turn{Fault: "teapot"})}, `unknown fault "teapot"`},
		{"empty turn", modelstub.Options{Script: script(modelstub.Turn{Text: "a"}, modelstub.Turn{})}, "turn 2 is empty"},
		{"all interfaces", modelstub.Options{Script: ok, Addr: "0.0.0.0:0"}, `address "0.0.0.0:0" is not a loopback address`},
		{"no host", modelstub.Options{Script: ok, Addr: ":0"}, "is not a loopback address"},
		{"private address", modelstub.Options{Script: ok, Addr: "10.0.0.1:0"}, `address "10.0.0.1:0" is not a loopback address`},
		{"IPv6 any", modelstub.Options{Script: ok, Addr: "[::]:0"}, "is not a loopback address"},
		{"host name", modelstub.Options{Script: ok, Addr: "example.com:80"}, "is not a loopback address"},
		{"no port", modelstub.Options{Script: ok, Addr: "127.0.0.1"}, `modelstub: address "127.0.0.1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := modelstub.Start(tt.opts)
			if err == nil {
				s.Close()
				t.Fatalf("Start accepted %+v", tt.opts)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q, want it to contain %q", err, tt.err)
			}
		})
	}
}

// TestStartLoopback checks the loopback addresses Start accepts, and that
// the stub answers on URL.
func TestStartLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "127.0.0.1:0", "localhost:0"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "a"}), Addr: addr})
			if u := s.URL(); !strings.HasPrefix(u, "http://127.0.0.1:") && !strings.HasPrefix(u, "http://[::1]:") {
				t.Errorf("URL = %q, want a loopback URL", u)
			}
			if strings.HasSuffix(s.URL(), ":0") {
				t.Errorf("URL = %q, want the port picked", s.URL())
			}
			if r := send(t, http.MethodHead, s.URL()+"/", nil); r.status != 200 {
				t.Errorf("HEAD / = %d", r.status)
			}
		})
	}
}

// TestCloseAndWait checks that Wait blocks until Close, Close can be
// called again, and a closed stub no longer answers.
func TestCloseAndWait(t *testing.T) {
	t.Parallel()
	s, err := modelstub.Start(modelstub.Options{Script: script(modelstub.Turn{Text: "a"})})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	select {
	case err := <-waited:
		t.Fatalf("Wait returned %v before Close", err)
	case <-time.After(20 * time.Millisecond):
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("Wait: %v, want nil after Close", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Wait did not return after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Wait(); err != nil {
		t.Errorf("second Wait: %v", err)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	if resp, err := client.Post(s.URL()+chatPath, "application/json", strings.NewReader("{}")); err == nil {
		resp.Body.Close()
		t.Error("a closed stub answered")
	}
}

// TestCloseWithUnusedConnection checks that Close is prompt while a
// client holds a connection it has sent no request on yet, as HTTP clients
// do when they dial ahead or keep a spare connection.
func TestCloseWithUnusedConnection(t *testing.T) {
	t.Parallel()
	s, err := modelstub.Start(modelstub.Options{Script: script(modelstub.Turn{Text: "a"})})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A request on a second connection: the server accepts connections
	// in order, so the idle one is now open on its side.
	if r := send(t, http.MethodHead, s.URL()+"/", nil); r.status != 200 {
		t.Fatalf("HEAD / = %d", r.status)
	}
	began := time.Now()
	s.Close()
	if d := time.Since(began); d > time.Second {
		t.Errorf("Close took %v", d)
	}
}

// TestConcurrentRequests checks that parallel main requests each take
// their own turn.
func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	const n = 16
	var turns []modelstub.Turn
	for i := 1; i <= n; i++ {
		turns = append(turns, modelstub.Turn{Text: "turn " + string(rune('a'+i-1))})
	}
	s := start(t, modelstub.Options{Script: script(turns...), Log: &syncBuffer{}})
	// A client of its own, whose spare connections are closed before the
	// stub is (see TestCloseWithUnusedConnection).
	tr := &http.Transport{}
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	body := load(t, "chat_opencode_main.json")
	texts := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(s.URL()+chatPath, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			texts[i] = b.String()
		}()
	}
	wg.Wait()
	if s.Played() != n {
		t.Errorf("Played = %d, want %d", s.Played(), n)
	}
	var got []int
	seqs := map[int]bool{}
	for _, r := range s.Requests() {
		got = append(got, r.Turn)
		seqs[r.Seq] = true
	}
	sort.Ints(got)
	for i := range got {
		if got[i] != i+1 {
			t.Fatalf("turns taken = %v, want each of 1..%d once", got, n)
		}
	}
	if len(seqs) != n {
		t.Errorf("%d distinct Seq values for %d requests", len(seqs), n)
	}
	var answered []string
	for _, b := range texts {
		answered = append(answered, readChatStream(t, []byte(b)).text)
	}
	sort.Strings(answered)
	for i, a := range answered {
		if a != turns[i].Text {
			t.Fatalf("answers = %q, want each turn once", answered)
		}
	}
}

// syncBuffer is a log writer safe to read while the stub writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestLog checks the JSONL log: one JSON line per request, in order, with
// its sequence number, API, side flag, turn, fault and the body as sent.
func TestLog(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	s := start(t, modelstub.Options{Log: &log, Script: script(
		modelstub.Turn{Fault: modelstub.Fault500, FaultTimes: 1, Text: "a"},
	)})
	sent := []struct {
		path string
		body []byte
	}{
		{anthropicPath, load(t, "anthropic_main.json")},
		{anthropicPath, load(t, "anthropic_main.json")},
		{countTokensPath, load(t, "anthropic_count_tokens.json")},
		{geminiStream, load(t, "gemini_main.json")},
		{responsesPath, load(t, "responses_title.json")},
		{chatPath, []byte("not json")},
	}
	for _, r := range sent {
		req, _ := http.NewRequest(http.MethodPost, s.URL()+r.path, bytes.NewReader(r.body))
		req.Header.Set("X-Api-Key", "sk-ant-api03-secret")
		req.Header.Set("Authorization", "Bearer sk-secret")
		req.Header.Set("User-Agent", "claude-cli/2.1.330 (external, cli)")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	type line struct {
		Seq     int             `json:"seq"`
		Time    time.Time       `json:"time"`
		API     modelstub.API   `json:"api"`
		Path    string          `json:"path"`
		Side    bool            `json:"side"`
		Turn    int             `json:"turn"`
		Fault   string          `json:"fault"`
		Body    json.RawMessage `json:"body"`
		Headers map[string]string
	}
	want := []line{
		{Seq: 1, API: modelstub.Anthropic, Path: anthropicPath, Turn: 1, Fault: "500"},
		{Seq: 2, API: modelstub.Anthropic, Path: anthropicPath, Turn: 1},
		{Seq: 3, API: modelstub.Anthropic, Path: countTokensPath, Side: true},
		{Seq: 4, API: modelstub.Gemini, Path: geminiStream},
		{Seq: 5, API: modelstub.Responses, Path: responsesPath, Side: true},
		{Seq: 6, API: modelstub.Chat, Path: chatPath, Side: true},
	}
	text := log.String()
	if strings.Contains(text, "sk-") {
		t.Error("the log holds a credential")
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		raw := sc.Bytes()
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			t.Fatalf("log line %d is not a JSON object: %v\n%.200s", i+1, err, raw)
		}
		for _, k := range []string{"seq", "time", "api", "path", "side", "stream", "messages", "body"} {
			if _, ok := keys[k]; !ok {
				t.Errorf("log line %d lacks %q", i+1, k)
			}
		}
		var l line
		json.Unmarshal(raw, &l)
		if i >= len(want) {
			continue
		}
		w := want[i]
		if l.Seq != w.Seq || l.API != w.API || l.Path != w.Path || l.Side != w.Side || l.Turn != w.Turn || l.Fault != w.Fault {
			t.Errorf("log line %d = seq %d api %s path %s side %v turn %d fault %q; want %+v",
				i+1, l.Seq, l.API, l.Path, l.Side, l.Turn, l.Fault, w)
		}
		if l.Time.IsZero() {
			t.Errorf("log line %d has no time", i+1)
		}
		if ua := l.Headers["user-agent"]; i < 5 && ua != "claude-cli/2.1.330 (external, cli)" {
			t.Errorf("log line %d user-agent = %q", i+1, ua)
		}
		// The body is the body as sent (a bad one as a JSON string).
		if i < 5 {
			if !reflect.DeepEqual(decode(t, l.Body), decode(t, sent[i].body)) {
				t.Errorf("log line %d body differs from the body sent", i+1)
			}
		} else if string(l.Body) != `"not json"` {
			t.Errorf("log line %d body = %s", i+1, l.Body)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(want) || len(s.Requests()) != len(want) {
		t.Errorf("%d log lines, %d requests recorded; want %d", i, len(s.Requests()), len(want))
	}
	if err := s.LogErr(); err != nil {
		t.Errorf("LogErr: %v", err)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %.100s", err, b)
	}
	return v
}

// failingWriter fails every write and counts them.
type failingWriter struct {
	mu     sync.Mutex
	writes int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return 0, errors.New("disk full")
}

// TestLogErr checks that a failing log does not stop the stub, is
// reported by LogErr, and is not retried for every request.
func TestLogErr(t *testing.T) {
	t.Parallel()
	w := &failingWriter{}
	s := start(t, modelstub.Options{Log: w, Script: script(modelstub.Turn{Text: "a"}, modelstub.Turn{Text: "b"})})
	if err := s.LogErr(); err != nil {
		t.Fatalf("LogErr before any request: %v", err)
	}
	body := load(t, "chat_opencode_main.json")
	if a := readChatStream(t, postOK(t, s, chatPath, body).body); a.text != "a" {
		t.Errorf("answer %q", a.text)
	}
	if a := readChatStream(t, postOK(t, s, chatPath, body).body); a.text != "b" {
		t.Errorf("answer %q", a.text)
	}
	if err := s.LogErr(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("LogErr = %v, want the write error", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writes != 1 {
		t.Errorf("%d writes to a failed log, want 1", w.writes)
	}
	if len(s.Requests()) != 2 {
		t.Errorf("%d requests recorded in memory, want 2", len(s.Requests()))
	}
}

// TestPlay checks that a new script replaces the old one from its first
// turn, whatever was played before, and that a bad one is refused.
func TestPlay(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "first-A"}, modelstub.Turn{Text: "second-A"})})
	if a := readAnthropicStream(t, postOK(t, s, anthropicPath, load(t, "anthropic_main.json")).body); a.text != "first-A" {
		t.Fatalf("before Play: %q", a.text)
	}
	if err := s.Play(script(modelstub.Turn{Text: "first-B"})); err != nil {
		t.Fatal(err)
	}
	if a := readAnthropicStream(t, postOK(t, s, anthropicPath, load(t, "anthropic_main.json")).body); a.text != "first-B" {
		t.Errorf("after Play: %q, want the new script's first turn", a.text)
	}
	if err := s.Play(&modelstub.Script{}); err == nil {
		t.Error("Play took a script with no turns")
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests recorded, want the 2 made (Play keeps them)", n)
	}
}
