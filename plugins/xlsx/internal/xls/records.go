package xls

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
)

// Record types read here (MS-XLS 2.3).
const (
	recFormula    = 0x0006
	recName       = 0x0018
	recExternSht  = 0x0017
	recExternName = 0x0023
	recSupBook    = 0x01AE
	recShrFmla    = 0x04BC
	recArray      = 0x0221
	recEOF        = 0x000A
	recFilePass   = 0x002F
	recDateMode   = 0x0022
	recContinue   = 0x003C
	recCodePage   = 0x0042
	recBoundSheet = 0x0085
	recMulRK      = 0x00BD
	recMulBlank   = 0x00BE
	recRString    = 0x00D6
	recXF         = 0x00E0
	recMergeCells = 0x00E5
	recSST        = 0x00FC
	recLabelSST   = 0x00FD
	recDimensions = 0x0200
	recBlank      = 0x0201
	recNumber     = 0x0203
	recLabel      = 0x0204
	recBoolErr    = 0x0205
	recString     = 0x0207
	recRK         = 0x027E
	recFormat     = 0x041E
	recBOF        = 0x0809
	recBOF4       = 0x0409
	recBOF3       = 0x0209
	recBOF2       = 0x0009
	recFormula3   = 0x0206
	recFormula4   = 0x0406
	recFormat3    = 0x001E
	recXF3        = 0x0243
	recXF4        = 0x0443
)

// errTruncated is a record shorter than its fields.
var errTruncated = errors.New("record shorter than its fields")

// recordReader reads BIFF records (a 2-byte type, a 2-byte length and the
// body) from a stream through one buffer, returning each body in place: a
// body is valid until the next call. A record is at most 65,535 bytes, so
// the buffer holds any record whatever the file claims.
type recordReader struct {
	r    io.Reader
	pos  int64  // stream offset of the next record
	buf  []byte // buf[i:n] is read and not yet returned
	i, n int
	err  error // the stream's error (io.EOF at its end), once met
	back bool  // next returns the current record again
	typ  uint16
	body []byte
}

// recordBufSize holds the largest record and its header with room for
// the records after it, so the buffer is refilled once per many records.
const recordBufSize = 128 << 10

func newRecordReader(r io.Reader, pos int64) *recordReader {
	return &recordReader{r: r, pos: pos, buf: make([]byte, recordBufSize)}
}

// fill reads until need bytes are buffered, or the stream ends or fails.
func (rr *recordReader) fill(need int) {
	if len(rr.buf)-rr.i < need {
		rr.n = copy(rr.buf, rr.buf[rr.i:rr.n])
		rr.i = 0
	}
	for rr.n-rr.i < need && rr.err == nil {
		k, err := rr.r.Read(rr.buf[rr.n:])
		rr.n += k
		if err != nil {
			rr.err = err
		} else if k == 0 {
			rr.err = io.ErrNoProgress
		}
	}
}

// next returns the next record; io.EOF at the end of the stream.
func (rr *recordReader) next() (uint16, []byte, error) {
	if rr.back {
		rr.back = false
		return rr.typ, rr.body, nil
	}
	if rr.fill(4); rr.n-rr.i < 4 {
		if rr.n > rr.i && rr.err == io.EOF {
			return 0, nil, fmt.Errorf("a record header cut short at offset %d", rr.pos)
		}
		return 0, nil, rr.err
	}
	h := rr.buf[rr.i : rr.i+4]
	typ, n := binary.LittleEndian.Uint16(h), int(binary.LittleEndian.Uint16(h[2:]))
	if rr.fill(4 + n); rr.n-rr.i < 4+n {
		return 0, nil, fmt.Errorf("record 0x%04X at offset %d declares %d bytes past the end of the stream", typ, rr.pos, n)
	}
	body := rr.buf[rr.i+4 : rr.i+4+n : rr.i+4+n]
	rr.i += 4 + n
	rr.pos += 4 + int64(n)
	rr.typ, rr.body = typ, body
	return typ, body, nil
}

// unread makes next return the record it returned last once more.
func (rr *recordReader) unread() { rr.back = true }

// contReader reads a record's body and the CONTINUE records after it as one
// run of bytes, except that character data crossing into a CONTINUE starts
// there with a new flags byte (MS-XLS 2.1.7.1, XLUnicodeRichExtendedString).
type contReader struct {
	rr  *recordReader
	seg []byte
	off int
	err error
}

// more moves to the next CONTINUE record; false when the next record is
// something else (left for rr.next) or the stream ends.
func (c *contReader) more() bool {
	typ, body, err := c.rr.next()
	if err != nil {
		if err != io.EOF {
			c.err = err
		}
		return false
	}
	if typ != recContinue {
		c.rr.unread()
		return false
	}
	c.seg, c.off = body, 0
	return true
}

func (c *contReader) u8() (byte, bool) {
	for c.off >= len(c.seg) {
		if !c.more() {
			return 0, false
		}
	}
	b := c.seg[c.off]
	c.off++
	return b, true
}

func (c *contReader) u16() (uint16, bool) {
	a, ok1 := c.u8()
	b, ok2 := c.u8()
	return uint16(a) | uint16(b)<<8, ok1 && ok2
}

func (c *contReader) u32() (uint32, bool) {
	a, ok1 := c.u16()
	b, ok2 := c.u16()
	return uint32(a) | uint32(b)<<16, ok1 && ok2
}

// skip passes over n bytes, across CONTINUE records.
func (c *contReader) skip(n int) bool {
	for n > 0 {
		if c.off >= len(c.seg) && !c.more() {
			return false
		}
		k := min(n, len(c.seg)-c.off)
		c.off += k
		n -= k
	}
	return true
}

// chars reads cch characters, 16-bit when high is set; a CONTINUE met
// inside them starts with a flags byte saying the width of the rest.
func (c *contReader) chars(dst []byte, cch int, high bool) ([]byte, bool) {
	for cch > 0 {
		if c.off >= len(c.seg) {
			if !c.more() {
				return dst, false
			}
			f, ok := c.u8()
			if !ok {
				return dst, false
			}
			high = f&1 != 0
		}
		avail := len(c.seg) - c.off
		if high {
			k := min(cch, avail/2)
			if k == 0 {
				// A lone byte before a record boundary: no valid writer
				// splits a character; take it as the low half.
				dst = utf8.AppendRune(dst, rune(c.seg[c.off]))
				c.off++
				cch--
				continue
			}
			dst = appendUTF16(dst, c.seg[c.off:c.off+2*k])
			c.off += 2 * k
			cch -= k
		} else {
			k := min(cch, avail)
			dst = appendLatin1(dst, c.seg[c.off:c.off+k])
			c.off += k
			cch -= k
		}
	}
	return dst, true
}

// appendLatin1 appends BIFF8's compressed characters (the low bytes of
// UTF-16 code units, so Latin-1) as UTF-8.
func appendLatin1(dst, b []byte) []byte {
	for _, c := range b {
		if c < utf8.RuneSelf {
			dst = append(dst, c)
		} else {
			dst = utf8.AppendRune(dst, rune(c))
		}
	}
	return dst
}

// appendUTF16 appends little-endian UTF-16 as UTF-8; an unpaired surrogate
// becomes U+FFFD.
func appendUTF16(dst, b []byte) []byte {
	for i := 0; i+1 < len(b); i += 2 {
		u := rune(binary.LittleEndian.Uint16(b[i:]))
		switch {
		case u < utf8.RuneSelf:
			dst = append(dst, byte(u))
		case utf16.IsSurrogate(u) && u < 0xDC00 && i+3 < len(b):
			if r := utf16.DecodeRune(u, rune(binary.LittleEndian.Uint16(b[i+2:]))); r != utf8.RuneError {
				dst = utf8.AppendRune(dst, r)
				i += 2
				continue
			}
			dst = utf8.AppendRune(dst, utf8.RuneError)
		default:
			dst = utf8.AppendRune(dst, u)
		}
	}
	return dst
}

// strReader reads the strings of a single record body.
type strReader struct {
	b   []byte
	off int
	// dec decodes BIFF5's 8-bit strings (the workbook's code page).
	dec *encoding.Decoder
}

// unicode reads an XLUnicodeString (BIFF8: a count of lenBytes bytes, a
// flags byte, the characters, then rich-text runs and phonetic data to
// skip) or, for BIFF5, a count and code-page bytes.
func (s *strReader) unicode(lenBytes int, biff8 bool) (string, error) {
	if s.off+lenBytes > len(s.b) {
		return "", errTruncated
	}
	var cch int
	if lenBytes == 1 {
		cch = int(s.b[s.off])
	} else {
		cch = int(binary.LittleEndian.Uint16(s.b[s.off:]))
	}
	s.off += lenBytes
	if !biff8 {
		end := min(s.off+cch, len(s.b))
		raw := s.b[s.off:end]
		s.off = end
		return decode8(s.dec, raw), nil
	}
	if s.off >= len(s.b) {
		if cch == 0 {
			return "", nil
		}
		return "", errTruncated
	}
	flags := s.b[s.off]
	s.off++
	runs, ext := 0, 0
	if flags&8 != 0 && s.off+2 <= len(s.b) {
		runs = int(binary.LittleEndian.Uint16(s.b[s.off:]))
		s.off += 2
	}
	if flags&4 != 0 && s.off+4 <= len(s.b) {
		ext = int(binary.LittleEndian.Uint32(s.b[s.off:]))
		s.off += 4
	}
	n := cch
	if flags&1 != 0 {
		n *= 2
	}
	if s.off+n > len(s.b) {
		// Some writers count a string longer than they wrote: keep what
		// is there, as xlrd does.
		n = len(s.b) - s.off
		if flags&1 != 0 {
			n &^= 1
		}
	}
	var out []byte
	if flags&1 != 0 {
		out = appendUTF16(make([]byte, 0, n/2), s.b[s.off:s.off+n])
	} else {
		out = appendLatin1(make([]byte, 0, n), s.b[s.off:s.off+n])
	}
	s.off += n + 4*runs + ext
	return string(out), nil
}

// decode8 decodes 8-bit text in the workbook's code page.
func decode8(dec *encoding.Decoder, raw []byte) string {
	ascii := true
	for _, c := range raw {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || dec == nil {
		if ascii {
			return string(raw)
		}
		return string(appendLatin1(nil, raw))
	}
	out, err := dec.Bytes(raw)
	if err != nil {
		return string(appendLatin1(nil, raw))
	}
	return string(out)
}
