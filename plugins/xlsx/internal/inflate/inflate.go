// Package inflate decompresses DEFLATE streams (RFC 1951), as
// compress/flate's reader does, about twice as fast on the parts of real
// workbooks: it takes eight input bytes at a time into a 64-bit bit buffer
// (compress/flate reads one byte at a time through an interface), decodes
// a literal or length code with one table look-up (two for codes longer
// than ten bits), and inflates in 32 KiB pieces straight into a large
// window it hands out, sliding back only the 32 KiB of history a match may
// reach.
//
// Reading a 76 MB sheet of a 200,000-row workbook was a quarter of the
// plugin's CPU with compress/flate. The output for any valid stream is
// compress/flate's (checked by FuzzInflate); a corrupt stream fails with
// flate.CorruptInputError, a truncated one with io.ErrUnexpectedEOF.
package inflate

import (
	"compress/flate"
	"encoding/binary"
	"io"
	"sync"
)

const (
	historySize = 32 << 10 // the farthest a match reaches back
	// 128 KiB of output between slides: each slide copies the 32 KiB
	// of history (a quarter more copying than a 256 KiB window), and
	// the smaller window is less fresh memory: 32 fewer page faults per
	// part reader (records on the long-strings workbook's word list: 1218
	// -> 1168 faults), with no CPU difference measurable at load 11-14.
	windowSize = historySize + 128<<10
	maxMatch   = 258
	inSize     = 32 << 10
	inPad      = 16 // zero bytes after the input, so eight can always be loaded

	litBits  = 10 // primary table index bits for literal/length codes
	distBits = 8  // and for distance codes
	clenBits = 7  // code length codes are at most 7 bits: one level
)

// Reader decompresses a DEFLATE stream. It is not safe for concurrent use.
type Reader struct {
	r   io.Reader
	in  []byte
	ip  int  // next input byte to load into bits
	end int  // input bytes held in in
	eof bool // r has no more
	pos int64

	bits  uint64 // the next bits of input, lowest first
	nbits uint   // how many of them are real

	win        []byte
	wpos, rpos int

	state    int
	final    bool
	stored   int // bytes left in a stored block
	lit, dst []uint32
	litMask  uint64
	dstMask  uint64
	fixed    bool
	err      error
}

// The reader's states between calls to decode.
const (
	stateHeader  = iota // before a block
	stateStored         // inside a stored block
	stateHuffman        // inside a compressed block
	stateDone           // after the final block
)

// NewReader returns a Reader of the DEFLATE stream r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, in: make([]byte, inSize+inPad), win: make([]byte, windowSize)}
}

// Reset makes z read the DEFLATE stream r, keeping its buffers.
func (z *Reader) Reset(r io.Reader) {
	*z = Reader{r: r, in: z.in, win: z.win, lit: z.lit, dst: z.dst, fixed: z.fixed}
}

// Close releases nothing: it is there for io.ReadCloser.
func (z *Reader) Close() error { return nil }

// Read reads decompressed bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for z.rpos == z.wpos {
		if z.err != nil {
			return 0, z.err
		}
		if z.state == stateDone {
			z.err = io.EOF
			return 0, io.EOF
		}
		if z.wpos >= len(z.win)-maxMatch-8 {
			// Everything written was read: keep only the history.
			n := copy(z.win, z.win[z.wpos-historySize:z.wpos])
			z.wpos, z.rpos = n, n
		}
		z.decode()
	}
	n := copy(p, z.win[z.rpos:z.wpos])
	z.rpos += n
	return n, nil
}

// corrupt records a corrupt-input error at the current input offset.
func (z *Reader) corrupt() {
	if z.err == nil {
		z.err = flate.CorruptInputError(z.pos + int64(z.ip))
	}
}

// fill moves the unread input to the front of in and reads more, keeping
// inPad zero bytes after it. The whole bytes still held in bits move with
// it: a stored block's header gives them back to the input (without them
// kept, a stored block after a compressed one, at a refill, read from
// before the input's start).
func (z *Reader) fill() {
	if z.eof {
		return
	}
	from := max(z.ip-int(z.nbits>>3), 0)
	n := copy(z.in, z.in[from:z.end])
	z.pos += int64(from)
	z.ip, z.end = z.ip-from, n
	for !z.eof && z.end < inSize {
		k, err := z.r.Read(z.in[z.end:inSize])
		z.end += k
		if err != nil {
			if err != io.EOF {
				z.err = err
			}
			z.eof = true
		}
		if k > 0 && z.end >= inPad {
			break
		}
	}
	clear(z.in[z.end : z.end+inPad])
}

// refill loads input into bits until at least 56 are held; past the input
// it loads zeros, which overrun notices when they are used.
func (z *Reader) refill() {
	if z.end-z.ip < inPad && !z.eof {
		z.fill()
	}
	if z.ip+8 > len(z.in) { // far past a truncated end
		z.truncated()
		return
	}
	b := z.in[z.ip : z.ip+8]
	w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	z.bits |= w << z.nbits
	z.ip += int(63-z.nbits) >> 3
	z.nbits |= 56
}

// overrun reports whether bits past the end of the input were used: the
// stream is truncated.
func (z *Reader) overrun() bool {
	return z.ip > z.end && z.nbits < uint(z.ip-z.end)*8
}

// take consumes n bits and returns them (n <= 32, after a refill).
func (z *Reader) take(n uint) uint64 {
	v := z.bits & (1<<n - 1)
	z.bits >>= n
	z.nbits -= n
	return v
}

// step is how much decode inflates before Read hands it out: a piece that
// stays in the processor's cache until it is copied out (and no more than a
// caller that stops early needs).
const step = 32 << 10

// stop is where the window's next piece ends: step bytes on, or the
// window's end (less room for a match and a word-copy's overrun).
func (z *Reader) stop() int {
	return min(z.wpos+step, len(z.win)-maxMatch-8)
}

// decode inflates a piece (up to stop), or until the stream ends or fails.
func (z *Reader) decode() {
	for z.err == nil {
		switch z.state {
		case stateHeader:
			z.header()
		case stateStored:
			if !z.copyStored() {
				return
			}
		case stateHuffman:
			if !z.huffman() {
				return
			}
		case stateDone:
			return
		}
	}
}

// header reads a block header and, for a compressed block, its tables.
func (z *Reader) header() {
	z.refill()
	z.final = z.take(1) == 1
	switch z.take(2) {
	case 0:
		// Stored: to a byte boundary, then LEN and NLEN.
		z.take(z.nbits & 7)
		z.ip -= int(z.nbits >> 3) // give the whole bytes back
		z.bits, z.nbits = 0, 0
		if z.end-z.ip < 4 {
			z.fill()
		}
		if z.end-z.ip < 4 {
			z.truncated()
			return
		}
		b := z.in[z.ip:]
		n, nn := int(b[0])|int(b[1])<<8, int(b[2])|int(b[3])<<8
		if n != ^nn&0xffff {
			z.corrupt()
			return
		}
		z.ip += 4
		z.stored, z.state = n, stateStored
	case 1:
		z.lit, z.dst, z.litMask, z.dstMask = fixedTables()
		z.fixed = true
		z.state = stateHuffman
	case 2:
		if z.dynamicTables() {
			z.state = stateHuffman
		}
	default:
		z.corrupt()
	}
	if z.overrun() {
		z.truncated()
	}
}

// truncated records the end of input inside the stream.
func (z *Reader) truncated() {
	if z.err == nil {
		z.err = io.ErrUnexpectedEOF
	}
}

// endBlock moves past a finished block.
func (z *Reader) endBlock() {
	if z.final {
		z.state = stateDone
	} else {
		z.state = stateHeader
	}
}

// copyStored copies a stored block's bytes into the window; it reports
// false when the window is full.
func (z *Reader) copyStored() bool {
	for z.stored > 0 {
		room := z.stop() - z.wpos
		if room <= 0 {
			return false
		}
		if z.ip >= z.end {
			z.fill()
			if z.ip >= z.end {
				if z.err == nil {
					z.truncated()
				}
				return false
			}
		}
		n := copy(z.win[z.wpos:z.wpos+min(room, z.stored)], z.in[z.ip:z.end])
		z.ip += n
		z.wpos += n
		z.stored -= n
	}
	z.endBlock()
	return true
}

// Length and distance codes: base values and extra bits.
var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase  = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// symbol decodes one code with table t (primary index mask m): the
// symbol, or -1 for a bit pattern no code has.
func (z *Reader) symbol(t []uint32, m uint64) int {
	e := t[z.bits&m]
	if e&subTable != 0 {
		primary := uint(e & 0xff)
		sub := uint(e>>24) & 0x3f
		e = t[uint64(e>>8&0xffff)+(z.bits>>primary)&(1<<sub-1)]
	}
	n := uint(e & 0xff)
	if n == 0 {
		return -1
	}
	z.bits >>= n
	z.nbits -= n
	return int(e >> 8 & 0xffff)
}

// huffman inflates a compressed block's symbols into the window; it
// reports false when the window is full or the stream failed. The bit
// buffer lives in locals here (z.bits and z.nbits are written back on the
// way out and around a refill): this loop is where inflating spends its
// time.
func (z *Reader) huffman() bool {
	win := z.win
	limit := z.stop()
	wpos := z.wpos
	bits, nbits := z.bits, z.nbits
	lit, dst := z.lit, z.dst
	lm, dm := z.litMask, z.dstMask
	past := z.ip > z.end // bits are being loaded from past the input
	defer func() { z.wpos, z.bits, z.nbits = wpos, bits, nbits }()
	for wpos < limit {
		// 56 bits hold a code (15), length bits (5), a distance code
		// (15) and its bits (13).
		if nbits < 48 {
			if z.end-z.ip < inPad && !z.eof {
				z.bits, z.nbits = bits, nbits
				z.fill()
			}
			ip := z.ip
			if ip+8 > len(z.in) {
				z.truncated()
				return false
			}
			b := z.in[ip : ip+8]
			bits |= (uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56) << nbits
			z.ip = ip + int(63-nbits)>>3
			nbits |= 56
			past = z.ip > z.end
		}
		e := lit[bits&lm]
		if e&subTable != 0 {
			e = lit[uint64(e>>8&0xffff)+(bits>>(e&0xff))&(1<<(e>>24&0x3f)-1)]
		}
		n := uint(e & 0xff)
		if n == 0 {
			z.corrupt()
			return false
		}
		bits >>= n
		nbits -= n
		if past && nbits < uint(z.ip-z.end)*8 {
			z.truncated()
			return false
		}
		sym := int(e >> 8 & 0xffff)
		if sym < 256 {
			win[wpos] = byte(sym)
			wpos++
			continue
		}
		if sym == 256 {
			z.endBlock()
			return true
		}
		sym -= 257
		if sym >= len(lenBase) {
			z.corrupt()
			return false
		}
		x := uint(lenExtra[sym])
		length := int(lenBase[sym]) + int(bits&(1<<x-1))
		bits >>= x
		nbits -= x
		e = dst[bits&dm]
		if e&subTable != 0 {
			e = dst[uint64(e>>8&0xffff)+(bits>>(e&0xff))&(1<<(e>>24&0x3f)-1)]
		}
		n = uint(e & 0xff)
		ds := int(e >> 8 & 0xffff)
		if n == 0 || ds >= len(dstBase) {
			z.corrupt()
			return false
		}
		bits >>= n
		nbits -= n
		x = uint(dstExtra[ds])
		dist := int(dstBase[ds]) + int(bits&(1<<x-1))
		bits >>= x
		nbits -= x
		if past && nbits < uint(z.ip-z.end)*8 {
			z.truncated()
			return false
		}
		if dist > wpos {
			z.corrupt()
			return false
		}
		src := wpos - dist
		if dist >= 8 && length <= 32 {
			// Eight bytes at a time, each read wholly before where it
			// is written; up to seven bytes past the match are written
			// over (the window keeps room) and rewritten later.
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(win[wpos+i:], binary.LittleEndian.Uint64(win[src+i:]))
			}
			wpos += length
			continue
		}
		if dist >= length {
			copy(win[wpos:wpos+length], win[src:src+length])
			wpos += length
			continue
		}
		// Overlapping: each copy doubles what can be copied next.
		for end := wpos + length; wpos < end; {
			wpos += copy(win[wpos:end], win[src:wpos])
		}
	}
	return false
}

// Table entries: the code's length in bits (0: no code) in bits 0-7, the
// symbol in bits 8-23; or, with subTable set, the primary index bits in
// bits 0-7, the subtable's offset in bits 8-23 and its index bits in bits
// 24-29.
const subTable = 1 << 31

// codeOrder is the order of the code length code lengths.
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicTables reads a dynamic block's code lengths and builds its
// tables; it reports false on a corrupt or truncated header.
func (z *Reader) dynamicTables() bool {
	z.refill()
	nlit := int(z.take(5)) + 257
	ndist := int(z.take(5)) + 1
	nclen := int(z.take(4)) + 4
	if nlit > 286 || ndist > 30 {
		z.corrupt()
		return false
	}
	var clens [19]uint8
	for i := range nclen {
		if z.nbits < 3 {
			z.refill()
		}
		clens[codeOrder[i]] = uint8(z.take(3))
	}
	var clTable [1 << clenBits]uint32
	if !build(clTable[:], clens[:], clenBits) {
		z.corrupt()
		return false
	}
	var lens [286 + 30]uint8
	for i := 0; i < nlit+ndist; {
		if z.nbits < 16 {
			z.refill()
		}
		sym := z.symbol(clTable[:], 1<<clenBits-1)
		var rep int
		var val uint8
		switch {
		case sym < 0:
			z.corrupt()
			return false
		case sym < 16:
			lens[i] = uint8(sym)
			i++
			continue
		case sym == 16:
			if i == 0 {
				z.corrupt()
				return false
			}
			rep, val = 3+int(z.take(2)), lens[i-1]
		case sym == 17:
			rep = 3 + int(z.take(3))
		default:
			rep = 11 + int(z.take(7))
		}
		if i+rep > nlit+ndist {
			z.corrupt()
			return false
		}
		for ; rep > 0; rep-- {
			lens[i] = val
			i++
		}
		if z.overrun() {
			z.truncated()
			return false
		}
	}
	if z.overrun() {
		z.truncated()
		return false
	}
	if lens[256] == 0 {
		z.corrupt() // no end of block: the block could never end
		return false
	}
	if z.fixed || z.lit == nil {
		z.lit, z.dst = make([]uint32, tableSize(litBits, 286)), make([]uint32, tableSize(distBits, 30))
		z.fixed = false
	}
	if !build(z.lit, lens[:nlit], litBits) || !build(z.dst, lens[nlit:nlit+ndist], distBits) {
		z.corrupt()
		return false
	}
	z.litMask, z.dstMask = 1<<litBits-1, 1<<distBits-1
	return true
}

// tableSize is the most entries a table of codes codes with primary bits
// needs: the primary table and, at most, one subtable of 15-bit codes for
// each code longer than primary bits.
func tableSize(primary uint, codes int) int {
	return 1<<primary + codes<<(15-primary)
}

// build fills t with the canonical Huffman code of lengths (t's primary
// table indexed by primary bits, then subtables). It reports false for
// lengths no prefix code has (over-subscribed, or incomplete but for the
// single one-bit code zlib accepts); no lengths at all give an empty
// table, which fails when used.
func build(t []uint32, lengths []uint8, primary uint) bool {
	var count [16]int
	maxLen := 0
	for _, n := range lengths {
		if n > 0 {
			count[n]++
			maxLen = max(maxLen, int(n))
		}
	}
	clear(t[:1<<primary])
	if maxLen == 0 {
		return true
	}
	var next [16]int
	code := 0
	for n := 1; n <= 15; n++ {
		code = (code + count[n-1]) << 1
		next[n] = code
	}
	// Complete: the last code of the longest length is all ones.
	used := 0
	for n := 1; n <= maxLen; n++ {
		used += count[n] << (maxLen - n)
	}
	if used > 1<<maxLen || used < 1<<maxLen && !(used == 1<<(maxLen-1) && maxLen == 1) {
		return false
	}
	sub := uint(0)
	if maxLen > int(primary) {
		sub = uint(maxLen) - primary
	}
	nextSub := 1 << primary
	for sym, n := range lengths {
		if n == 0 {
			continue
		}
		c := next[n]
		next[n]++
		rev := reverse(c, uint(n))
		if uint(n) <= primary {
			e := uint32(n) | uint32(sym)<<8
			for i := rev; i < 1<<primary; i += 1 << n {
				t[i] = e
			}
			continue
		}
		p := rev & (1<<primary - 1)
		if t[p]&subTable == 0 {
			t[p] = subTable | uint32(primary) | uint32(nextSub)<<8 | uint32(sub)<<24
			clear(t[nextSub : nextSub+1<<sub])
			nextSub += 1 << sub
		}
		base := int(t[p] >> 8 & 0xffff)
		e := uint32(n) | uint32(sym)<<8
		for i := rev >> primary; i < 1<<sub; i += 1 << (uint(n) - primary) {
			t[base+i] = e
		}
	}
	return true
}

// reverse returns the n low bits of c in reverse order.
func reverse(c int, n uint) int {
	r := 0
	for range n {
		r = r<<1 | c&1
		c >>= 1
	}
	return r
}

// fixedTables returns the tables of a fixed-code block.
func fixedTables() (lit, dst []uint32, litMask, dstMask uint64) {
	f := fixed()
	return f.lit, f.dst, 1<<litBits - 1, 1<<distBits - 1
}

// fixed builds the fixed-code tables once.
var fixed = sync.OnceValue(func() *struct{ lit, dst []uint32 } {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	lit := make([]uint32, tableSize(litBits, 288))
	build(lit, lens[:], litBits)
	var dl [32]uint8 // 30 and 31 are codes no stream may use
	for i := range dl {
		dl[i] = 5
	}
	dst := make([]uint32, tableSize(distBits, 32))
	build(dst, dl[:], distBits)
	return &struct{ lit, dst []uint32 }{lit, dst}
})
