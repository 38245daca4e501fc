package redact

import (
	"bytes"
	"io"
	"regexp"
	"sync"
)

// rule is a secret shape: the text its expression matches (or its first
// group's, when it has one) is replaced.
type rule struct {
	kind string
	re   *regexp.Regexp
}

// rules are compiled when first used: not in every stead process.
var rules = sync.OnceValue(func() []rule {
	return []rule{
		// A whole PEM block on one line: JSON keeps its newlines as \n.
		{"private-key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----`)},
		{"anthropic-key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
		{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
		{"aws-access-key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`)},
		{"gitlab-token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
		{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
		{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
		{"stripe-key", regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}`)},
		{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		{"bearer-token", regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)`)},
		// A value given to a key named like a secret, in code, a shell, an
		// env file or JSON (escaped quotes included).
		{"secret", regexp.MustCompile(`(?i)(?:password|passwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|private[_-]?key|client[_-]?secret)(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?([^\s"'\\,;\[][^\s"'\\,;]{7,})`)},
	}
})

// String returns s with every secret it recognises replaced.
func String(s string) string {
	return string(Bytes([]byte(s)))
}

// Bytes returns b with every secret it recognises replaced. b itself is
// not changed.
func Bytes(b []byte) []byte {
	out := b
	for _, r := range rules() {
		if !r.re.Match(out) {
			continue
		}
		repl := []byte("[REDACTED:" + r.kind + "]")
		if r.re.NumSubexp() == 0 {
			out = r.re.ReplaceAllLiteral(out, repl)
			continue
		}
		// Replace the first group only: the key's name stays.
		var buf []byte
		last := 0
		for _, m := range r.re.FindAllSubmatchIndex(out, -1) {
			if m[2] < 0 {
				continue
			}
			buf = append(buf, out[last:m[2]]...)
			buf = append(buf, repl...)
			last = m[3]
		}
		out = append(buf, out[last:]...)
	}
	return out
}

var (
	pemBegin = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`) })
	pemEnd   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-----END [A-Z ]*PRIVATE KEY-----`) })
)

// Writer redacts what is written through it, a line at a time: it holds
// the line being written until its newline (or Close). A private key
// block whose lines are real lines is hidden from its BEGIN line to its
// END line.
type Writer struct {
	w    io.Writer
	line []byte
	// inKey is set between a private key block's BEGIN and END lines.
	inKey bool
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write redacts each whole line of p (with what was held before) and
// holds back the rest.
func (r *Writer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.line = append(r.line, p...)
			return n, nil
		}
		r.line = append(r.line, p[:i+1]...)
		p = p[i+1:]
		if err := r.flushLine(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (r *Writer) flushLine() error {
	line := r.line
	r.line = r.line[:0]
	switch {
	case r.inKey:
		if loc := pemEnd().FindIndex(line); loc != nil {
			r.inKey = false
			_, err := r.w.Write(Bytes(line[loc[1]:]))
			return err
		}
		return nil
	case pemBegin().Match(line) && !pemEnd().Match(line):
		r.inKey = true
		loc := pemBegin().FindIndex(line)
		out := append(Bytes(line[:loc[0]]), "[REDACTED:private-key]\n"...)
		_, err := r.w.Write(out)
		return err
	}
	_, err := r.w.Write(Bytes(line))
	return err
}

// Close writes what is held back. It does not close the writer under it.
func (r *Writer) Close() error {
	if len(r.line) == 0 {
		return nil
	}
	return r.flushLine()
}
