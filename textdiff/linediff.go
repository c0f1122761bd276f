package textdiff

import (
	"fmt"
	"strings"
)

// lineOp is one line of an edit script: ' ' kept, '-' removed, '+' added.
type lineOp struct {
	kind byte
	text string // the line with its line break, if any
}

// lineScript is the line edit script from a to b, from Hunks.
func lineScript(a, b string) []lineOp {
	la, lb := SplitLines(a), SplitLines(b)
	var ops []lineOp
	at := 0
	for _, h := range LineHunks(la, lb) {
		for _, l := range la[at:h.A0] {
			ops = append(ops, lineOp{' ', l})
		}
		for _, l := range la[h.A0:h.A1] {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range lb[h.B0:h.B1] {
			ops = append(ops, lineOp{'+', l})
		}
		at = h.A1
	}
	for _, l := range la[at:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

// LineCounts returns the added and removed line counts of before → after,
// those of LineHunks. The whole lines both share at the start and at the
// end are skipped before the rest is split into lines (LineHunks skips
// them too), so a small change to a large file costs little, and contents
// held as bytes are not copied.
func LineCounts[T ~string | ~[]byte](before, after T) (added, removed int) {
	n := min(len(before), len(after))
	p := 0
	for p < n && before[p] == after[p] {
		p++
	}
	if p == len(before) && p == len(after) {
		return 0, 0
	}
	for p > 0 && before[p-1] != '\n' {
		p--
	}
	before, after = before[p:], after[p:]
	n = min(len(before), len(after))
	s := 0
	for s < n && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	// Keep the common end from just after a line break inside it: both
	// have that line break, so what follows is whole lines in both.
	k := s - 1
	for k > 0 && before[len(before)-1-k] != '\n' {
		k--
	}
	if k > 0 {
		before, after = before[:len(before)-k], after[:len(after)-k]
	}
	la, lb := SplitLines(string(before)), SplitLines(string(after))
	for _, h := range LineHunks(la, lb) {
		removed += h.A1 - h.A0
		added += h.B1 - h.B0
	}
	return added, removed
}

// LineDiff returns the added and removed line counts and the unified diff
// text (three lines of context) of before → after.
func LineDiff(fromLabel, toLabel, before, after string) (added, removed int, text string) {
	if before == after {
		return 0, 0, ""
	}
	ops := lineScript(before, after)
	for _, op := range ops {
		switch op.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", fromLabel, toLabel)
	const ctx = 3
	// Walk the script, emitting hunks of changes with their context.
	oldLine, newLine := 0, 0 // lines consumed before ops[i]
	i := 0
	for i < len(ops) {
		// Find the next change.
		j := i
		for j < len(ops) && ops[j].kind == ' ' {
			j++
		}
		if j == len(ops) {
			break
		}
		for ; i < j-ctx; i++ { // skip context beyond ctx lines
			oldLine++
			newLine++
		}
		start, hOld, hNew := i, oldLine, newLine
		// Extend the hunk while changes are within 2*ctx lines of each other.
		end := j
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			k := end
			for k < len(ops) && ops[k].kind == ' ' {
				k++
			}
			if k == len(ops) || k-end > 2*ctx {
				end = min(end+ctx, k)
				break
			}
			end = k
		}
		oc, nc := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				oc++
			}
			if op.kind != '-' {
				nc++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(hOld, oc), hunkRange(hNew, nc))
		for _, op := range ops[start:end] {
			b.WriteByte(op.kind)
			b.WriteString(op.text)
			if !strings.HasSuffix(op.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		oldLine, newLine = hOld+oc, hNew+nc
		i = end
	}
	return added, removed, b.String()
}

// hunkRange formats a unified-diff range: 1-based start, count omitted when
// one; an empty range names the line before it.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
