package workbook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// scanner is a small pull tokenizer for the two big parts of a workbook
// (worksheets and the shared-string table). encoding/xml allocates for every
// token and is several times slower on sheets of hundreds of megabytes; this
// one hands out slices of its own buffer, valid until the next call.
//
// It knows what a spreadsheet part needs: elements with attributes (names
// reduced to their local part, so any namespace prefix works), text,
// CDATA, comments and processing instructions. A DOCTYPE is refused: no
// spreadsheet writer emits one and it is how entity expansion attacks
// start.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int
	end int
	eof bool
	err error
	// fills counts the reads of more input (a parser's clock for
	// checking its context).
	fills int

	kind      tokKind
	name      []byte // local name of a start or end tag
	attrs     []attr
	text      []byte // raw text: entities still encoded unless cdata
	cdata     bool
	selfClose bool
	pendEnd   bool
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
	tokText
)

type attr struct {
	name []byte // local name
	val  []byte // raw value, entities still encoded
}

const (
	scanInitial = 256 << 10
	// scanMaxToken bounds one token (a tag or a run of text): a cell holds
	// at most 32,767 characters, so this is generous.
	scanMaxToken = 64 << 20
)

var errTokenTooLarge = errors.New("xml token larger than 64 MiB")

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanInitial)}
}

// more reads more input, compacting or growing the buffer. It reports
// false at the end of input or on error.
func (s *scanner) more() bool {
	if s.eof || s.err != nil {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.end = n
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= scanMaxToken {
			s.err = errTokenTooLarge
			return false
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	s.fills++
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			if err == io.EOF {
				s.eof = true
			} else {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// find returns the index (relative to s.pos) where f finds its match in the
// unread input, reading more as needed; from is where the search may start
// (relative to s.pos). It returns -1 at the end of input.
func (s *scanner) find(from int, f func(b []byte) int) int {
	start := from
	for {
		if i := f(s.buf[s.pos+from : s.end]); i >= 0 {
			return from + i
		}
		// Rescan a little before the old end: a multi-byte terminator may
		// straddle the boundary. A start tag is rescanned whole, since
		// its quotes carry state.
		from = max(start, s.end-s.pos-4)
		if s.pos+start < s.end && s.buf[s.pos] == '<' && s.buf[s.pos+1] != '/' && s.buf[s.pos+1] != '!' && s.buf[s.pos+1] != '?' {
			from = start
		}
		if !s.more() {
			return -1
		}
	}
}

// next advances to the next token.
func (s *scanner) next() (tokKind, error) {
	if s.pendEnd {
		s.pendEnd = false
		s.kind = tokEnd
		return tokEnd, nil
	}
	for {
		if s.pos >= s.end && !s.more() {
			if s.err != nil {
				return tokEOF, s.err
			}
			s.kind = tokEOF
			return tokEOF, nil
		}
		if s.buf[s.pos] != '<' {
			i := indexNear(s.buf[s.pos:s.end], '<')
			if i < 0 {
				i = s.find(0, func(b []byte) int { return bytes.IndexByte(b, '<') })
			}
			if i < 0 {
				if s.err != nil {
					return tokEOF, s.err
				}
				i = s.end - s.pos
			}
			s.text = s.buf[s.pos : s.pos+i]
			s.cdata = false
			s.pos += i
			s.kind = tokText
			return tokText, nil
		}
		// A tag: make sure at least a few bytes are there to classify it.
		for s.end-s.pos < 9 && s.more() {
		}
		b := s.buf[s.pos:s.end]
		if len(b) >= 2 {
			switch b[1] {
			case '/':
				i := indexNear(b, '>')
				if i < 0 {
					i = s.find(2, func(b []byte) int { return bytes.IndexByte(b, '>') })
				}
				if i < 0 {
					return tokEOF, s.truncated()
				}
				s.name = localName(bytes.TrimSpace(s.buf[s.pos+2 : s.pos+i]))
				s.pos += i + 1
				s.kind = tokEnd
				return tokEnd, nil
			case '?':
				i := s.find(2, func(b []byte) int { return bytes.Index(b, []byte("?>")) })
				if i < 0 {
					return tokEOF, s.truncated()
				}
				s.pos += i + 2
				continue
			case '!':
				switch {
				case bytes.HasPrefix(b, []byte("<!--")):
					i := s.find(4, func(b []byte) int { return bytes.Index(b, []byte("-->")) })
					if i < 0 {
						return tokEOF, s.truncated()
					}
					s.pos += i + 3
					continue
				case bytes.HasPrefix(b, []byte("<![CDATA[")):
					i := s.find(9, func(b []byte) int { return bytes.Index(b, []byte("]]>")) })
					if i < 0 {
						return tokEOF, s.truncated()
					}
					s.text = s.buf[s.pos+9 : s.pos+i]
					s.cdata = true
					s.pos += i + 3
					s.kind = tokText
					return tokText, nil
				}
				return tokEOF, errors.New("xml: DOCTYPE and other declarations are not allowed")
			}
		}
		i := tagEnd(b)
		if i < 0 {
			i = s.find(1, tagEnd)
		}
		if i < 0 {
			return tokEOF, s.truncated()
		}
		if err := s.parseStart(s.buf[s.pos+1 : s.pos+i]); err != nil {
			return tokEOF, err
		}
		s.pos += i + 1
		s.kind = tokStart
		if s.selfClose {
			s.pendEnd = true
		}
		return tokStart, nil
	}
}

func (s *scanner) truncated() error {
	if s.err != nil {
		return s.err
	}
	return io.ErrUnexpectedEOF
}

// tagEnd finds the '>' closing a start tag, skipping quoted attribute values.
func tagEnd(b []byte) int {
	// Fast path: the first '>' closes the tag unless a quote before it is
	// still open. A sheet's tags are short: one loop over the bytes, not
	// three calls that each scan them.
	i := indexNear(b, '>')
	if i < 0 {
		return -1
	}
	open, single := false, false
	for _, c := range b[:i] {
		switch c {
		case '"':
			open = !open
		case '\'':
			single = true
		}
	}
	if !open && !single {
		return i
	}
	var q byte
	for i, c := range b {
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '>':
			return i
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nearBytes is how far indexNear looks byte by byte before calling
// bytes.IndexByte.
const nearBytes = 16

// indexNear is bytes.IndexByte for a byte that is usually close: the
// tokens of a sheet are short (a tag of a few attributes, a value of a few
// digits), and a call to the assembly search costs more than the loop
// over the first bytes. Long runs still go to bytes.IndexByte.
func indexNear(b []byte, c byte) int {
	n := min(len(b), nearBytes)
	for i := 0; i < n; i++ {
		if b[i] == c {
			return i
		}
	}
	if len(b) <= nearBytes {
		return -1
	}
	if i := bytes.IndexByte(b[nearBytes:], c); i >= 0 {
		return nearBytes + i
	}
	return -1
}

// parseStart parses the inside of a start tag (without '<' and '>').
func (s *scanner) parseStart(b []byte) error {
	s.selfClose = false
	if n := len(b); n > 0 && b[n-1] == '/' {
		s.selfClose = true
		b = b[:n-1]
	}
	i := 0
	for i < len(b) && !isSpace(b[i]) {
		i++
	}
	if i == 0 {
		return errors.New("xml: empty element name")
	}
	s.name = localName(b[:i])
	s.attrs = s.attrs[:0]
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return nil
		}
		eq := indexNear(b[i:], '=')
		if eq < 0 {
			return fmt.Errorf("xml: attribute %q without a value", b[i:])
		}
		name := b[i : i+eq]
		for len(name) > 0 && isSpace(name[len(name)-1]) {
			name = name[:len(name)-1]
		}
		for _, c := range name {
			if isSpace(c) {
				return fmt.Errorf("xml: attribute %q without a value", name)
			}
		}
		i += eq + 1
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) || (b[i] != '"' && b[i] != '\'') {
			return fmt.Errorf("xml: attribute %q value not quoted", name)
		}
		q := b[i]
		i++
		end := indexNear(b[i:], q)
		if end < 0 {
			return fmt.Errorf("xml: attribute %q value not closed", name)
		}
		s.attrs = append(s.attrs, attr{name: localName(name), val: b[i : i+end]})
		i += end + 1
	}
}

// attr returns the raw value of the start tag's attribute with this local
// name, or nil.
func (s *scanner) attr(name string) []byte {
	for i := range s.attrs {
		if string(s.attrs[i].name) == name {
			return s.attrs[i].val
		}
	}
	return nil
}

func localName(b []byte) []byte {
	if i := bytes.LastIndexByte(b, ':'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// appendText appends the current text token to dst with entities decoded
// and line ends normalised as an XML parser does.
func (s *scanner) appendText(dst []byte) []byte {
	if s.cdata {
		return appendNormalised(dst, s.text)
	}
	return appendDecoded(dst, s.text)
}

// appendNormalised appends b turning CRLF and lone CR into LF.
func appendNormalised(dst, b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return append(dst, b...)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			if i+1 < len(b) && b[i+1] == '\n' {
				continue
			}
			c = '\n'
		}
		dst = append(dst, c)
	}
	return dst
}

// appendDecoded appends raw XML character data to dst, decoding the five
// predefined entities and character references. An unknown entity is kept
// as written.
func appendDecoded(dst, b []byte) []byte {
	if len(b) <= nearBytes {
		// A short text (a shared string's word): one loop, not two
		// calls to the assembly search.
		plain := true
		for _, c := range b {
			if c == '&' || c == '\r' {
				plain = false
				break
			}
		}
		if plain {
			return append(dst, b...)
		}
	}
	if bytes.IndexByte(b, '&') < 0 {
		return appendNormalised(dst, b)
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '&')
		if i < 0 {
			return appendNormalised(dst, b)
		}
		dst = appendNormalised(dst, b[:i])
		b = b[i:]
		semi := bytes.IndexByte(b, ';')
		if semi < 0 || semi > 12 {
			dst = append(dst, '&')
			b = b[1:]
			continue
		}
		ent := b[1:semi]
		var r rune = -1
		switch string(ent) {
		case "lt":
			r = '<'
		case "gt":
			r = '>'
		case "amp":
			r = '&'
		case "quot":
			r = '"'
		case "apos":
			r = '\''
		default:
			if len(ent) > 1 && ent[0] == '#' {
				r = parseCharRef(ent[1:])
			}
		}
		if r < 0 {
			dst = append(dst, '&')
			b = b[1:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		b = b[semi+1:]
	}
	return dst
}

func parseCharRef(b []byte) rune {
	base := rune(10)
	if len(b) > 0 && (b[0] == 'x' || b[0] == 'X') {
		base = 16
		b = b[1:]
	}
	if len(b) == 0 {
		return -1
	}
	var r rune
	for _, c := range b {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return -1
		}
		r = r*base + d
		if r > utf8.MaxRune {
			return -1
		}
	}
	return r
}

// cellValueFast reads, right after a <c> start tag, the common rest of a
// cell — <v>text</v></c> with no prefix, entity or carriage return — in
// one step, returning the raw text (valid until the next call). With
// skipF, a formula element before the value (<f …/> or <f …>text</f>, as
// every formula cell with a cached value is written) is stepped over and
// hadF reports it. Anything else leaves the input untouched for the token
// path.
func (s *scanner) cellValueFast(skipF bool) (v []byte, hadF, ok bool) {
	if s.pendEnd {
		return nil, false, false
	}
	b := s.buf[s.pos:s.end]
	off := 0
	if skipF && len(b) > 3 && b[0] == '<' && b[1] == 'f' && (isSpace(b[2]) || b[2] == '>' || b[2] == '/') {
		// The tag is parsed as the token path would, so a malformed one
		// is refused the same way (the cell's own attributes, read
		// already, are overwritten).
		e := tagEnd(b)
		if e < 0 || s.parseStart(b[1:e]) != nil || string(s.name) != "f" {
			return nil, false, false
		}
		off = e + 1
		if b[e-1] != '/' {
			// The formula's text holds no '<' (XML escapes it), so the
			// next tag must be its end.
			j := indexNear(b[off:], '<')
			if j < 0 || !bytes.HasPrefix(b[off+j:], []byte("</f>")) {
				return nil, false, false
			}
			off += j + 4
		}
		hadF = true
	}
	b = b[off:]
	if len(b) < 11 || b[0] != '<' || b[1] != 'v' || b[2] != '>' {
		return nil, false, false
	}
	i := indexNear(b[3:], '<')
	if i < 0 || len(b) < 3+i+8 || string(b[3+i:3+i+8]) != "</v></c>" {
		return nil, false, false
	}
	v = b[3 : 3+i]
	if len(v) <= nearBytes {
		for _, c := range v {
			if c == '&' || c == '\r' {
				return nil, false, false
			}
		}
	} else if bytes.IndexByte(v, '&') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
		return nil, false, false
	}
	s.pos += off + 3 + i + 8
	return v, hadF, true
}
