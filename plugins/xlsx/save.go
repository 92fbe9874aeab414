package main

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// dumpOut is where dumpText writes: the text in order, except that a
// sheet's header, which names its used range and so is known only once the
// sheet has been read, goes before the sheet's lines already written.
type dumpOut interface {
	io.Writer
	// sheetStart marks where the next sheet's header goes; guess is the
	// header's likely length.
	sheetStart(guess int) error
	// guessHeader revises the guess (from the sheet's <dimension>).
	guessHeader(guess int)
	// sheetHeader puts the header at the mark, before the sheet's lines.
	sheetHeader(h []byte) error
}

// memDump is dumpOut in memory, for the inline result (bounded by the
// result budget).
type memDump struct {
	b    []byte
	mark int
}

func (m *memDump) Write(b []byte) (int, error) { m.b = append(m.b, b...); return len(b), nil }
func (m *memDump) sheetStart(int) error        { m.mark = len(m.b); return nil }
func (m *memDump) guessHeader(int)             {}
func (m *memDump) sheetHeader(h []byte) error {
	m.b = slices.Insert(m.b, m.mark, h...)
	return nil
}

// fileDump is dumpOut into a file, each byte written once: a sheet's lines
// go after a gap the size of its expected header (its <dimension> claim
// names the same range in nearly every workbook), and the header is
// written into the gap at the end. Only when the guess was wrong are the
// sheet's lines moved by the difference.
type fileDump struct {
	f     *os.File
	buf   []byte
	off   int64 // where buf's bytes go in the file
	mark  int64 // where the current sheet's header goes; -1 for none
	guess int   // the header's expected length
	body  int64 // where the sheet's lines start in the file; -1 before any is written
}

const fileDumpBuffer = 256 << 10

func newFileDump(f *os.File) *fileDump {
	return &fileDump{f: f, buf: make([]byte, 0, fileDumpBuffer), mark: -1, body: -1}
}

func (d *fileDump) Write(b []byte) (int, error) {
	d.buf = append(d.buf, b...)
	if len(d.buf) >= fileDumpBuffer {
		if err := d.flush(); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// flush writes the buffer, leaving the header's gap first when the
// current sheet's lines start.
func (d *fileDump) flush() error {
	if len(d.buf) == 0 {
		return nil
	}
	if d.mark >= 0 && d.body < 0 {
		d.body = d.mark + int64(d.guess)
		d.off = d.body
	}
	n, err := d.f.WriteAt(d.buf, d.off)
	d.off += int64(n)
	d.buf = d.buf[:0]
	return err
}

func (d *fileDump) sheetStart(guess int) error {
	if err := d.flush(); err != nil {
		return err
	}
	d.mark, d.guess, d.body = d.off, guess, -1
	return nil
}

func (d *fileDump) guessHeader(guess int) {
	if d.body < 0 {
		d.guess = guess
	}
}

func (d *fileDump) sheetHeader(h []byte) error {
	if d.body < 0 {
		d.guess = len(h) // nothing written yet: the gap is made to fit
	}
	if err := d.flush(); err != nil {
		return err
	}
	if d.body >= 0 && len(h) != d.guess {
		to := d.mark + int64(len(h))
		if err := moveRange(d.f, d.body, to, d.off-d.body); err != nil {
			return err
		}
		d.off += to - d.body
		if err := d.f.Truncate(d.off); err != nil {
			return err
		}
	} else if d.body < 0 {
		d.off = d.mark + int64(len(h))
	}
	_, err := d.f.WriteAt(h, d.mark)
	d.mark, d.body = -1, -1
	return err
}

// finish writes what is buffered and cuts the last trim bytes; it returns
// the file's size.
func (d *fileDump) finish(trim int64) (int64, error) {
	if err := d.flush(); err != nil {
		return 0, err
	}
	size := max(d.off-trim, 0)
	return size, d.f.Truncate(size)
}

// moveRange moves n bytes of f from offset from to offset to, in chunks,
// in the order that never overwrites bytes not yet moved.
func moveRange(f *os.File, from, to, n int64) error {
	buf := make([]byte, min(n, 1<<20))
	for done := int64(0); done < n; {
		k := min(int64(len(buf)), n-done)
		at := done // from the start when moving left
		if to > from {
			at = n - done - k // from the end when moving right
		}
		if _, err := f.ReadAt(buf[:k], from+at); err != nil {
			return fmt.Errorf("move dump text: %w", err)
		}
		if _, err := f.WriteAt(buf[:k], to+at); err != nil {
			return fmt.Errorf("move dump text: %w", err)
		}
		done += k
	}
	return nil
}
