package xls

import (
	"io"
)

// blockCache is an io.ReaderAt over a file that keeps its last few 64 KiB
// blocks. The compound-file reader asks for every sector's next link with
// a 4-byte read of the allocation table and reads the stream a sector at a
// time; served from memory these cost no system call each.
type blockCache struct {
	ra     io.ReaderAt
	size   int64
	blocks [4]cacheBlock
	tick   uint64
}

type cacheBlock struct {
	off  int64 // -1 when empty
	n    int
	used uint64
	data []byte
}

const blockSize = 64 << 10

func newBlockCache(ra io.ReaderAt, size int64) *blockCache {
	c := &blockCache{ra: ra, size: size}
	for i := range c.blocks {
		c.blocks[i].off = -1
	}
	return c
}

// ReadAt reads len(p) bytes at off through the cache.
func (c *blockCache) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.EOF
	}
	done := 0
	for done < len(p) {
		pos := off + int64(done)
		if pos >= c.size {
			return done, io.EOF
		}
		b, err := c.block(pos - pos%blockSize)
		if err != nil {
			return done, err
		}
		i := int(pos % blockSize)
		if i >= b.n {
			return done, io.EOF
		}
		done += copy(p[done:], b.data[i:b.n])
	}
	return done, nil
}

func (c *blockCache) block(off int64) (*cacheBlock, error) {
	c.tick++
	lru := &c.blocks[0]
	for i := range c.blocks {
		b := &c.blocks[i]
		if b.off == off {
			b.used = c.tick
			return b, nil
		}
		if b.used < lru.used {
			lru = b
		}
	}
	if lru.data == nil {
		lru.data = make([]byte, blockSize)
	}
	n, err := c.ra.ReadAt(lru.data, off)
	if n == 0 && err != nil {
		lru.off = -1
		return nil, err
	}
	lru.off, lru.n, lru.used = off, n, c.tick
	return lru, nil
}
