package index

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestStoredSummaryKeepsEverything: a summary the index keeps reads back
// as it was, every field, for the summary of every CLI's every testdata
// case (a field a later change leaves out of the encoding fails here).
func TestStoredSummaryKeepsEverything(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	n := 0
	for _, a := range adapters.All {
		if !a.Reads() {
			continue
		}
		cases, _ := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "adapters", a.Name, "testdata", "*.txtar"))
		for _, c := range cases {
			t.Run(a.Name+"/"+strings.TrimSuffix(filepath.Base(c), ".txtar"), func(t *testing.T) {
				_, ref := samples.Layout(t, a, c)
				sum, err := a.SummarizeFile(ref, session.DetailFull)
				if err != nil {
					t.Skip(err)
				}
				n++
				data, err := encodeSummary(sum)
				if err != nil {
					t.Fatal(err)
				}
				got, err := decodeSummary(data)
				if err != nil {
					t.Fatal(err)
				}
				// Times compare as instants; the rest exactly.
				norm := func(s *session.Summary) {
					s.Start, s.End = s.Start.UTC(), s.End.UTC()
					if s.History != nil {
						h := *s.History
						h.Written = h.Written.UTC()
						s.History = &h
					}
				}
				norm(&sum)
				norm(&got)
				if !reflect.DeepEqual(got, sum) {
					t.Errorf("read back:\n%+v\nwant\n%+v", got, sum)
				}
			})
		}
	}
}
