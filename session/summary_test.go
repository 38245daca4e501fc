package session_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// checkBuckets fails unless the summary's buckets add up to its usage,
// in all and by model, and are sorted.
func checkBuckets(t *testing.T, s *session.Summary) {
	t.Helper()
	u, models := session.SumBuckets(s.Buckets)
	if u != s.Usage {
		t.Errorf("buckets add up to %+v, usage is %+v", u, s.Usage)
	}
	want := map[string]session.Usage{}
	for m, x := range s.Models {
		want[m] = x
	}
	if !reflect.DeepEqual(models, want) {
		t.Errorf("buckets by model %+v, models %+v", models, want)
	}
	for i := 1; i < len(s.Buckets); i++ {
		a, b := s.Buckets[i-1], s.Buckets[i]
		if a.Start > b.Start || a.Start == b.Start && a.Model >= b.Model {
			t.Errorf("buckets out of order: %+v before %+v", a, b)
		}
	}
}

func TestUsageBuckets(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	var s session.Summary
	s.See(at("2026-11-20T09:59:00Z"))
	s.AddUsage(at("2026-11-20T10:01:02.5Z"), "a", session.Usage{Input: 1})
	s.AddUsage(at("2026-11-20T10:14:59.999Z"), "a", session.Usage{Input: 2})
	s.AddUsage(at("2026-11-20T10:05:00Z"), "b", session.Usage{Output: 4})
	s.AddUsage(at("2026-11-20T10:15:00Z"), "a", session.Usage{Input: 8})
	s.AddUsage(at("2026-11-20T09:50:00Z"), "a", session.Usage{Input: 16}) // out of order
	s.AddUsage(time.Time{}, "a", session.Usage{CacheRead: 32})            // no time: the latest seen
	checkBuckets(t, &s)
	type key struct {
		start       string
		model       string
		n           int32
		first, last string
	}
	var got []key
	for _, b := range s.Buckets {
		got = append(got, key{b.Time().Format(time.TimeOnly), b.Model, b.Responses,
			b.FirstTime().Format("15:04:05.000"), b.LastTime().Format("15:04:05.000")})
	}
	want := []key{
		{"09:45:00", "a", 2, "09:50:00.000", "09:59:00.000"},
		{"10:00:00", "a", 2, "10:01:02.500", "10:14:59.999"},
		{"10:00:00", "b", 1, "10:05:00.000", "10:05:00.000"},
		{"10:15:00", "a", 1, "10:15:00.000", "10:15:00.000"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("buckets\n%v\nwant\n%v", got, want)
	}

	// A response taken back leaves its bucket, and an empty bucket goes.
	s.Uncount(session.ResponseUsage{Model: "b", Usage: session.Usage{Output: 4}, Bucket: s.BucketOf(at("2026-11-20T10:05:00Z"))})
	checkBuckets(t, &s)
	if len(s.Buckets) != 3 {
		t.Errorf("after Uncount: %+v", s.Buckets)
	}

	// Lend moves buckets to Borrowed, Adopt brings them back.
	lent := []session.UsageBucket{s.Buckets[0]}
	s.Lend("src", lent)
	checkBuckets(t, &s)
	if b := s.Borrowed["src"]; b.Usage != lent[0].Usage || !reflect.DeepEqual(b.Buckets, lent) {
		t.Errorf("borrowed %+v, lent %+v", b, lent)
	}
	s.History = &session.History{From: "src"}
	s.Adopt("src")
	checkBuckets(t, &s)
	if len(s.Buckets) != 3 || !reflect.DeepEqual(s.History.AdoptedBuckets, lent) {
		t.Errorf("after Adopt: %+v, history %+v", s.Buckets, s.History)
	}

	// Responses of unknown time, in a summary that saw no time.
	var u session.Summary
	u.AddUsage(time.Time{}, "a", session.Usage{Input: 1})
	u.AddBorrowed("x", time.Time{}, "a", session.Usage{Input: 2})
	checkBuckets(t, &u)
	if len(u.Buckets) != 1 || u.Buckets[0].Start != session.NoTime || !u.Buckets[0].Time().IsZero() {
		t.Errorf("untimed buckets: %+v", u.Buckets)
	}

	// Before 1970, a quarter hour still starts on the quarter hour.
	var old session.Summary
	old.AddUsage(at("1969-12-31T23:59:59Z"), "a", session.Usage{Input: 1})
	if got := old.Buckets[0].Time(); !got.Equal(at("1969-12-31T23:45:00Z")) {
		t.Errorf("bucket of 1969-12-31T23:59:59Z starts %v", got)
	}
}
