package gitignore

import (
	"bytes"
	"sort"
	"strings"
)

// trackedSet is what git's index tracks: its paths, and every folder above
// one. The index lists its paths sorted, so they are kept as one sorted
// list in one buffer and looked up by binary search: a 500,000-file index
// costs two allocations, not a map entry per file and folder. An index
// whose paths do not come sorted (a split index's two parts) falls back to
// a map.
type trackedSet struct {
	buf  []byte   // the paths, one after another
	ends []uint32 // where each path ends in buf
	m    map[string]struct{}
}

func newTrackedSet(sizeHint int) *trackedSet {
	return &trackedSet{buf: make([]byte, 0, sizeHint)}
}

// add adds a path the index lists (p is only read during the call);
// paths come in the index's order.
func (t *trackedSet) add(p []byte) {
	if t.m != nil {
		t.addToMap(string(p))
		return
	}
	if n := len(t.ends); n > 0 {
		c := bytes.Compare(p, t.at(n-1))
		if c == 0 {
			return // the same path at another merge stage
		}
		if c < 0 {
			// Not sorted: a map from here on.
			t.m = make(map[string]struct{}, 2*len(t.ends))
			for i := range t.ends {
				t.addToMap(string(t.at(i)))
			}
			t.buf, t.ends = nil, nil
			t.addToMap(string(p))
			return
		}
	}
	t.buf = append(t.buf, p...)
	t.ends = append(t.ends, uint32(len(t.buf)))
}

func (t *trackedSet) addToMap(p string) {
	p = strings.TrimSuffix(p, "/") // sparse-index folder entries
	for p != "" {
		if _, ok := t.m[p]; ok {
			return
		}
		t.m[p] = struct{}{}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return
		}
		p = p[:i]
	}
}

// at is the i-th path of the sorted list.
func (t *trackedSet) at(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.buf[start:t.ends[i]]
}

// has reports whether the index tracks path p, or a path below folder p.
func (t *trackedSet) has(p string) bool {
	if t == nil || p == "" {
		return false
	}
	if t.m != nil {
		_, ok := t.m[p]
		return ok
	}
	// The first path not below p: p itself, or the first under "p/" (a
	// sparse index lists a folder as "p/"). '/' sorts before every byte a
	// longer name below p could continue with, but not before all bytes:
	// "p-x" sorts between "p" and "p/", so both are looked for.
	if i := t.search(p); i < len(t.ends) && string(t.at(i)) == p {
		return true
	}
	dir := p + "/"
	i := t.search(dir)
	return i < len(t.ends) && bytes.HasPrefix(t.at(i), []byte(dir))
}

// search is the index of the first path not less than p.
func (t *trackedSet) search(p string) int {
	return sort.Search(len(t.ends), func(i int) bool { return string(t.at(i)) >= p })
}

// each calls fn with every path and folder the set holds (tests).
func (t *trackedSet) each(fn func(string)) {
	if t.m != nil {
		for p := range t.m {
			fn(p)
		}
		return
	}
	for i := range t.ends {
		fn(strings.TrimSuffix(string(t.at(i)), "/"))
	}
}
