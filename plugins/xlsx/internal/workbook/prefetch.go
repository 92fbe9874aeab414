package workbook

import (
	"io"
	"sync"
)

// prefetcher inflates a part in its own goroutine, a few chunks ahead of the
// parser, so on two or more cores decompression and parsing overlap. Close
// stops the goroutine and waits for it.
type prefetcher struct {
	src    io.ReadCloser
	chunks chan chunk
	free   chan []byte
	done   chan struct{}
	wg     sync.WaitGroup
	cur    []byte
	curBuf []byte
	err    error
}

type chunk struct {
	buf []byte
	n   int
	err error
}

const (
	prefetchChunk = 256 << 10
	prefetchAhead = 4
)

func newPrefetcher(src io.ReadCloser) *prefetcher {
	p := &prefetcher{src: src, chunks: make(chan chunk, prefetchAhead),
		free: make(chan []byte, prefetchAhead+2), done: make(chan struct{})}
	for range prefetchAhead + 2 {
		p.free <- make([]byte, prefetchChunk)
	}
	p.wg.Add(1)
	go p.fill()
	return p
}

func (p *prefetcher) fill() {
	defer p.wg.Done()
	defer close(p.chunks)
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.done:
			return
		}
		n, err := io.ReadFull(p.src, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		select {
		case p.chunks <- chunk{buf, n, err}:
		case <-p.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read copies from the current chunk, taking the next one when it is used.
func (p *prefetcher) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.curBuf != nil {
			p.free <- p.curBuf
			p.curBuf = nil
		}
		c, ok := <-p.chunks
		if !ok {
			p.err = io.EOF
			return 0, p.err
		}
		p.cur, p.curBuf = c.buf[:c.n], c.buf
		p.err = c.err
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close stops the goroutine, waits for it and closes the part.
func (p *prefetcher) Close() error {
	close(p.done)
	p.wg.Wait()
	return p.src.Close()
}
