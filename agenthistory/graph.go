package agenthistory

import "github.com/stead-dev/stead/session"

// graph returns the conversation graph of a timeline's messages (starts
// as groups returns them), or nil when it is linear.
//
// A message's parent is the message holding the entry its first entry
// follows (its parent_uuid). A fork point is a message with more than one
// child, its branches those children in file order; the active path runs
// from the root to the last message. Entries that follow an entry of
// their own message, or one the session does not hold, start no edge.
func graph(tl []session.Entry, starts []int) *graphJSON {
	n := len(starts)
	if n < 3 {
		return nil // a fork needs a parent and two children
	}
	linked := false
	for _, st := range starts {
		if tl[st].ParentID != "" {
			linked = true
			break
		}
	}
	if !linked {
		return nil
	}
	msgOf := make(map[string]int, len(tl))
	for m, st := range starts {
		end := len(tl)
		if m+1 < n {
			end = starts[m+1]
		}
		for j := st; j < end; j++ {
			if id := tl[j].ID; id != "" {
				if _, dup := msgOf[id]; !dup {
					msgOf[id] = m
				}
			}
		}
	}
	parent := make([]int, n)
	kids := make([]int, n)
	forks := 0
	for m, st := range starts {
		parent[m] = -1
		if p := tl[st].ParentID; p != "" {
			if pm, ok := msgOf[p]; ok && pm != m {
				parent[m] = pm
				kids[pm]++
				if kids[pm] == 2 {
					forks++
				}
			}
		}
	}
	if forks == 0 {
		return nil
	}
	g := &graphJSON{ForkPoints: make([]forkJSON, 0, forks)}
	at := make(map[int]int, forks) // fork message -> its index in ForkPoints
	for m := range starts {
		if kids[m] > 1 {
			at[m] = len(g.ForkPoints)
			g.ForkPoints = append(g.ForkPoints, forkJSON{UUID: tl[starts[m]].ID, Index: m + 1,
				Branches: make([]branchJSON, 0, kids[m])})
		}
	}
	for m, st := range starts {
		if p := parent[m]; p >= 0 && kids[p] > 1 {
			f := &g.ForkPoints[at[p]]
			f.Branches = append(f.Branches, branchJSON{UUID: tl[st].ID, Index: m + 1})
		}
	}
	var path []int
	seen := make(map[int]bool)
	for m := n - 1; m >= 0 && !seen[m]; m = parent[m] {
		seen[m] = true
		path = append(path, m)
	}
	g.ActivePath = make([]string, len(path))
	for i, m := range path {
		g.ActivePath[len(path)-1-i] = tl[starts[m]].ID
	}
	return g
}
