package corpusgen

import (
	"bytes"
	"encoding/base64"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"unicode/utf8"
)

// Text is sliced from fixed pools built once from a fixed seed: textPool is
// JSON-escaped lines of code, logs, test output and prose (newlines, tabs
// and quotes stored as \n, \t and \"; no raw backslash ever occurs), and
// b64Pool is base64 for signatures and encrypted reasoning.
const (
	textPoolSize = 1 << 20
	b64PoolSize  = 256 << 10
)

var (
	poolsOnce sync.Once
	textPool  []byte
	b64Pool   []byte
)

func pools() {
	poolsOnce.Do(func() {
		textPool = buildTextPool()
		r := rand.New(rand.NewPCG(0xb64b64, 0x5eed))
		raw := make([]byte, b64PoolSize*3/4)
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		b64Pool = []byte(base64.StdEncoding.EncodeToString(raw))
	})
}

// blob is a deterministic run of about n bytes of escaped pool text: the
// same blob always yields the same bytes, so a text can be written twice
// (a tool result and its toolUseResult copy) without being stored.
type blob struct {
	seed uint64
	n    int
}

func newBlob(r *rand.Rand, n int) blob { return blob{seed: r.Uint64(), n: max(n, 1)} }

// splitmix64 advances s and returns the next value of the sequence.
func splitmix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// each calls f with consecutive pieces of the blob's text.
func (x blob) each(f func([]byte)) {
	s := x.seed
	left := x.n
	for misses := 0; left > 0 && misses < 16; {
		v := splitmix64(&s)
		start := int(v % uint64(len(textPool)))
		l := min(256+int((v>>40)%8192), left)
		p := span(textPool, start, l)
		if len(p) == 0 {
			misses++
			continue
		}
		f(p)
		left -= len(p)
	}
}

// appendBlob appends the blob's text to b.
func appendBlob(b []byte, x blob) []byte {
	x.each(func(p []byte) { b = append(b, p...) })
	return b
}

// span returns about n bytes of the escaped pool from start, moved so that
// it neither splits an escape sequence nor a UTF-8 character. It begins at
// a line start when one is near.
func span(pool []byte, start, n int) []byte {
	if i := bytes.Index(pool[start:min(start+256, len(pool))], []byte(`\n`)); i >= 0 {
		start += i + 2
	}
	for start < len(pool) && (pool[start]&0xC0 == 0x80 || start > 0 && pool[start-1] == '\\') {
		start++
	}
	end := min(start+n, len(pool))
	for end > start && (end < len(pool) && pool[end]&0xC0 == 0x80 || pool[end-1] == '\\') {
		end--
	}
	return pool[start:end]
}

// appendB64 appends n base64 characters from the pool.
func appendB64(b []byte, r *rand.Rand, n int) []byte {
	for n > 0 {
		start := r.IntN(len(b64Pool) - 1024)
		l := min(n, len(b64Pool)-start)
		b = append(b, b64Pool[start:start+l]...)
		n -= l
	}
	return b
}

// lognormal draws from a lognormal distribution with the given median.
func lognormal(r *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*r.NormFloat64())
}

// sizeAround draws a lognormal size with the given median, clamped to
// [lo, hi].
func sizeAround(r *rand.Rand, median, sigma float64, lo, hi int) int {
	v := lognormal(r, median, sigma)
	return int(math.Max(float64(lo), math.Min(float64(hi), v)))
}

// uniform returns a float64 in [lo, hi).
func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// chance reports true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// uuid4 returns a random version 4 UUID.
func uuid4(r *rand.Rand) string {
	var u [16]byte
	a, b := r.Uint64(), r.Uint64()
	for i := range 8 {
		u[i] = byte(a >> (8 * i))
		u[8+i] = byte(b >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

// uuid7 returns a version 7 UUID for the Unix time ms, as Codex makes
// thread and turn ids.
func uuid7(r *rand.Rand, ms int64) string {
	var u [16]byte
	for i := range 6 {
		u[i] = byte(ms >> (8 * (5 - i)))
	}
	a, b := r.Uint64(), r.Uint64()
	for i := 6; i < 8; i++ {
		u[i] = byte(a >> (8 * i))
	}
	for i := range 8 {
		u[8+i] = byte(b >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x70
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

func formatUUID(u [16]byte) string {
	var s [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s[j] = '-'
			j++
		}
		s[j], s[j+1] = hexDigits[c>>4], hexDigits[c&0xf]
		j += 2
	}
	return string(s[:])
}

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randID returns prefix followed by n random characters from alphabet.
func randID(r *rand.Rand, prefix string, n int, alphabet string) string {
	b := make([]byte, len(prefix), len(prefix)+n)
	copy(b, prefix)
	for range n {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}

// Word lists for the text pool, prompts, commands and paths.
var (
	idents = []string{"config", "server", "handler", "request", "session", "store", "cache", "parser",
		"token", "record", "reader", "writer", "index", "worker", "queue", "client", "router", "metric",
		"batch", "stream", "event", "schema", "report", "option", "buffer", "cursor", "ledger", "policy"}
	goTypes = []string{"string", "int", "error", "[]byte", "bool", "int64", "time.Duration", "*Config",
		"map[string]int", "[]Record", "io.Reader", "*Session"}
	pkgs = []string{"internal/store", "internal/api", "cmd/server", "pkg/parser", "internal/cache",
		"adapters/claude", "session", "internal/jsonl", "web/src/components", "scripts", "docs", "pkg/auth"}
	fileExts = []string{".go", ".go", ".go", "_test.go", ".ts", ".tsx", ".py", ".md", ".json", ".yaml", ".sql", ".rs"}
	words    = strings.Fields(`the a an this that it we you they should would could must will can may
		when if then because so but and or not only also still just already every each some many
		function method type value field error result test file line record session token cache
		request response handler server client user config option flag output input stream buffer
		index query schema table column migration build release deploy change commit branch merge
		fix add remove update rename refactor check verify handle return parse encode decode write
		read open close start stop retry timeout limit count total size length empty missing invalid
		correct expected actual first last next previous new old small large fast slow safe simple
		naïve café résumé → — ✓`)
	verbs    = []string{"Fix", "Add", "Refactor", "Investigate", "Update", "Write tests for", "Explain", "Speed up", "Document", "Review", "Remove", "Rename"}
	subjects = []string{"the flaky test in %s", "a --json flag to the %s command", "error handling in %s",
		"the retry logic in %s", "the config loader in %s", "pagination in %s", "the README section on %s",
		"the memory leak in %s", "input validation in %s", "the migration for %s", "logging in %s", "the CI job for %s"}
	commands = []string{"go test ./...", "go build ./... && go vet ./...", "git status --short", "git diff --stat",
		"rg -n \"func New\" --type go", "ls -la internal/", "cat go.mod", "npm run lint", "make test",
		"go test -race -run TestParse ./internal/...", "git log --oneline -20", "python -m pytest -q",
		"cargo build --release", "docker compose ps", "find . -name '*.go' | wc -l", "sed -n 1,120p main.go"}
)

func buildTextPool() []byte {
	r := rand.New(rand.NewPCG(0x7e47, 0x5eed))
	var raw strings.Builder
	b := make([]byte, 0, textPoolSize+64<<10)
	for len(b) < textPoolSize {
		raw.Reset()
		switch r.IntN(10) {
		case 0, 1, 2, 3:
			codeBlock(&raw, r)
		case 4, 5:
			logBlock(&raw, r)
		case 6, 7:
			testBlock(&raw, r)
		default:
			proseBlock(&raw, r)
		}
		b = appendEsc(b, raw.String())
	}
	return b
}

// taskTitle is a title a CLI could give a session: "Fix parser tests".
func taskTitle(r *rand.Rand) string {
	return title(pick(r, verbs)) + " " + pick(r, idents) + " " + pick(r, []string{"handling", "tests", "setup", "docs", "flags", "errors"})
}

// title upper-cases the first letter of s.
func title(s string) string {
	_, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(s[:n]) + s[n:]
}

func codeBlock(w *strings.Builder, r *rand.Rand) {
	recv, name, arg := pick(r, idents), title(pick(r, idents))+title(pick(r, idents)), pick(r, idents)
	w.WriteString("// " + name + " " + sentence(r, 6+r.IntN(10)) + "\n")
	w.WriteString("func (s *" + title(recv) + ") " + name + "(ctx context.Context, " + arg + " " + pick(r, goTypes) + ") (" + pick(r, goTypes) + ", error) {\n")
	for range 2 + r.IntN(8) {
		v := pick(r, idents)
		switch r.IntN(6) {
		case 0:
			w.WriteString("\tif err := s." + pick(r, idents) + ".Check(ctx, " + v + "); err != nil {\n\t\treturn nil, fmt.Errorf(\"" + v + " " + pick(r, idents) + ": %w\", err)\n\t}\n")
		case 1:
			w.WriteString("\t" + v + "s := make(map[string]" + pick(r, goTypes) + ", len(" + arg + "))\n")
		case 2:
			w.WriteString("\tfor i, " + v + " := range s." + pick(r, idents) + "s {\n\t\ts.total += len(" + v + ".Name) + i\n\t}\n")
		case 3:
			w.WriteString("\tdefer s.mu.Unlock()\n")
		case 4:
			w.WriteString("\t// " + sentence(r, 5+r.IntN(8)) + "\n")
		default:
			w.WriteString("\t" + v + ", err := s." + pick(r, idents) + ".Load(ctx, \"" + pick(r, pkgs) + "\")\n")
		}
	}
	w.WriteString("\treturn " + arg + ", nil\n}\n\n")
}

func logBlock(w *strings.Builder, r *rand.Rand) {
	for range 3 + r.IntN(12) {
		lvl := pick(r, []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"})
		w.WriteString("2026-0" + string(rune('1'+r.IntN(9))) + "-1" + string(rune('0'+r.IntN(10))) + "T1" +
			string(rune('0'+r.IntN(10))) + ":" + string(rune('0'+r.IntN(6))) + string(rune('0'+r.IntN(10))) + ":0" +
			string(rune('0'+r.IntN(10))) + "Z " + lvl + " " + pick(r, idents) + ": " + sentence(r, 3+r.IntN(6)) +
			" path=/api/v1/" + pick(r, idents) + "s status=" + pick(r, []string{"200", "200", "201", "404", "500"}) +
			" dur=" + string(rune('1'+r.IntN(9))) + string(rune('0'+r.IntN(10))) + "ms\n")
	}
}

func testBlock(w *strings.Builder, r *rand.Rand) {
	pkg := "github.com/acme/" + pick(r, idents) + "/" + pick(r, pkgs)
	for range 2 + r.IntN(8) {
		name := "Test" + title(pick(r, idents)) + title(pick(r, idents))
		w.WriteString("=== RUN   " + name + "\n")
		if chance(r, 0.15) {
			w.WriteString("    " + pick(r, idents) + "_test.go:" + string(rune('1'+r.IntN(9))) + "2: got \"" +
				pick(r, idents) + "\", want \"" + pick(r, idents) + "\"\n--- FAIL: " + name + " (0.01s)\n")
		} else {
			w.WriteString("--- PASS: " + name + " (0.00s)\n")
		}
	}
	w.WriteString("ok  \t" + pkg + "\t0." + string(rune('0'+r.IntN(10))) + "12s\n")
}

func proseBlock(w *strings.Builder, r *rand.Rand) {
	for range 1 + r.IntN(4) {
		w.WriteString(title(sentence(r, 8+r.IntN(20))) + ". ")
	}
	w.WriteString("\n\n")
	if chance(r, 0.4) {
		for range 2 + r.IntN(4) {
			w.WriteString("- `" + pick(r, pkgs) + "`: " + sentence(r, 4+r.IntN(8)) + "\n")
		}
		w.WriteString("\n")
	}
}

func sentence(r *rand.Rand, n int) string {
	var w strings.Builder
	for i := range n {
		if i > 0 {
			w.WriteByte(' ')
		}
		w.WriteString(pick(r, words))
	}
	return w.String()
}
