package bus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bus.Request
		err  string
	}{
		{in: `{"v":1,"op":"stop"}`, want: bus.Request{V: 1, Op: bus.OpStop}},
		{in: `{"v":1,"op":"prompt","prompt":"fix the tests\nplease"}`, want: bus.Request{V: 1, Op: bus.OpPrompt, Prompt: "fix the tests\nplease"}},
		{in: `{"v":1,"op":"prompt"}`, want: bus.Request{V: 1, Op: bus.OpPrompt}},
		{in: `{"v":1,"op":"input","data":"aGVsbG8N"}`, want: bus.Request{V: 1, Op: bus.OpInput, Data: []byte("hello\r")}},
		{in: `{"v":1,"op":"resize","rows":50,"cols":200}`, want: bus.Request{V: 1, Op: bus.OpResize, Rows: 50, Cols: 200}},
		{in: `{"v":1,"op":"resize"}`, want: bus.Request{V: 1, Op: bus.OpResize}},
		// What an op does not take is dropped.
		{in: `{"v":1,"op":"stop","prompt":"x","rows":3}`, want: bus.Request{V: 1, Op: bus.OpStop}},
		{in: `{"v":1,"op":"resize","rows":1000,"cols":2001}`, err: "at most 1000 rows and 2000 columns"},
		{in: `{"v":1,"op":"resize","rows":65536,"cols":1}`, err: "not a stead request"},
		{in: `{"v":1,"op":"resize","rows":-1,"cols":1}`, err: "not a stead request"},
		{in: `{"v":2,"op":"stop"}`, err: "version 2; this supervisor speaks version 1"},
		{in: `{"op":"stop"}`, err: "no version"},
		{in: `{"v":1,"op":"Stop"}`, err: `unknown op "Stop"`},
		{in: `stop`, err: "not a stead request"},
		{in: "prompt\nhello", err: "not a stead request"},
		{in: strings.Repeat("x", 1<<20), err: `not a stead request (JSON of version 1): "xxxxxxxx`},
	} {
		got, err := bus.ParseRequest([]byte(tc.in))
		switch {
		case tc.err == "" && (err != nil || !reflect.DeepEqual(got, tc.want)):
			t.Errorf("ParseRequest(%.40q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		case tc.err != "" && (!errors.Is(err, bus.ErrBadRequest) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseRequest(%.40q): error %v, want ErrBadRequest containing %q", tc.in, err, tc.err)
		case err != nil && len(err.Error()) > 200:
			t.Errorf("ParseRequest(%.40q): an error of %d bytes", tc.in, len(err.Error()))
		}
	}
}

// TestReplyCodes checks that each sentinel a supervisor's handler wraps
// comes back to the asking client as the same sentinel, with the
// handler's text, and that a code a later version adds is a failure.
func TestReplyCodes(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	wrapped := map[string]error{
		"bad":     fmt.Errorf("resize refused: %w", bus.ErrBadRequest),
		"gone":    fmt.Errorf("no run here: %w", bus.ErrNoRun),
		"exited":  fmt.Errorf("codex: %w", bus.ErrNotRunning),
		"failed":  errors.New("the CLI did not take the prompt"),
		"success": nil,
	}
	stop, err := b.Serve("r", bus.Control, func(req bus.Request) error { return wrapped[req.Prompt] })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for prompt, want := range wrapped {
		err := b.Ask(c, "r", bus.Request{Op: bus.OpPrompt, Prompt: prompt})
		switch {
		case want == nil && err != nil:
			t.Errorf("%s: %v", prompt, err)
		case want == nil:
		case !strings.Contains(err.Error(), want.Error()):
			t.Errorf("%s: %v, want the handler's text %q", prompt, err, want)
		case prompt == "failed" && !errors.Is(err, bus.ErrFailed):
			t.Errorf("%s: %v is not ErrFailed", prompt, err)
		case prompt != "failed" && !errors.Is(err, errors.Unwrap(want)):
			t.Errorf("%s: %v is not %v", prompt, err, errors.Unwrap(want))
		}
	}
	// Input on the control subject is refused, and the other way round.
	if err := b.Ask(c, "r", bus.Request{Op: bus.OpInput, Data: []byte("x")}); !errors.Is(err, bus.ErrBadRequest) {
		t.Errorf("input on the control subject: %v", err)
	}
	r, err := bus.ParseReply([]byte(`{"v":7,"code":"quota_exceeded","error":"later"}`))
	if err != nil || !errors.Is(r.Err(), bus.ErrFailed) || r.Err().Error() != "later" {
		t.Errorf("an unknown code: %+v, %v", r, err)
	}
	if _, err := bus.ParseReply([]byte("ok")); err == nil {
		t.Error("a reply that is not JSON was taken")
	}
}

// TestStopNotHeldUpByPrompt: a control request is answered while another
// is still being handled (a prompt waiting for the CLI to be ready), and
// stopping the service waits for the handler under way.
func TestStopNotHeldUpByPrompt(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	started, release := make(chan struct{}), make(chan struct{})
	var handled atomic.Int32
	stop, err := b.Serve("r", bus.Control, func(req bus.Request) error {
		if req.Op == bus.OpPrompt {
			close(started)
			<-release
		}
		handled.Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	prompted := make(chan error, 1)
	go func() { prompted <- b.Ask(c, "r", bus.Request{Op: bus.OpPrompt, Prompt: "slow"}) }()
	<-started
	sctx, cancel := context.WithTimeout(c, 5*time.Second)
	defer cancel()
	if err := b.Ask(sctx, "r", bus.Request{Op: bus.OpStop}); err != nil {
		t.Fatalf("a stop while a prompt is being handled: %v", err)
	}
	close(release)
	if err := <-prompted; err != nil {
		t.Errorf("the prompt: %v", err)
	}
	stop()
	if n := handled.Load(); n != 2 {
		t.Errorf("%d requests handled by the time stop returned; want 2", n)
	}
}

// FuzzParseRequest checks that a request is refused with a short error
// that wraps ErrBadRequest, or read as a request whose JSON reads back
// the same, and that a resize never asks for a screen larger than
// MaxRows×MaxCols.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{`{"v":1,"op":"stop"}`, `{"v":1,"op":"prompt","prompt":"hello\nworld"}`, `{"v":1,"op":"input","data":"eA=="}`,
		`{"v":1,"op":"resize","rows":1000,"cols":2000}`, `{"v":1,"op":"resize","rows":99999}`, `{"v":3,"op":"stop"}`, "stop"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := bus.ParseRequest(data)
		if err != nil {
			if !errors.Is(err, bus.ErrBadRequest) || len(err.Error()) > 200 {
				t.Fatalf("error %v (%d bytes)", err, len(err.Error()))
			}
			return
		}
		if req.Op == bus.OpResize && (req.Rows > bus.MaxRows || req.Cols > bus.MaxCols) {
			t.Fatalf("resize to %dx%d accepted", req.Rows, req.Cols)
		}
		wire, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := bus.ParseRequest(wire)
		if err != nil || !reflect.DeepEqual(again, req) {
			t.Fatalf("%q reads as %+v, whose encoding %s reads as %+v, %v", data, req, wire, again, err)
		}
	})
}
