package snapshot

import "testing"

// TestTreeCacheIsBoundedByEntries: a large folder's tree is a new one at
// every change in it; however many of them a long-running server stores,
// the cache holds at most two generations of entries, and the trees the
// latest captures stored are still in it.
func TestTreeCacheIsBoundedByEntries(t *testing.T) {
	var c treeCache
	big := make([]treeEntry, 500) // a folder of 500 files
	var last ID
	for i := 0; i < 5000; i++ { // 2.5 million entries stored in all
		var id ID
		id[0], id[1] = byte(i), byte(i>>8)
		c.put(id, big)
		last = id
	}
	held := 0
	for _, ents := range c.cur {
		held += len(ents)
	}
	for _, ents := range c.old {
		held += len(ents)
	}
	if held > 2*treeCacheEntries {
		t.Fatalf("the cache holds %d entries, bound %d", held, 2*treeCacheEntries)
	}
	if _, ok := c.get(last); !ok {
		t.Fatal("the tree stored last is not in the cache")
	}
}
