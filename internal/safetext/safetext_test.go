package safetext

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\twith a tab\n", "plain text\twith a tab\n"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\x07`},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"line\r\nnext\r\n", "line\r\nnext\r\n"},
		{"shown\rhidden", `shown\rhidden`},
		{"end\r", `end\r`},
		{"del\x7f back\bspace", `del\x7f back\x08space`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"cut \xe2\x9c", `cut \xe2\x9c`},
	} {
		if got := Terminal(tc.in); got != tc.want {
			t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTerminalNoControl: whatever goes in, nothing a terminal obeys comes
// out.
func TestTerminalNoControl(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		in := randomBytes(r, 64)
		assertSafe(t, in, Terminal(in))
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	assertSafe(t, string(all), Terminal(string(all)))
}

func assertSafe(t *testing.T, in, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		crlf := strings.HasPrefix(out[i:], "\r\n")
		if r == utf8.RuneError && size == 1 || Unsafe(r) && !crlf {
			t.Fatalf("Terminal(%q) = %q: holds %q at %d", in, out, out[i:i+size], i)
		}
		i += size
	}
}

// TestWriterChunks: a Writer gives the same bytes as Terminal over the
// whole, however the text is cut into writes.
func TestWriterChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	samples := []string{"a\r\nb\rc\x1b[1m d ✓ 日本 \u009b \xff e\r", "\r", "✓✓✓", "x\r\n"}
	for i := 0; i < 500; i++ {
		samples = append(samples, randomBytes(r, 40))
	}
	for _, s := range samples {
		var out bytes.Buffer
		w := NewWriter(&out)
		for rest := s; rest != ""; {
			n := 1 + r.IntN(len(rest))
			if n, err := w.Write([]byte(rest[:n])); err != nil || n == 0 {
				t.Fatalf("Write: %d, %v", n, err)
			}
			rest = rest[n:]
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := Terminal(s); out.String() != want {
			t.Errorf("writes of %q gave %q, want %q", s, out.String(), want)
		}
	}
}

func randomBytes(r *rand.Rand, n int) string {
	pool := []string{"a", "Z", " ", "\n", "\t", "\r", "\x1b", "\x07", "\x00", "\x7f", "\u009b", "\u202e", "é", "✓", "日", "\xff", "\xe2", "'", `"`, "$", "`", "\\", "(", ")", ";", "&", "|", "*", "~", "#", "!", "=", "-", "{", "}"}
	var b strings.Builder
	for k := r.IntN(n + 1); k > 0; k-- {
		b.WriteString(pool[r.IntN(len(pool))])
	}
	return b.String()
}

// TestQuoteRealShell pastes quoted words into a real POSIX shell (sh -c):
// each must come back byte for byte, and no word may run anything.
func TestQuoteRealShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	words := []string{
		"", "plain", "/tmp/proj", "a b", "it's", `"dq"`, `back\slash`, "semi;colon", "amp&", "pipe|", "glob*?[a]",
		"~home", "#hash", "!bang", "{a,b}", "tab\there", "new\nline", "a=b", "PATH=/x", "--flag=value", "-n",
		"/tmp/proj$(touch " + pwned + ")", "/tmp/`touch " + pwned + "`", "x'; touch " + pwned + "; '", "$HOME", "${IFS}",
		"esc\x1b]0;t\x07", "del\x7f", "c1\u009b", "bidi\u202e", "bad\xff", "cr\r", "trailing\n\n", "\x01\x02\x1f",
	}
	// Every byte but NUL (which no argument can hold), alone and in a word.
	for c := 1; c < 256; c++ {
		words = append(words, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		words = append(words, strings.ReplaceAll(randomBytes(r, 12), "\x00", ""))
	}
	// One script prints every word, NUL-separated: one shell for all.
	var script strings.Builder
	for _, w := range words {
		q := Quote(w)
		if got := Terminal(q); got != q {
			t.Errorf("Quote(%q) = %q, which a terminal would not show as it is", w, q)
		}
		script.WriteString("printf '%s\\0' " + q + "\n")
	}
	out, err := exec.Command(sh, "-c", script.String()).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	got := strings.Split(string(out), "\x00")
	if len(got) != len(words)+1 {
		t.Fatalf("sh printed %d words, want %d", len(got)-1, len(words))
	}
	for i, w := range words {
		if got[i] != w {
			t.Errorf("Quote(%q) = %q: sh read %q", w, Quote(w), got[i])
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a quoted word ran a command")
	}
}

func TestQuotePlain(t *testing.T) {
	for _, w := range []string{"codex", "resume", "01a20037-23f2-7d84-b088-4383253126f7", "/home/me/work/alpha", "--model=gpt-5", "a:b,c+d@e%f"} {
		if got := Quote(w); got != w {
			t.Errorf("Quote(%q) = %q, want it unquoted", w, got)
		}
	}
	if got, want := Join("cd", "/tmp/a b", "&&", "x"), `cd '/tmp/a b' '&&' x`; got != want {
		t.Errorf("Join = %q, want %q", got, want)
	}
}
