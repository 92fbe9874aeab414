package workbook

import (
	"bytes"
	"context"
	"io"
)

// MergedRanges returns the refs ("A1:C2") of a sheet's merged ranges.
// They follow the cell data, which is skipped by a byte search for the
// <mergeCells> element without being parsed: a caller that needs them
// before the rows (a header spread over merged cells) pays little more
// than the inflating. Text cannot hold a "<" unescaped, so the search
// cannot stop inside a cell.
// A backend workbook's merged ranges are those its backend lists
// (MergeLister), or none.
func (w *Workbook) MergedRanges(ctx context.Context, sh *Sheet) ([]string, error) {
	if w.backend != nil {
		if m, ok := w.backend.(MergeLister); ok && sh.Type != "chartsheet" {
			return m.MergedRanges(ctx, sh)
		}
		return nil, nil
	}
	if sh.Type == "chartsheet" || sh.Part == "" {
		return nil, nil
	}
	rc, err := w.openPart(sh.Part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	const tag = "mergeCells"
	buf := make([]byte, 0, 256<<10)
	chunk := make([]byte, 128<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := rc.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if at := startTag(buf, tag); at >= 0 {
			// Parse from the element on, inside a stand-in root that the
			// sheet's own closing tag closes.
			var refs []string
			r := io.MultiReader(bytes.NewReader([]byte("<w>")), bytes.NewReader(buf[at:]), rc)
			_, err := w.streamFrom(ctx, r, sh.Part, []string{}, StreamOptions{StatsOnly: true, Merge: func(ref string) { refs = append(refs, ref) }},
				func(Row) error { return nil })
			return refs, err
		}
		if rerr == io.EOF {
			return nil, nil
		}
		if rerr != nil {
			return nil, invalidf(rerr, "part %s cannot be read (corrupt or truncated data)", sh.Part)
		}
		// Keep what a tag split across reads may start with.
		if keep := 64; len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
	}
}

// startTag finds the "<" of a start tag named name (any prefix) in b, or -1.
func startTag(b []byte, name string) int {
	for from := 0; ; {
		i := bytes.Index(b[from:], []byte(name))
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(name)
		from = end
		if end >= len(b) || !(b[end] == '>' || b[end] == ' ' || b[end] == '/' || b[end] == '\t' || b[end] == '\n' || b[end] == '\r') {
			continue
		}
		j := i - 1
		if j >= 0 && b[j] == ':' {
			j--
			for j >= 0 && (isLetter(b[j]) || isDigit(b[j]) || b[j] == '_' || b[j] == '-' || b[j] == '.') {
				j--
			}
		}
		if j >= 0 && b[j] == '<' {
			return j
		}
	}
}
