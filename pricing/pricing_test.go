package pricing

import (
	"math"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

func TestLookup(t *testing.T) {
	tab := Default()
	tests := []struct {
		model, match string
		input        float64
		ok           bool
	}{
		{"claude-opus-4-5-20251101", "claude-opus-4-5*", 5, true},
		{"claude-opus-4-1-20250805", "claude-opus-4-1*", 15, true},
		{"claude-sonnet-4-5", "claude-sonnet-*", 3, true},
		{"anthropic/claude-haiku-4-5", "claude-haiku-4-5*", 1, true},
		{"gpt-5-mini", "gpt-5-mini*", 0.25, true},
		{"gpt-5.5", "gpt-5*", 1.25, true},
		{"fake-model", "", 0, false},
	}
	for _, tt := range tests {
		p, match, ok := tab.Lookup(tt.model)
		if ok != tt.ok || match != tt.match || p.Input != tt.input {
			t.Errorf("Lookup(%q) = %v %q %v, want input %v %q %v", tt.model, p, match, ok, tt.input, tt.match, tt.ok)
		}
	}
}

func TestCostAndOverride(t *testing.T) {
	tab := Default()
	u := session.Usage{Input: 1_000_000, Output: 100_000, CacheRead: 2_000_000, CacheWrite: 400_000}
	got, ok := tab.Cost("claude-sonnet-4-5", u)
	want := 3 + 1.5 + 0.6 + 1.5
	if !ok || math.Abs(got-want) > 1e-9 {
		t.Fatalf("cost = %v %v, want %v", got, ok, want)
	}
	prices, err := LoadConfig(strings.NewReader(`{"prices":{"fake-model":{"input":1,"output":2},"claude-sonnet-*":{"input":10,"output":10}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tab.Merge(prices)
	if got, ok := tab.Cost("fake-model", session.Usage{Input: 1e6, Output: 1e6}); !ok || got != 3 {
		t.Errorf("override exact: %v %v", got, ok)
	}
	if p, _, _ := tab.Lookup("claude-sonnet-4-5"); p.Input != 10 {
		t.Errorf("override pattern: %v", p)
	}
	if _, err := LoadConfig(strings.NewReader(`{"prices":{"x":{"input":-1}}}`)); err == nil {
		t.Error("negative price accepted")
	}
}
