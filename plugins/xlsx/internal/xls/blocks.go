package xls

import "io"

// blockSize is the compound file's smallest sector, the unit blockReader
// keeps.
const blockSize = 512

// blockReader is the file as mscfb reads it. mscfb finds each sector's
// successor with a 4-byte read of the allocation table (FAT): one system
// call per 512-byte sector of the workbook stream. blockReader answers
// such small reads from the 512-byte block of the file they fall in,
// which holds the next 127 entries of the table, and passes every other
// read to the file.
type blockReader struct {
	ra  io.ReaderAt
	off int64 // offset of the block in buf, -1 before the first
	n   int   // bytes of the block read (fewer at the end of the file)
	buf [blockSize]byte
}

func newBlockReader(ra io.ReaderAt) *blockReader { return &blockReader{ra: ra, off: -1} }

// ReadAt reads len(p) bytes at off, as io.ReaderAt.
func (r *blockReader) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > 8 || off < 0 {
		return r.ra.ReadAt(p, off)
	}
	blk := off &^ (blockSize - 1)
	if blk != r.off {
		n, err := r.ra.ReadAt(r.buf[:], blk)
		if err != nil && err != io.EOF {
			r.off = -1
			return r.ra.ReadAt(p, off)
		}
		r.off, r.n = blk, n
	}
	i := int(off - blk)
	if i+len(p) > r.n {
		return r.ra.ReadAt(p, off)
	}
	return copy(p, r.buf[i:i+len(p)]), nil
}
