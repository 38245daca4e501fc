package modelstub_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/modelstub"
)

// TestHTTPFaults checks that 429 and 500 come back with the status and
// error shape of the API the request used, so each CLI's SDK recognises
// them.
func TestHTTPFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api, file, path string
		check           func(t *testing.T, code int, m map[string]any)
	}{
		{"anthropic", "anthropic_main.json", anthropicPath, func(t *testing.T, code int, m map[string]any) {
			want := map[int]string{429: "rate_limit_error", 500: "api_error"}[code]
			if str(m, "type") != "error" || str(m, "error", "type") != want {
				t.Errorf("error = %v, want type error with error.type %s", m, want)
			}
		}},
		{"responses", "responses_main.json", responsesPath, func(t *testing.T, code int, m map[string]any) {
			want := map[int]string{429: "rate_limit_exceeded", 500: "server_error"}[code]
			if str(m, "error", "type") != want {
				t.Errorf("error = %v, want error.type %s", m, want)
			}
		}},
		{"chat", "chat_opencode_main.json", chatPath, func(t *testing.T, code int, m map[string]any) {
			want := map[int]string{429: "rate_limit_exceeded", 500: "server_error"}[code]
			if str(m, "error", "type") != want {
				t.Errorf("error = %v, want error.type %s", m, want)
			}
		}},
		{"gemini", "gemini_main.json", geminiStream, func(t *testing.T, code int, m map[string]any) {
			want := map[int]string{429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}[code]
			if num(m, "error", "code") != float64(code) || str(m, "error", "status") != want {
				t.Errorf("error = %v, want code %d and status %s", m, code, want)
			}
		}},
	}
	for _, tt := range tests {
		for _, fault := range []string{modelstub.Fault429, modelstub.Fault500} {
			t.Run(tt.api+" "+fault, func(t *testing.T) {
				t.Parallel()
				s := start(t, modelstub.Options{Script: script(modelstub.Turn{Fault: fault, Text: "never"})})
				r := post(t, s, tt.path, load(t, tt.file))
				code := map[string]int{"429": 429, "500": 500}[fault]
				if r.status != code {
					t.Fatalf("status = %d, want %d", r.status, code)
				}
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				m := obj(t, string(r.body))
				tt.check(t, code, m)
				if msg := str(m, "error", "message"); !strings.Contains(msg, "fault "+fault+" injected at turn 1") {
					t.Errorf("message = %q, want it to say which fault and turn", msg)
				}
				// Without RetryAfterMs, a 429 asks for a retry in a second;
				// a 500 says nothing.
				wantRetry := map[string]string{"429": "1", "500": ""}[fault]
				if got := r.header.Get("Retry-After"); got != wantRetry {
					t.Errorf("Retry-After = %q, want %q", got, wantRetry)
				}
				if got := r.header.Get("Retry-After-Ms"); got != "" {
					t.Errorf("Retry-After-Ms = %q without RetryAfterMs", got)
				}
				rec := only(t, s)
				if rec.Fault != fault || rec.Turn != 1 || rec.Side || s.Played() != 0 {
					t.Errorf("recorded Fault %q Turn %d Side %v, Played %d", rec.Fault, rec.Turn, rec.Side, s.Played())
				}
			})
		}
	}
}

// TestFaultTimes checks that a turn faults the given number of requests,
// then plays.
func TestFaultTimes(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: script(
		modelstub.Turn{Fault: modelstub.Fault500, FaultTimes: 2, Text: "recovered"},
		modelstub.Turn{Text: "next"},
	)})
	body := load(t, "chat_opencode_main.json")
	for i := 1; i <= 2; i++ {
		if r := post(t, s, chatPath, body); r.status != 500 {
			t.Fatalf("request %d: status %d, want 500", i, r.status)
		}
		if s.Played() != 0 {
			t.Fatalf("Played = %d after a fault", s.Played())
		}
	}
	if a := readChatStream(t, postOK(t, s, chatPath, body).body); a.text != "recovered" {
		t.Errorf("third request got %q, want the turn", a.text)
	}
	if a := readChatStream(t, postOK(t, s, chatPath, body).body); a.text != "next" {
		t.Errorf("fourth request got %q, want the next turn", a.text)
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, fmt.Sprintf("%s@%d", r.Fault, r.Turn))
	}
	if want := []string{"500@1", "500@1", "@1", "@2"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fault@turn = %q, want %q", got, want)
	}
}

// TestFaultEveryRequest checks that FaultTimes 0 faults every request,
// retries included, so the CLI fails for good, while side requests are
// still answered.
func TestFaultEveryRequest(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Fault: modelstub.Fault429, Text: "never"})})
	body := load(t, "anthropic_main.json")
	for i := 0; i < 4; i++ {
		if r := post(t, s, anthropicPath, body); r.status != 429 {
			t.Fatalf("request %d: status %d, want 429", i+1, r.status)
		}
	}
	postOK(t, s, countTokensPath, load(t, "anthropic_count_tokens.json"))
	postOK(t, s, chatPath, load(t, "chat_opencode_title.json"))
	if s.Played() != 0 {
		t.Errorf("Played = %d, want 0", s.Played())
	}
	if n := len(s.MainRequests()); n != 4 {
		t.Errorf("MainRequests = %d, want 4", n)
	}
}

// TestRetryAfter checks the retry headers RetryAfterMs sets.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault  string
		ms     int
		ms2, s string
	}{
		{modelstub.Fault429, 1500, "1500", "2"},
		{modelstub.Fault429, 0, "0", "0"},
		{modelstub.Fault500, 250, "250", "1"},
		{modelstub.Fault500, 3000, "3000", "3"},
	}
	for _, tt := range tests {
		t.Run(tt.fault+" "+tt.ms2, func(t *testing.T) {
			t.Parallel()
			ms := tt.ms
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Fault: tt.fault, FaultTimes: 1, RetryAfterMs: &ms, Text: "ok"})})
			r := post(t, s, responsesPath, load(t, "responses_main.json"))
			if r.header.Get("Retry-After-Ms") != tt.ms2 || r.header.Get("Retry-After") != tt.s {
				t.Errorf("Retry-After-Ms %q, Retry-After %q; want %q, %q",
					r.header.Get("Retry-After-Ms"), r.header.Get("Retry-After"), tt.ms2, tt.s)
			}
		})
	}
}

// TestFaultOnlyTurnGivesWay checks that a turn holding only a fault gives
// way to the next turn once its faults are spent, and that the answer is
// one the API's clients can read.
func TestFaultOnlyTurnGivesWay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, path string
		stream           bool
		read             func(*testing.T, []byte) answer
	}{
		{"anthropic stream", "anthropic_main.json", anthropicPath, true, readAnthropicStream},
		{"responses stream", "responses_main.json", responsesPath, true, readResponsesStream},
		{"chat stream", "chat_opencode_main.json", chatPath, true, readChatStream},
		{"gemini stream", "gemini_main.json", geminiStream, true, readGeminiStream},
		{"chat unary", "chat_opencode_main.json", chatPath, false, readChatCompletion},
		{"anthropic unary", "anthropic_main.json", anthropicPath, false, readAnthropicMessage},
		{"responses unary", "responses_main.json", responsesPath, false, readResponsesObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc, err := modelstub.ReadScript(strings.NewReader(`{"turns":[{"fault":"500","faultTimes":1},{"text":"after the fault"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			s := start(t, modelstub.Options{Script: sc})
			body := load(t, tt.file)
			if !tt.stream {
				body = with(t, body, "stream", false)
			}
			if r := post(t, s, tt.path, body); r.status != 500 {
				t.Fatalf("first request: status %d, want 500", r.status)
			}
			a := tt.read(t, postOK(t, s, tt.path, body).body)
			if a.text != "after the fault" || len(a.calls) != 0 {
				t.Errorf("answer = %v, want the second turn's text", a)
			}
			if got := s.Played(); got != 2 {
				t.Errorf("Played() = %d, want 2", got)
			}
			if reqs := s.MainRequests(); len(reqs) != 2 || reqs[1].Turn != 2 || reqs[1].Fault != "" {
				t.Errorf("the retry was not recorded as taking turn 2: %+v", reqs)
			}
		})
	}
}

// TestStallUntilClientGivesUp checks that a stall starts the stream, sends
// nothing more, and ends when the client hangs up; the stub goes on
// serving.
func TestStallUntilClientGivesUp(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Fault: modelstub.FaultStall, FaultTimes: 1, Text: "after the stall"})})
	body := load(t, "anthropic_main.json")

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+anthropicPath, bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the stall did not start a stream: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("status %d, Content-Type %q; want a 200 event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("reading the stalled stream: %v, want the client's deadline", err)
	}
	if evs := parseSSE(t, append(got, '\n')); len(evs) != 0 {
		t.Errorf("a stalled stream sent events: %+v", evs)
	}
	if rec := only(t, s); rec.Fault != modelstub.FaultStall || rec.Turn != 1 {
		t.Errorf("recorded Fault %q Turn %d", rec.Fault, rec.Turn)
	}

	// The retry gets the turn.
	if a := readAnthropicStream(t, postOK(t, s, anthropicPath, body).body); a.text != "after the stall" {
		t.Errorf("the retry got %v", a)
	}
}

// TestStallFor checks that StallFor bounds a stall: the stream then ends
// cleanly, with no events.
func TestStallFor(t *testing.T) {
	t.Parallel()
	const stall = 60 * time.Millisecond
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Fault: modelstub.FaultStall}), StallFor: stall})
	began := time.Now()
	r := postOK(t, s, chatPath, load(t, "chat_opencode_main.json"))
	if d := time.Since(began); d < stall {
		t.Errorf("the stall lasted %v, want at least %v", d, stall)
	}
	if evs := parseSSE(t, r.body); len(evs) != 0 {
		t.Errorf("events = %+v, want none", evs)
	}
}

// TestCloseEndsStall checks that Close returns promptly while a stream is
// stalled, and the stalled client's stream ends.
func TestCloseEndsStall(t *testing.T) {
	t.Parallel()
	s, err := modelstub.Start(modelstub.Options{Script: script(modelstub.Turn{Fault: modelstub.FaultStall})})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+geminiStream, bytes.NewReader(load(t, "gemini_main.json")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("first line %q, %v; want the stall's comment", line, err)
	}

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Close blocked on a stalled stream")
	}
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, br)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Fatal("the stalled stream did not end after Close")
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after Close: %v", err)
	}
}

// TestDrop checks that a drop starts the stream and cuts the connection:
// the client sees an unexpected EOF, and its retry gets the turn.
func TestDrop(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, path string }{
		{"anthropic", "anthropic_main.json", anthropicPath},
		{"responses", "responses_main.json", responsesPath},
		{"chat", "chat_kimi_main.json", chatPath},
		{"gemini", "gemini_main.json", geminiStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Fault: modelstub.FaultDrop, FaultTimes: 1, Text: "after the drop"})})
			body := load(t, tt.file)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+tt.path, bytes.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("the drop did not start a stream: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d, want 200", resp.StatusCode)
			}
			if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("reading the dropped stream: %v, want unexpected EOF", err)
			}
			if rec := only(t, s); rec.Fault != modelstub.FaultDrop {
				t.Errorf("recorded Fault %q", rec.Fault)
			}
			r := postOK(t, s, tt.path, body)
			if !bytes.Contains(r.body, []byte("after the drop")) {
				t.Errorf("the retry got %s", r.body)
			}
		})
	}
}

// TestDelay checks that DelayMs paces a stream, and that Close cuts a
// long pause short.
func TestDelay(t *testing.T) {
	t.Parallel()
	t.Run("paces", func(t *testing.T) {
		t.Parallel()
		// Role, content, finish, usage and [DONE]: five events.
		s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "hi", DelayMs: 20})})
		began := time.Now()
		a := readChatStream(t, postOK(t, s, chatPath, load(t, "chat_opencode_main.json")).body)
		if d := time.Since(began); d < 80*time.Millisecond {
			t.Errorf("the stream took %v, want at least 4 pauses of 20ms", d)
		}
		if a.text != "hi" {
			t.Errorf("text = %q", a.text)
		}
	})
	t.Run("close", func(t *testing.T) {
		t.Parallel()
		s, err := modelstub.Start(modelstub.Options{Script: script(modelstub.Turn{Text: "hi", DelayMs: 60_000})})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		body := load(t, "chat_opencode_main.json")
		got := make(chan reply, 1)
		go func() {
			resp, err := http.Post(s.URL()+chatPath, "application/json", bytes.NewReader(body))
			if err != nil {
				got <- reply{}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			got <- reply{status: resp.StatusCode, body: b}
		}()
		// Wait until the stream has started.
		deadline := time.Now().Add(3 * time.Second)
		for len(s.Requests()) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the request never arrived")
			}
			time.Sleep(time.Millisecond)
		}
		began := time.Now()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if d := time.Since(began); d > 3*time.Second {
			t.Errorf("Close took %v during a paused stream", d)
		}
		select {
		case r := <-got:
			if r.status != 200 {
				t.Fatalf("the request failed")
			}
			// The rest of the stream is sent without the pauses.
			if a := readChatStream(t, r.body); a.text != "hi" {
				t.Errorf("text = %q", a.text)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("the paused stream did not end after Close")
		}
	})
}
