package bus

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stead-dev/stead/internal/safetext"
)

// Version is the version of the requests and replies on a run's input
// and control subjects. A supervisor refuses a request of a later
// version than its own, saying which it speaks.
const Version = 1

// Op is what a request asks of a run's supervisor.
type Op string

const (
	// OpInput types Request.Data into the run's terminal (subject
	// kind Input).
	OpInput Op = "input"
	// OpStop makes the run's CLI exit: its own quit keys, then signals.
	OpStop Op = "stop"
	// OpPrompt types Request.Prompt the way the CLI takes a prompt,
	// once it is ready, and checks that it was taken.
	OpPrompt Op = "prompt"
	// OpResize sizes the run's terminal to Request.Rows×Request.Cols.
	OpResize Op = "resize"
)

// The largest terminal a resize may ask for. The capture keeps a screen
// (two grids of runes) of this size, so an unbounded one would let a
// request take gigabytes of the supervisor's memory; real terminals, even
// on an 8K display with a small font, are well inside it.
const (
	MaxRows = 1000
	MaxCols = 2000
)

// Request is a request to a run's supervisor, as JSON on the run's input
// subject (OpInput) or control subject (the others).
type Request struct {
	V  int `json:"v"`
	Op Op  `json:"op"`
	// Data is the bytes OpInput types (base64 in JSON).
	Data []byte `json:"data,omitempty"`
	// Prompt is OpPrompt's text.
	Prompt string `json:"prompt,omitempty"`
	// Rows and Cols are OpResize's size. 0 is taken: a terminal that
	// does not know its size reports 0, and the screen is then one cell.
	Rows uint16 `json:"rows,omitempty"`
	Cols uint16 `json:"cols,omitempty"`
}

// Code says how a supervisor took a request.
type Code string

const (
	CodeOK Code = "ok"
	// CodeBadRequest: the request was malformed or of an unknown
	// version or op (ErrBadRequest).
	CodeBadRequest Code = "bad_request"
	// CodeNoRun: the supervisor has no such run (ErrNoRun).
	CodeNoRun Code = "no_run"
	// CodeNotRunning: the run's CLI has exited (ErrNotRunning).
	CodeNotRunning Code = "not_running"
	// CodeFailed: the request was taken but failed (ErrFailed).
	CodeFailed Code = "failed"
)

// Reply is a supervisor's answer to a Request.
type Reply struct {
	V     int    `json:"v"`
	Code  Code   `json:"code"`
	Error string `json:"error,omitempty"`
}

// Errors a request can end in, from a Reply's code: each error Send and
// Ask return wraps one of them (or ErrNotListening, ErrClosed).
var (
	ErrBadRequest = errors.New("the supervisor refused the request")
	ErrNotRunning = errors.New("the run's CLI has exited")
	ErrFailed     = errors.New("the request failed")
)

// codes maps a Code to the error it ends in, and back.
var codes = []struct {
	code Code
	err  error
}{
	{CodeBadRequest, ErrBadRequest},
	{CodeNoRun, ErrNoRun},
	{CodeNotRunning, ErrNotRunning},
}

// ReplyOf is the reply to a request that ended in err: its code is the
// sentinel err wraps (CodeFailed for any other error), its text err's.
func ReplyOf(err error) Reply {
	if err == nil {
		return Reply{V: Version, Code: CodeOK}
	}
	code := CodeFailed
	for _, c := range codes {
		if errors.Is(err, c.err) {
			code = c.code
			break
		}
	}
	return Reply{V: Version, Code: code, Error: safetext.Clip(err.Error(), 1000)}
}

// Err is the error a reply says, nil for CodeOK. A code this version does
// not know is taken as ErrFailed.
func (r Reply) Err() error {
	if r.Code == CodeOK {
		return nil
	}
	sentinel := ErrFailed
	for _, c := range codes {
		if r.Code == c.code {
			sentinel = c.err
		}
	}
	msg := r.Error
	if msg == "" {
		msg = string(r.Code)
	}
	return &replyError{msg: msg, err: sentinel}
}

// replyError is a supervisor's error as its reply said it: its text, and
// the sentinel its code names, for errors.Is.
type replyError struct {
	msg string
	err error
}

func (e *replyError) Error() string { return e.msg }
func (e *replyError) Unwrap() error { return e.err }

// ParseReply reads a supervisor's reply.
func ParseReply(data []byte) (Reply, error) {
	var r Reply
	if err := json.Unmarshal(data, &r); err != nil || r.Code == "" {
		return Reply{}, fmt.Errorf("bus: a reply that is not a stead reply: %s", safetext.QuoteN(string(data), 80))
	}
	return r, nil
}

// ParseRequest reads and checks a request: its version is one this
// supervisor speaks, its op is known, a resize is within MaxRows×MaxCols.
// Its errors wrap ErrBadRequest and are short, whatever the input.
func ParseRequest(data []byte) (Request, error) {
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return Request{}, fmt.Errorf("%w: not a stead request (JSON of version %d): %s", ErrBadRequest, Version, safetext.QuoteN(string(data), 40))
	}
	switch {
	case r.V < 1:
		return Request{}, fmt.Errorf("%w: the request has no version", ErrBadRequest)
	case r.V > Version:
		return Request{}, fmt.Errorf("%w: a request of version %d; this supervisor speaks version %d (is it an older stead?)", ErrBadRequest, r.V, Version)
	}
	switch r.Op {
	case OpInput:
		if len(r.Data) == 0 {
			r.Data = nil
		}
		return Request{V: r.V, Op: r.Op, Data: r.Data}, nil
	case OpStop:
		return Request{V: r.V, Op: r.Op}, nil
	case OpPrompt:
		return Request{V: r.V, Op: r.Op, Prompt: r.Prompt}, nil
	case OpResize:
		if r.Rows > MaxRows || r.Cols > MaxCols {
			return Request{}, fmt.Errorf("%w: resize to %dx%d: a terminal has at most %d rows and %d columns", ErrBadRequest, r.Rows, r.Cols, MaxRows, MaxCols)
		}
		return Request{V: r.V, Op: r.Op, Rows: r.Rows, Cols: r.Cols}, nil
	}
	return Request{}, fmt.Errorf("%w: unknown op %s", ErrBadRequest, safetext.QuoteN(string(r.Op), 40))
}
