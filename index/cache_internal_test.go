package index

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

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
				got := readBack(t, sum)
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

// TestSummaryCodecKeepsEveryField: a summary with every field of it and
// of the types it holds set, to values that differ field by field, reads
// back as it was: a field added to session.Summary (or to History, Link,
// Usage, UsageBucket, ResponseUsage, BorrowedUsage, Warning) and left out
// of encodeSummary fails here.
func TestSummaryCodecKeepsEveryField(t *testing.T) {
	for seed := range 3 {
		var sum session.Summary
		n := seed * 1000
		fill(reflect.ValueOf(&sum).Elem(), &n)
		if got := readBack(t, sum); !reflect.DeepEqual(got, sum) {
			t.Errorf("read back:\n%+v\nwant\n%+v\n(a field of session.Summary the index's encodeSummary does not write?)", got, sum)
		}
	}
}

// readBack is sum written as the index keeps it, then read.
func readBack(t *testing.T, sum session.Summary) session.Summary {
	t.Helper()
	got, err := decodeSummary(encodeSummary(sum))
	if err != nil {
		t.Fatalf("read back what it wrote: %v", err)
	}
	return got
}

// fill sets every field v holds to a value of its own, counting with n:
// maps and slices get two items, pointers a value, times a UTC instant
// (a time reads back in UTC or a zone of its offset).
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n) * 7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n) * 11)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, n)
			fill(e, n)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(*n)*100003, int64(*n)).UTC()))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	default:
		panic("fill: " + v.Type().String())
	}
}

// TestSummaryFromJSON: a summary an earlier stead kept in JSON reads as
// the same summary kept now.
func TestSummaryFromJSON(t *testing.T) {
	var sum session.Summary
	n := 0
	fill(reflect.ValueOf(&sum).Elem(), &n)
	got, err := decodeSummary(jsonSummary(t, sum))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sum) {
		t.Errorf("read from JSON:\n%+v\nwant\n%+v", got, sum)
	}
}

// jsonSummary is sum as schema 9 kept it.
func jsonSummary(t *testing.T, sum session.Summary) []byte {
	t.Helper()
	st := storedSummary{Summary: sum, Buckets: sum.Buckets, Responses: sum.Responses}
	if sum.History != nil {
		st.AdoptedBuckets = sum.History.AdoptedBuckets
	}
	for k, b := range sum.Borrowed {
		if st.BorrowedBuckets == nil {
			st.BorrowedBuckets = map[string][]session.UsageBucket{}
		}
		st.BorrowedBuckets[k] = b.Buckets
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzDecodeSummary: any bytes are read without a panic, and what reads
// is written back the same.
func FuzzDecodeSummary(f *testing.F) {
	var sum session.Summary
	n := 0
	fill(reflect.ValueOf(&sum).Elem(), &n)
	full := encodeSummary(sum)
	small := encodeSummary(session.Summary{CLI: "claude", Start: time.Unix(1e9, 5).In(time.FixedZone("", 3600))})
	f.Add(full)
	f.Add(small)
	f.Add(full[:len(full)/2])
	f.Add([]byte(`{"cli":"codex","buckets":[{"Start":900,"Model":"m"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := decodeSummary(data)
		if err != nil || len(data) == 0 || data[0] != summaryBinary {
			return
		}
		if back := readBack(t, sum); !reflect.DeepEqual(back, sum) {
			t.Errorf("read back:\n%+v\nwant\n%+v", back, sum)
		}
	})
}
