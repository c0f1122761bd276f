package textdiff

import "strings"

// Three-way merge on the one hunk engine (hunks.go): what "revert one turn,
// keep everything after it" is made of. base is the common ancestor, ours
// and theirs two descendants; the merge applies the changes of both sides.

// MergeConflict is a region of base that both sides changed differently:
// lines [A0, A1) of base (A0 == A1: the gap before line A0).
type MergeConflict struct{ A0, A1 int }

// Merge3 returns base with the changes of base → ours and base → theirs
// both applied, and the regions where they overlap and differ. Changes
// overlap when they change a same base line, when one inserts lines
// strictly inside the other, or when both insert at the same place (which
// goes first is then a guess); lines inserted next to a changed line stay
// next to what it becomes.
// Two changes that make the same text are one change, never a conflict.
// When pick is not nil, only the theirs hunks it accepts are applied (the
// others are as if theirs had kept base there). With conflicts the merged
// text is meaningless and is returned empty.
func Merge3(base, ours, theirs []string, pick func(Hunk) bool) (string, []MergeConflict) {
	ho := LineHunks(base, ours)
	var ht []Hunk
	for _, h := range LineHunks(base, theirs) {
		if pick == nil || pick(h) {
			ht = append(ht, h)
		}
	}
	var sb strings.Builder
	var conflicts []MergeConflict
	at := 0 // base lines before at are written
	i, j := 0, 0
	for i < len(ho) || j < len(ht) {
		// Start a cluster with the earlier hunk and absorb every hunk of
		// either side that overlaps it.
		var c cluster
		if j >= len(ht) || (i < len(ho) && before(ho[i], ht[j])) {
			c.add(ho[i], 0)
			i++
		} else {
			c.add(ht[j], 1)
			j++
		}
		for grew := true; grew; {
			grew = false
			if i < len(ho) && c.overlaps(ho[i]) {
				c.add(ho[i], 0)
				i++
				grew = true
			}
			if j < len(ht) && c.overlaps(ht[j]) {
				c.add(ht[j], 1)
				j++
				grew = true
			}
		}
		for _, l := range base[at:c.lo] {
			sb.WriteString(l)
		}
		at = c.hi
		switch {
		case len(c.sides[1]) == 0:
			sb.WriteString(c.region(base, ours, 0))
		case len(c.sides[0]) == 0:
			sb.WriteString(c.region(base, theirs, 1))
		default:
			o, t := c.region(base, ours, 0), c.region(base, theirs, 1)
			if o != t {
				conflicts = append(conflicts, MergeConflict{c.lo, c.hi})
			}
			sb.WriteString(o)
		}
	}
	if len(conflicts) > 0 {
		return "", conflicts
	}
	for _, l := range base[at:] {
		sb.WriteString(l)
	}
	return sb.String(), nil
}

// before orders hunks by where they start; an insertion comes before a
// change starting at the same line, as it goes before that line.
func before(a, b Hunk) bool {
	if a.A0 != b.A0 {
		return a.A0 < b.A0
	}
	return a.A1 <= b.A1
}

// cluster is a run of overlapping hunks of both sides (0 ours, 1 theirs)
// covering base lines [lo, hi).
type cluster struct {
	lo, hi int
	sides  [2][]Hunk
	n      int
}

func (c *cluster) add(h Hunk, side int) {
	if c.n == 0 || h.A0 < c.lo {
		c.lo = h.A0
	}
	if c.n == 0 || h.A1 > c.hi {
		c.hi = h.A1
	}
	c.sides[side] = append(c.sides[side], h)
	c.n++
}

// overlaps reports whether h shares a base line with the cluster, or one
// of them is an insertion inside or at an edge of the other.
func (c *cluster) overlaps(h Hunk) bool { return overlapsRegion(h, c.lo, c.hi) }

// overlapsRegion reports whether hunk h overlaps lines [lo, hi) of its a
// side: both change a same line, one inserts strictly inside the other, or
// both insert at the same place (whose lines come first is then a guess).
// An insertion next to a changed line does not overlap it: it stays next
// to what the line becomes.
func overlapsRegion(h Hunk, lo, hi int) bool {
	switch {
	case h.A0 == h.A1 && lo == hi:
		return h.A0 == lo
	case h.A0 == h.A1:
		return lo < h.A0 && h.A0 < hi
	case lo == hi:
		return h.A0 < lo && lo < h.A1
	}
	return h.A0 < hi && lo < h.A1
}

// MapRegion follows lines [lo, hi) of the a side of hunks (a → b) to b:
// the region they became, grown by every hunk that overlaps it (as Merge3
// counts overlap), and whether any did.
func MapRegion(hunks []Hunk, lo, hi int) (nlo, nhi int, touched bool) {
	shift := 0 // b line minus a line, after the hunks seen so far
	var first, last Hunk
	shiftBefore := 0
	for _, h := range hunks {
		if overlapsRegion(h, lo, hi) {
			if !touched {
				first, shiftBefore = h, shift
			}
			last, touched = h, true
		} else if h.A0 >= hi {
			break // past the region
		}
		shift += (h.B1 - h.B0) - (h.A1 - h.A0)
	}
	if !touched {
		return lo + shift, hi + shift, false
	}
	if first.A0 <= lo {
		nlo = first.B0
	} else {
		nlo = lo + shiftBefore
	}
	if last.A1 >= hi {
		nhi = last.B1
	} else {
		nhi = hi + shift
	}
	return nlo, nhi, true
}

// region is the text one side (whose lines are side) puts in place of base
// lines [lo, hi).
func (c *cluster) region(base, lines []string, s int) string {
	var sb strings.Builder
	at := c.lo
	for _, h := range c.sides[s] {
		for _, l := range base[at:h.A0] {
			sb.WriteString(l)
		}
		for _, l := range lines[h.B0:h.B1] {
			sb.WriteString(l)
		}
		at = h.A1
	}
	for _, l := range base[at:c.hi] {
		sb.WriteString(l)
	}
	return sb.String()
}

// MapBack maps lines first..last (0-based, inclusive) of the b side of
// hunks (a → b, from Hunks) to the lines of a they come from: an unchanged
// line is itself, a line a hunk wrote is that hunk's whole a range (for a
// hunk that only added lines, the lines on either side of its gap).
func MapBack(hunks []Hunk, first, last int) (int, int) {
	if last < first {
		first, last = last, first
	}
	lo, hi := mapBack(hunks, first, true), mapBack(hunks, last, false)
	if hi < lo {
		lo, hi = hi, lo
	}
	return lo, hi
}

func mapBack(hunks []Hunk, line int, low bool) int {
	shift := 0 // a line minus b line in the unchanged run before line
	for _, h := range hunks {
		if line < h.B0 {
			break
		}
		if line < h.B1 {
			switch {
			case h.A0 == h.A1 && low:
				return max(h.A0-1, 0)
			case h.A0 == h.A1:
				return h.A0
			case low:
				return h.A0
			}
			return h.A1 - 1
		}
		shift = h.A1 - h.B1
	}
	return line + shift
}
