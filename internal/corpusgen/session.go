package corpusgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// hugeLine is a planned multi-megabyte record: a tool output (one line of
// about size bytes; a Claude result holds it twice, so its text is size/2)
// or, for Claude, a Write whose content of size bytes appears in both the
// tool_use and the tool_result line.
type hugeLine struct {
	at    int64 // write it at the first tool once the logical count passes this
	size  int
	write bool
	cost  int64 // bytes it adds to the file
}

// planHuge plans the single large lines of a session aiming at target
// bytes: sessions of 6 MB and more get 1–4 lines of 2–20 MB holding 30–60%
// of the file, and half of those between 1 and 6 MB one line of 10–35%.
// The trigger points spread the lines over the session.
func planHuge(r *rand.Rand, target int64, writes bool) []hugeLine {
	var sizes []int
	switch {
	case target >= 6_000_000:
		share := uniform(r, 0.3, 0.6) * float64(target)
		n := min(1+r.IntN(4), max(1, int(share/2_500_000)))
		w := make([]float64, n)
		sum := 0.0
		for i := range w {
			w[i] = uniform(r, 0.3, 1)
			sum += w[i]
		}
		for i := range w {
			sizes = append(sizes, int(math.Max(2_000_000, math.Min(20_000_000, share*w[i]/sum))))
		}
	case target >= 1_000_000 && chance(r, 0.5):
		sizes = append(sizes, int(uniform(r, 0.1, 0.35)*float64(target)))
	}
	if len(sizes) == 0 {
		return nil
	}
	huge := make([]hugeLine, len(sizes))
	var total int64
	for i, s := range sizes {
		h := hugeLine{size: s, cost: int64(s)}
		if writes && chance(r, 0.3) {
			h.write, h.cost = true, 2*int64(s)
		}
		huge[i] = h
		total += h.cost
	}
	rest := max(0, target-total)
	fr := make([]float64, len(huge))
	for i := range fr {
		fr[i] = uniform(r, 0.05, 0.95)
	}
	slices.Sort(fr)
	var before int64
	for i := range huge {
		huge[i].at = int64(fr[i]*float64(rest)) + before
		before += huge[i].cost
	}
	return huge
}

func hugeCost(h []hugeLine) int64 {
	var c int64
	for _, x := range h {
		c += x.cost
	}
	return c
}

// turnBudget is the bytes a turn aims at in a session of target bytes of
// which fixed go to the header and huge lines: more and bigger turns as
// sessions grow.
func turnBudget(target, fixed int64) int64 {
	body := max(target-fixed, 2_000)
	n := min(max(int64(math.Round(math.Sqrt(float64(body)/2_000))), 1), 250)
	return max(body/n, 2_500)
}

// runTurns calls turn with a byte budget until the logical count, plus any
// huge lines still pending, is as close to target as another turn could
// bring it, and at least minTurns times. A turn costs about fixed bytes
// whatever its budget plus a share of the budget; that share is learned
// from the session's turns so far, so the last turn can be sized to land
// near target.
func runTurns(o *out, target, budget, fixed int64, minTurns int, pending func() int64, turn func(int64)) {
	const least = 2_500
	var asked, extra float64 // budgets given and bytes beyond the fixed cost
	f := float64(fixed)
	for t := 0; t < 100_000; t++ {
		p := pending()
		remaining := float64(target - o.logical - p)
		slope := 1.0
		if asked > 0 {
			slope = min(max(extra/asked, 0.3), 3)
		}
		b := max(min(float64(budget), (remaining-f)/slope), least)
		if t >= minTurns && p == 0 && remaining < (f+slope*b)/2 {
			return
		}
		before := o.logical
		turn(int64(b))
		if p == pending() { // turns with huge lines say little about the rest
			asked += b
			extra += float64(o.logical-before) - f
		}
	}
}

// drawRounds draws how many tool rounds a turn of budget bytes has, given
// the turn's fixed cost and a round's typical cost: the expected number
// scaled by a random factor and rounded at random, so that small turns
// still use tools often.
func drawRounds(r *rand.Rand, budget, fixed, perRound int64, most int) int {
	want := float64(max(budget-fixed, 0)) / float64(perRound) * uniform(r, 0.5, 1.5)
	return min(int(want+r.Float64()), most)
}

// promptText returns a user prompt, JSON-escaped: mostly a short request,
// sometimes with pasted text.
func promptText(r *rand.Rand, budget int64) string {
	s := pick(r, verbs) + " " + strings.Replace(pick(r, subjects), "%s", pick(r, pkgs), 1)
	switch {
	case chance(r, 0.3):
		s += ". " + title(sentence(r, 6+r.IntN(20))) + "."
	case chance(r, 0.1):
		s += " — keep the public API unchanged and add a test"
	}
	esc := string(appendEsc(nil, s))
	if budget > 20_000 && chance(r, 0.08) {
		esc += `:\n\n` + string(appendBlob(nil, newBlob(r, sizeAround(r, 2_000, 0.8, 200, 8_000))))
	}
	return esc
}

// filePath returns a plausible file path inside cwd.
func filePath(r *rand.Rand, cwd string) string {
	return cwd + "/" + pick(r, pkgs) + "/" + pick(r, idents) + pick(r, fileExts)
}

// rawCodeLine returns a line of code free of quotes and backslashes.
func rawCodeLine(r *rand.Rand) string {
	a, b, c := pick(r, idents), pick(r, idents), pick(r, idents)
	switch r.IntN(5) {
	case 0:
		return "\t" + a + " := " + b + "." + title(c) + "(ctx)"
	case 1:
		return "\tif " + a + " == nil {"
	case 2:
		return "\t\treturn " + b + ", nil"
	case 3:
		return "\t// " + sentence(r, 4+r.IntN(6))
	default:
		return "\ts." + a + "s = append(s." + a + "s, " + c + ")"
	}
}

// tick advances *clock by a random duration in [lo, hi).
func tick(r *rand.Rand, clock *time.Time, lo, hi time.Duration) {
	*clock = clock.Add(lo + time.Duration(r.Int64N(int64(hi-lo))))
}
