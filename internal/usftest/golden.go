package usftest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// Adapter is what RunGolden needs of an adapter.
type Adapter struct {
	CLI string
	// Open decodes a native file.
	Open func(path string) (*session.Session, error)
	// SummarizeFile summarises one.
	SummarizeFile func(ref session.Ref, detail session.Detail) (session.Summary, error)
	// RefID is the id a file is discovered under.
	RefID func(path string) string
}

// RunGolden decodes every testdata/*.txtar case of an adapter. A case holds
// native files under native/ (the first one listed is the
// session; others sit beside it as the CLI lays them out) and want.json,
// the expected universal session without native records. For each case it
// checks that the result matches the USF schema; that every native record
// is kept exactly once or reported skipped; that the session equals
// want.json (go test -update rewrites it); that the JSON encoding
// round-trips; and that the fast summary agrees with the full decode.
func RunGolden(t *testing.T, a Adapter) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no testdata/*.txtar cases")
	}
	for _, path := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runCase(t, a, path)
		})
	}
}

func runCase(t *testing.T, a Adapter, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	main := ""
	var want []byte
	for _, f := range ar.Files {
		if f.Name == "want.json" {
			want = f.Data
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if main == "" && strings.HasPrefix(f.Name, "native/") {
			main = p
		}
	}
	if main == "" {
		t.Fatal("no native/<file> in the archive")
	}
	s, err := a.Open(main)
	if err != nil {
		t.Fatal(err)
	}
	full, err := session.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	Validate(t, full)
	CheckNativeKept(t, s, main)

	var buf bytes.Buffer
	if err := session.Encode(&buf, s.WithoutNative(), true); err != nil {
		t.Fatal(err)
	}
	got := bytes.ReplaceAll(buf.Bytes(), []byte(dir+string(filepath.Separator)), nil)
	if *Update {
		files := ar.Files[:0]
		for _, f := range ar.Files {
			if f.Name != "want.json" {
				files = append(files, f)
			}
		}
		ar.Files = append(files, txtar.File{Name: "want.json", Data: got})
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if !bytes.Equal(got, want) {
		t.Errorf("universal session differs from want.json (check, then go test -update):\n%s", firstDiff(want, got))
	}

	s2, err := session.Unmarshal(full)
	if err != nil {
		t.Fatal(err)
	}
	full2, err := session.Marshal(s2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(full, full2) {
		t.Errorf("JSON round trip changed the document:\n%s", firstDiff(full, full2))
	}
	if x, y := s.WithoutNative(), s2.WithoutNative(); !reflect.DeepEqual(x, y) {
		t.Errorf("decoded session differs after a JSON round trip")
	}

	info, err := os.Stat(main)
	if err != nil {
		t.Fatal(err)
	}
	ref := session.Ref{CLI: a.CLI, ID: a.RefID(main), Path: main, Size: info.Size()}
	sum, err := a.SummarizeFile(ref, session.DetailFull)
	if err != nil {
		t.Fatal(err)
	}
	// A listing reads less but must agree on what it reports.
	lsum, err := a.SummarizeFile(ref, session.DetailList)
	if err != nil {
		t.Fatal(err)
	}
	if lsum.ID != sum.ID || lsum.Project != sum.Project || lsum.Title != sum.Title || !lsum.Start.Equal(sum.Start) ||
		!lsum.End.Equal(sum.End) || lsum.Messages != sum.Messages || lsum.Turns != sum.Turns ||
		!reflect.DeepEqual(lsum.Parent, sum.Parent) || lsum.Skipped != sum.Skipped {
		t.Errorf("listing summary differs from the full one:\nlist %+v\nfull %+v", lsum, sum)
	}
	if got, want := SummaryFigures(sum), Derive(s); !reflect.DeepEqual(got, want) {
		t.Errorf("summary figures %+v\nfull decode     %+v", got, want)
	}
	if sum.ID != s.ID {
		t.Errorf("summary id %q, session id %q", sum.ID, s.ID)
	}
	if sum.Project != s.Project.Path {
		t.Errorf("summary project %q, session project %q", sum.Project, s.Project.Path)
	}
}

// CheckNativeKept checks that every non-blank line of the file at path is
// kept exactly once, unchanged, as an entry's native record or in Records,
// unless a warning reports it skipped.
func CheckNativeKept(t *testing.T, s *session.Session, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[int][]byte{}
	keep := func(line int, rec []byte) {
		if _, dup := kept[line]; dup {
			t.Errorf("line %d kept twice", line)
		}
		kept[line] = rec
	}
	for _, e := range s.Timeline {
		switch {
		case e.Native == nil:
			t.Errorf("entry %s has no native record", e.ID)
		case e.Native.Path != "":
			// A record in another file (a fork's parent).
		case e.Native.Part == 0:
			keep(e.Native.Line, e.Native.Record)
		}
	}
	for _, r := range s.Records {
		keep(r.Line, r.Record)
	}
	skipped := map[int]bool{}
	for _, w := range s.Warnings {
		// A warning about another file (a sidecar) says nothing of
		// this one's lines.
		if strings.Contains(w.Message, "skipped") && (w.Path == "" || w.Path == path) {
			skipped[w.Line] = true
		}
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, ok := kept[n]
		switch {
		case skipped[n]:
			if ok {
				t.Errorf("line %d was reported skipped but kept", n)
			}
		case !ok:
			t.Errorf("line %d was neither kept nor reported: %.80s", n, line)
		case !bytes.Equal(rec, line):
			t.Errorf("line %d kept with changes", n)
		}
		delete(kept, n)
	}
	if len(kept) > 0 {
		lines := make([]int, 0, len(kept))
		for n := range kept {
			lines = append(lines, n)
		}
		sort.Ints(lines)
		t.Errorf("records kept for lines not in the file: %v", lines)
	}
}
