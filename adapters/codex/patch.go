package codex

import (
	"strings"
)

// A patch is apply_patch's input:
//
//	*** Begin Patch
//	*** Add File: path          (then the file's lines, each after "+")
//	*** Update File: path       (optionally "*** Move to: path")
//	@@ context                  (each hunk: " " context, "-" removed, "+" added lines)
//	*** Delete File: path
//	*** End Patch
type patchOp struct {
	kind  string // "add", "update", "delete"
	path  string
	move  string
	lines []string // an added file's lines
	hunks []hunk
}

type hunk struct {
	old, new []string
}

// parsePatch reads a patch into its operations; ok is false when the text
// is not a patch.
func parsePatch(patch string) ([]patchOp, bool) {
	lines := strings.Split(strings.TrimRight(patch, "\n"), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" {
		return nil, false
	}
	var ops []patchOp
	var op *patchOp
	var h *hunk
	for _, l := range lines[1:] {
		switch {
		case strings.TrimSpace(l) == "*** End Patch":
			return ops, op != nil || len(ops) > 0
		case strings.HasPrefix(l, "*** Add File: "):
			ops = append(ops, patchOp{kind: "add", path: strings.TrimPrefix(l, "*** Add File: ")})
			op, h = &ops[len(ops)-1], nil
		case strings.HasPrefix(l, "*** Update File: "):
			ops = append(ops, patchOp{kind: "update", path: strings.TrimPrefix(l, "*** Update File: ")})
			op, h = &ops[len(ops)-1], nil
		case strings.HasPrefix(l, "*** Delete File: "):
			ops = append(ops, patchOp{kind: "delete", path: strings.TrimPrefix(l, "*** Delete File: ")})
			op, h = &ops[len(ops)-1], nil
		case op == nil:
			return nil, false
		case strings.HasPrefix(l, "*** Move to: "):
			op.move = strings.TrimPrefix(l, "*** Move to: ")
		case l == "*** End of File":
		case op.kind == "add":
			if !strings.HasPrefix(l, "+") {
				return nil, false
			}
			op.lines = append(op.lines, l[1:])
		case op.kind == "update" && strings.HasPrefix(l, "@@"):
			op.hunks = append(op.hunks, hunk{})
			h = &op.hunks[len(op.hunks)-1]
		case op.kind == "update":
			if h == nil {
				op.hunks = append(op.hunks, hunk{})
				h = &op.hunks[len(op.hunks)-1]
			}
			switch {
			case strings.HasPrefix(l, "-"):
				h.old = append(h.old, l[1:])
			case strings.HasPrefix(l, "+"):
				h.new = append(h.new, l[1:])
			case strings.HasPrefix(l, " "):
				h.old = append(h.old, l[1:])
				h.new = append(h.new, l[1:])
			case l == "":
				h.old = append(h.old, "")
				h.new = append(h.new, "")
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return nil, false // no *** End Patch
}

// patchArgs reads a patch into universal edit or write arguments: a single
// added file is a write, a single updated file an edit; anything else
// stays a patch.
func patchArgs(patch string) (tool string, a map[string]any) {
	ops, ok := parsePatch(patch)
	if ok && len(ops) == 1 && ops[0].move == "" {
		op := ops[0]
		switch op.kind {
		case "add":
			content := strings.Join(op.lines, "\n")
			if len(op.lines) > 0 {
				content += "\n"
			}
			return "write", map[string]any{"path": op.path, "content": content}
		case "update":
			if len(op.hunks) == 1 {
				return "edit", map[string]any{"path": op.path, "old": strings.Join(op.hunks[0].old, "\n"), "new": strings.Join(op.hunks[0].new, "\n")}
			}
			edits := make([]any, len(op.hunks))
			for i, h := range op.hunks {
				edits[i] = map[string]any{"old": strings.Join(h.old, "\n"), "new": strings.Join(h.new, "\n")}
			}
			return "edit", map[string]any{"path": op.path, "edits": edits}
		}
	}
	return "edit", map[string]any{"patch": patch}
}

// addPatch writes a patch that creates path with content.
func addPatch(path, content string) string {
	var b strings.Builder
	b.Grow(len(path) + len(content) + strings.Count(content, "\n") + 64)
	b.WriteString("*** Begin Patch\n*** Add File: ")
	b.WriteString(path)
	b.WriteString("\n")
	if content != "" {
		for l := range strings.Lines(content) {
			b.WriteByte('+')
			b.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// updatePatch writes a patch that replaces, in path, each old text with
// its new text.
func updatePatch(path string, edits [][2]string) string {
	var b strings.Builder
	n := len(path) + 64
	for _, e := range edits {
		n += len(e[0]) + len(e[1]) + 2*(strings.Count(e[0], "\n")+strings.Count(e[1], "\n")+2) + 3
	}
	b.Grow(n)
	b.WriteString("*** Begin Patch\n*** Update File: " + path + "\n")
	for _, e := range edits {
		b.WriteString("@@\n")
		for _, l := range strings.Split(e[0], "\n") {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(e[1], "\n") {
			b.WriteString("+" + l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}
