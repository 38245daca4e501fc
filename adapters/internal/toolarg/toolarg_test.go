package toolarg

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{10.0, 10, true},
		{float32(2.5), 2.5, true},
		{10, 10, true},
		{int32(7), 7, true},
		{int64(1) << 40, 1 << 40, true},
		{json.Number("12"), 12, true},
		{json.Number("1.5e3"), 1500, true},
		{json.Number("x"), 0, false},
		{"10", 0, false},
		{true, 0, false},
		{nil, 0, false},
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
	} {
		got, ok := Number(map[string]any{"n": c.v}, "n")
		if got != c.want || ok != c.ok {
			t.Errorf("Number(%#v) = %v %v, want %v %v", c.v, got, ok, c.want, c.ok)
		}
	}
	if _, ok := Number(map[string]any{}, "n"); ok {
		t.Error("Number of an absent key is ok")
	}
	if got := Int(map[string]any{"n": 20.9}, "n"); got != 20 {
		t.Errorf("Int(20.9) = %d, want 20", got)
	}
	if got := Int(map[string]any{"n": json.Number("20")}, "n"); got != 20 {
		t.Errorf("Int(json.Number 20) = %d, want 20", got)
	}
}
