package opencode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// TestGolden decodes every testdata/*.txtar case. A case holds its native
// store under native/: opencode.db.sql (rows in the real schema, loaded
// into a WAL database left with its -wal and -shm as OpenCode leaves it),
// a storage/ tree, or an export file; and want/<session id>.json for each
// session the store holds, the expected universal session without native
// records (go test -update rewrites them). For each session it checks that
// the result matches the USF schema, that every native row is kept exactly
// once (in an entry's Native or in Records), that the JSON encoding
// round-trips, that both summaries agree with the full decode, and, for
// exports, that Read and Summarize over a stream agree with Open and
// SummarizeFile.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no testdata/*.txtar cases")
	}
	for _, path := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runCase(t, path)
		})
	}
}

func runCase(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := envFor(dir, data)
	want := map[string][]byte{}
	var exports []string
	var rows string
	for _, f := range ar.Files {
		switch {
		case f.Name == "native/opencode.db.sql":
			rows = string(f.Data)
			buildDB(t, filepath.Join(data, "opencode"), rows, asLeft)
		case strings.HasPrefix(f.Name, "native/storage/"):
			p := filepath.Join(data, "opencode", filepath.FromSlash(strings.TrimPrefix(f.Name, "native/")))
			writeFile(t, p, f.Data)
		case strings.HasPrefix(f.Name, "native/"):
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			writeFile(t, p, f.Data)
			exports = append(exports, p)
		case strings.HasPrefix(f.Name, "want/"):
			want[strings.TrimSuffix(strings.TrimPrefix(f.Name, "want/"), ".json")] = f.Data
		}
	}
	refs, warns := Discover(env)
	for _, w := range warns {
		t.Errorf("discover: %v", w)
	}
	for _, e := range exports {
		refs = append(refs, session.Ref{CLI: session.OpenCode, Path: e})
	}
	if len(refs) == 0 {
		t.Fatal("the case holds no session")
	}
	got := map[string][]byte{}
	for _, ref := range refs {
		s, err := Open(env, ref)
		if err != nil {
			t.Fatalf("open %s %s: %v", ref.Path, ref.ID, err)
		}
		if ref.ID != "" && s.ID != ref.ID {
			t.Errorf("opened %s, got session %s", ref.ID, s.ID)
		}
		full, err := session.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		usftest.Validate(t, full)
		n := checkKept(t, s)
		if rows != "" {
			if want := rowCount(rows, s.ID); n != want {
				t.Errorf("%s: %d rows kept, the database has %d", s.ID, n, want)
			}
		}
		var buf bytes.Buffer
		if err := session.Encode(&buf, s.WithoutNative(), true); err != nil {
			t.Fatal(err)
		}
		got[s.ID] = bytes.ReplaceAll(buf.Bytes(), []byte(dir+string(filepath.Separator)), nil)
		if !*usftest.Update {
			if w, ok := want[s.ID]; !ok {
				t.Errorf("no want/%s.json (go test -update writes it)", s.ID)
			} else if !bytes.Equal(got[s.ID], w) {
				t.Errorf("%s differs from want/%s.json (check, then go test -update):\n%s", s.ID, s.ID, firstDiff(w, got[s.ID]))
			}
		}
		roundTrip(t, s, full)
		checkConversation(t, env, ref, got[s.ID], dir)
		checkSummarized(t, env, ref, got[s.ID], dir)
		checkSummaries(t, ref, s)
		if ref.ID == "" {
			checkStream(t, ref.Path, s)
		}
	}
	if *usftest.Update {
		files := ar.Files[:0]
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") {
				files = append(files, f)
			}
		}
		ids := make([]string, 0, len(got))
		for id := range got {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			files = append(files, txtar.File{Name: "want/" + id + ".json", Data: got[id]})
		}
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			t.Errorf("want/%s.json names no session of the store", id)
		}
	}
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkKept checks that the session's rows, numbered 1 to n in reading
// order, are each kept exactly once: as the Native record of the first
// entry they made, or in Records. It returns n.
func checkKept(t *testing.T, s *session.Session) int {
	t.Helper()
	kept := map[int]int{}
	for _, e := range s.Timeline {
		switch {
		case e.Native == nil:
			t.Errorf("entry %s has no native record", e.ID)
		case e.Native.Part == 0:
			if len(e.Native.Record) == 0 {
				t.Errorf("entry %s: native record empty", e.ID)
			}
			kept[e.Native.Line]++
		}
	}
	for _, r := range s.Records {
		kept[r.Line]++
	}
	n := 0
	for line := range kept {
		n = max(n, line)
	}
	for line := 1; line <= n; line++ {
		if kept[line] != 1 {
			t.Errorf("%s: row %d kept %d times", s.ID, line, kept[line])
		}
	}
	return n
}

// rowCount counts a session's rows in the SQL of a case: its session row,
// its messages and its parts.
func rowCount(rows, id string) int {
	msg := regexp.MustCompile(`(?m)^INSERT INTO message VALUES\('([^']*)','([^']*)'`)
	prt := regexp.MustCompile(`(?m)^INSERT INTO part VALUES\('[^']*','([^']*)','([^']*)'`)
	n, mine := 1, map[string]bool{}
	for _, m := range msg.FindAllStringSubmatch(rows, -1) {
		if m[2] == id {
			n++
			mine[m[1]] = true
		}
	}
	// A part is read with the session whose message it is filed under,
	// and kept by the session it says it is of (OpenCode's own reads go
	// by message).
	for _, p := range prt.FindAllStringSubmatch(rows, -1) {
		if p[2] == id || mine[p[1]] {
			n++
		}
	}
	return n
}

func roundTrip(t *testing.T, s *session.Session, full []byte) {
	t.Helper()
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
}

// checkSummaries checks both summaries of ref against each other and
// against the full decode s.
func checkSummaries(t *testing.T, ref session.Ref, s *session.Session) {
	t.Helper()
	sum, err := SummarizeFile(ref, session.DetailFull)
	if err != nil {
		t.Fatal(err)
	}
	lsum, err := SummarizeFile(ref, session.DetailList)
	if err != nil {
		t.Fatal(err)
	}
	if lsum.ID != sum.ID || lsum.Project != sum.Project || lsum.Title != sum.Title || !lsum.Start.Equal(sum.Start) ||
		!lsum.End.Equal(sum.End) || lsum.Messages != sum.Messages || lsum.Turns != sum.Turns ||
		!reflect.DeepEqual(lsum.Parent, sum.Parent) || lsum.Size != sum.Size {
		t.Errorf("listing summary differs from the full one:\nlist %+v\nfull %+v", lsum, sum)
	}
	if got, want := usftest.SummaryFigures(sum), usftest.Derive(s.WithoutNative()); !reflect.DeepEqual(got, want) {
		t.Errorf("summary figures %+v\nfull decode     %+v", got, want)
	}
	if sum.ID != s.ID || sum.Project != s.Project.Path {
		t.Errorf("summary id %q project %q, session id %q project %q", sum.ID, sum.Project, s.ID, s.Project.Path)
	}
	wantTitle := s.Title
	if wantTitle == "" {
		for _, e := range s.Timeline {
			if e.Type == session.User && e.Kind == "" && e.Content != "" {
				wantTitle = e.Content
				break
			}
		}
	}
	if sum.Title != wantTitle {
		t.Errorf("summary title %q, want %q", sum.Title, wantTitle)
	}
	if !reflect.DeepEqual(sum.Parent, s.Parent) {
		t.Errorf("summary parent %+v, session parent %+v", sum.Parent, s.Parent)
	}
	if sum.Start.IsZero() || !sum.Start.Equal(s.Metadata.Created) {
		t.Errorf("summary start %v, session created %v", sum.Start, s.Metadata.Created)
	}
}

// checkStream checks that Read and Summarize over the file's bytes agree
// with Open and SummarizeFile.
func checkStream(t *testing.T, path string, s *session.Session) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kind, err := fileKind(path)
	if err != nil || kind != kindExport {
		return
	}
	rs, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	a, b := *rs, *s
	a.Source.Path, b.Source.Path = "", ""
	a.Warnings, b.Warnings = nil, nil
	if !reflect.DeepEqual(&a, &b) {
		t.Errorf("Read differs from Open")
	}
	for _, d := range []session.Detail{session.DetailFull, session.DetailList} {
		x, err := Summarize(bytes.NewReader(data), d)
		if err != nil {
			t.Fatal(err)
		}
		y, err := SummarizeFile(session.Ref{Path: path}, d)
		if err != nil {
			t.Fatal(err)
		}
		x.Path, x.Size, y.Path, y.Size = "", 0, "", 0
		y.Parent, x.Parent = nil, nil
		if !reflect.DeepEqual(x, y) {
			t.Errorf("detail %d: Summarize %+v\nSummarizeFile %+v", d, x, y)
		}
	}
}

func firstDiff(want, got []byte) string {
	wl := bytes.Split(want, []byte("\n"))
	gl := bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf("line %d:\n  want: %.300s\n   got: %.300s", i+1, w, g)
		}
	}
	return "(no difference found)"
}

// checkSummarized: OpenSummarized gives the conversation Open gives (want,
// its encoding without native records) and the summary SummarizeFile
// gives at full detail.
func checkSummarized(t *testing.T, env session.Env, ref session.Ref, want []byte, dir string) {
	t.Helper()
	sized := int64(-1)
	s, sum, err := OpenSummarized(env, ref, func(n int64) { sized = n })
	if err != nil {
		t.Fatalf("OpenSummarized %s %s: %v", ref.Path, ref.ID, err)
	}
	if sized != sum.Size {
		t.Errorf("OpenSummarized said %s's size was %d, its summary says %d", s.ID, sized, sum.Size)
	}
	var buf bytes.Buffer
	if err := session.Encode(&buf, s.WithoutNative(), true); err != nil {
		t.Fatal(err)
	}
	if got := bytes.ReplaceAll(buf.Bytes(), []byte(dir+string(filepath.Separator)), nil); !bytes.Equal(got, want) {
		t.Errorf("OpenSummarized's session %s differs from Open's:\n%s", s.ID, firstDiff(want, got))
	}
	wantSum, err := SummarizeFile(ref, session.DetailFull)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sum, wantSum) {
		t.Errorf("OpenSummarized's summary of %s differs from SummarizeFile's:\n got: %+v\nwant: %+v", s.ID, sum, wantSum)
	}
}

// checkConversation: OpenConversation gives the conversation Open gives
// (want, its encoding without native records), and keeps no native
// record of a session in a database.
func checkConversation(t *testing.T, env session.Env, ref session.Ref, want []byte, dir string) {
	t.Helper()
	s, err := OpenConversation(env, ref)
	if err != nil {
		t.Fatalf("OpenConversation %s %s: %v", ref.Path, ref.ID, err)
	}
	var buf bytes.Buffer
	if err := session.Encode(&buf, s.WithoutNative(), true); err != nil {
		t.Fatal(err)
	}
	if got := bytes.ReplaceAll(buf.Bytes(), []byte(dir+string(filepath.Separator)), nil); !bytes.Equal(got, want) {
		t.Errorf("OpenConversation of %s differs from Open:\n%s", s.ID, firstDiff(want, got))
	}
	if kind, err := fileKind(ref.Path); err != nil || kind != kindDB {
		return // an export's records, and a storage tree's, are kept
	}
	kept := 0
	for _, e := range s.Timeline {
		if e.Native != nil && len(e.Native.Record) > 0 {
			kept++
		}
	}
	for _, r := range s.Records {
		if len(r.Record) > 0 {
			kept++
		}
	}
	if kept > 1 { // the session's own row is kept
		t.Errorf("OpenConversation of %s kept %d native records", s.ID, kept)
	}
}
