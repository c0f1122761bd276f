package segfile

import "sync"

// cacheBlocks bounds the blocks a process keeps (2 MiB): a running server
// reads the same few blocks again and again (the newest turns, the tables'
// hot keys), a short-lived process reads a handful once.
const cacheBlocks = 512

type blockKey struct {
	file uint64
	off  int64
}

// blockCache keeps recently read, checked blocks, dropping the one least
// recently used when full.
type blockCache struct {
	mu    sync.Mutex
	items map[blockKey]*cacheItem
	head  cacheItem // a ring: head.next is the most recently used
}

type cacheItem struct {
	key        blockKey
	data       []byte
	prev, next *cacheItem
}

var cache = newBlockCache()

func newBlockCache() *blockCache {
	c := &blockCache{items: map[blockKey]*cacheItem{}}
	c.head.next, c.head.prev = &c.head, &c.head
	return c
}

func (c *blockCache) get(file uint64, off int64) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.items[blockKey{file, off}]
	if it == nil {
		return nil
	}
	c.unlink(it)
	c.front(it)
	return it.data
}

func (c *blockCache) put(file uint64, off int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := blockKey{file, off}
	if it := c.items[k]; it != nil {
		it.data = data
		c.unlink(it)
		c.front(it)
		return
	}
	if len(c.items) >= cacheBlocks {
		last := c.head.prev
		c.unlink(last)
		delete(c.items, last.key)
	}
	it := &cacheItem{key: k, data: data}
	c.items[k] = it
	c.front(it)
}

func (c *blockCache) unlink(it *cacheItem) {
	it.prev.next, it.next.prev = it.next, it.prev
}

func (c *blockCache) front(it *cacheItem) {
	it.prev, it.next = &c.head, c.head.next
	c.head.next.prev = it
	c.head.next = it
}
