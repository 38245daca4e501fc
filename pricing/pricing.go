package pricing

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Cost is what u costs at p.
func (p Price) Cost(u session.Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Table maps model names and name patterns to prices.
type Table struct {
	exact  map[string]Price
	prefix []prefixPrice // longest first
}

type prefixPrice struct {
	prefix string
	price  Price
}

// defaults are public list prices, USD per million tokens (input, output,
// cache read, cache write). Anthropic cache writes are the 5-minute rate;
// OpenAI and Google report cached input only.
var defaults = map[string]Price{
	// Anthropic
	"claude-opus-4-5*":   {5, 25, 0.5, 6.25},
	"claude-opus-4-1*":   {15, 75, 1.5, 18.75},
	"claude-opus-4-0*":   {15, 75, 1.5, 18.75},
	"claude-opus-4-2*":   {15, 75, 1.5, 18.75},
	"claude-opus-4*":     {15, 75, 1.5, 18.75},
	"claude-opus-*":      {5, 25, 0.5, 6.25}, // later Opus generations: the latest known list price
	"claude-sonnet-*":    {3, 15, 0.3, 3.75},
	"claude-3-7-sonnet*": {3, 15, 0.3, 3.75},
	"claude-3-5-sonnet*": {3, 15, 0.3, 3.75},
	"claude-haiku-4-5*":  {1, 5, 0.1, 1.25},
	"claude-haiku-*":     {1, 5, 0.1, 1.25},
	"claude-3-5-haiku*":  {0.8, 4, 0.08, 1},
	"claude-3-opus*":     {15, 75, 1.5, 18.75},
	"claude-3-haiku*":    {0.25, 1.25, 0.03, 0.3},
	// OpenAI
	"gpt-5*":        {1.25, 10, 0.125, 0},
	"gpt-5-mini*":   {0.25, 2, 0.025, 0},
	"gpt-5-nano*":   {0.05, 0.4, 0.005, 0},
	"gpt-5-codex*":  {1.25, 10, 0.125, 0},
	"codex-mini*":   {1.5, 6, 0.375, 0},
	"gpt-4.1*":      {2, 8, 0.5, 0},
	"gpt-4.1-mini*": {0.4, 1.6, 0.1, 0},
	"gpt-4.1-nano*": {0.1, 0.4, 0.025, 0},
	"gpt-4o*":       {2.5, 10, 1.25, 0},
	"gpt-4o-mini*":  {0.15, 0.6, 0.075, 0},
	"o3*":           {2, 8, 0.5, 0},
	"o3-mini*":      {1.1, 4.4, 0.55, 0},
	"o4-mini*":      {1.1, 4.4, 0.275, 0},
	"o1*":           {15, 60, 7.5, 0},
	"gpt-oss-120b*": {0.15, 0.6, 0, 0},
	"gpt-oss-20b*":  {0.05, 0.2, 0, 0},
	// Google
	"gemini-2.5-pro*":        {1.25, 10, 0.31, 0},
	"gemini-2.5-flash-lite*": {0.1, 0.4, 0.025, 0},
	"gemini-2.5-flash*":      {0.3, 2.5, 0.075, 0},
	"gemini-3-pro*":          {2, 12, 0.2, 0},
	"gemini-2.0-flash*":      {0.1, 0.4, 0.025, 0},
	// Moonshot
	"kimi-k2*":  {0.6, 2.5, 0.15, 0},
	"kimi-for*": {0.6, 2.5, 0.15, 0},
}

// Default returns a table of the built-in prices.
func Default() *Table {
	t := &Table{exact: map[string]Price{}}
	t.Merge(defaults)
	return t
}

// Merge adds prices to the table, replacing entries with the same name or
// pattern.
func (t *Table) Merge(prices map[string]Price) {
	for name, p := range prices {
		name = strings.ToLower(strings.TrimSpace(name))
		if prefix, ok := strings.CutSuffix(name, "*"); ok {
			replaced := false
			for i := range t.prefix {
				if t.prefix[i].prefix == prefix {
					t.prefix[i].price, replaced = p, true
				}
			}
			if !replaced {
				t.prefix = append(t.prefix, prefixPrice{prefix, p})
			}
			continue
		}
		t.exact[name] = p
	}
	sort.SliceStable(t.prefix, func(i, j int) bool { return len(t.prefix[i].prefix) > len(t.prefix[j].prefix) })
}

// Lookup returns the price of model and the table entry that matched it
// (the model's own name, or a pattern ending in '*').
func (t *Table) Lookup(model string) (Price, string, bool) {
	m := strings.ToLower(model)
	// Providers prefix names (anthropic/claude-..., openai/gpt-...).
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if p, ok := t.exact[m]; ok {
		return p, m, true
	}
	for _, pp := range t.prefix {
		if strings.HasPrefix(m, pp.prefix) {
			return pp.price, pp.prefix + "*", true
		}
	}
	return Price{}, "", false
}

// Cost returns what u cost with model, and false when the model has no
// price.
func (t *Table) Cost(model string, u session.Usage) (float64, bool) {
	p, _, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// Total returns what usage split by model cost, of the models with a
// price, and false when none of them has one.
func (t *Table) Total(models map[string]session.Usage) (float64, bool) {
	var total float64
	priced := false
	for m, u := range models {
		if c, ok := t.Cost(m, u); ok {
			total, priced = total+c, true
		}
	}
	return total, priced
}

// Config is the part of stead's config file this package reads:
//
//	{"prices": {"my-model": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 1.25},
//	            "claude-opus-*": {...}}}
type Config struct {
	Prices map[string]Price `json:"prices"`
}

// LoadConfig reads prices from a config file's contents.
func LoadConfig(r io.Reader) (map[string]Price, error) {
	var c Config
	dec := json.NewDecoder(r)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("pricing: config: %w", err)
	}
	for name, p := range c.Prices {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return nil, fmt.Errorf("pricing: config: negative price for %q", name)
		}
	}
	return c.Prices, nil
}
