package markdown

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/toolhost/toolhost/cli/table"
)

// Markdown tables are printed by cli.Table, as every other table the
// terminal shows, so that they fit the terminal the same way (text wrapped
// at spaces, no name cut, columns left out last to first with a note);
// the rest of the document goes through glamour.

// gfm parses GitHub-flavoured Markdown tables.
var gfm = goldmark.New(goldmark.WithExtensions(extension.Table))

// delimiterRow matches a table's delimiter row (|---|---:|).
var delimiterRow = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// segment is a run of a document's lines: a table's or the text between.
type segment struct {
	text  string
	table *east.Table // the parsed table, for a table's segment
	src   []byte      // the table segment's source, which table's nodes point into
}

// split cuts md into tables and the text between them; tables inside code
// fences, lists or quotes stay text.
func split(md string) []segment {
	doc := gfm.Parser().Parse(text.NewReader([]byte(md)))
	lines := strings.SplitAfter(md, "\n")
	starts := make([]int, len(lines)) // byte offset of each line
	for i, off := 0, 0; i < len(lines); i++ {
		starts[i] = off
		off += len(lines[i])
	}
	lineOf := func(pos int) int {
		i := 0
		for i+1 < len(lines) && starts[i+1] <= pos {
			i++
		}
		return i
	}
	var segs []segment
	from := 0 // the first line not yet in a segment
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if _, ok := n.(*east.Table); !ok {
			continue
		}
		// The table starts at the line above its delimiter row and ends
		// before the first blank line (or a line with no cell) after it.
		delim := -1
		for i := lineOf(n.Pos()); i < len(lines); i++ {
			if i > lineOf(n.Pos()) && delimiterRow.MatchString(strings.TrimRight(lines[i], "\n")) {
				delim = i
				break
			}
		}
		if delim < 1 || delim-1 < from {
			continue
		}
		end := delim + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" && strings.Contains(lines[end], "|") {
			end++
		}
		if from < delim-1 {
			segs = append(segs, segment{text: strings.Join(lines[from:delim-1], "")})
		}
		src := []byte(strings.Join(lines[delim-1:end], ""))
		tdoc := gfm.Parser().Parse(text.NewReader(src))
		if t, ok := tdoc.FirstChild().(*east.Table); ok {
			segs = append(segs, segment{text: string(src), table: t, src: src})
		} else {
			segs = append(segs, segment{text: string(src)})
		}
		from = end
	}
	if from < len(lines) {
		segs = append(segs, segment{text: strings.Join(lines[from:], "")})
	}
	return segs
}

// fitTable is a Markdown table as a cli.Table width columns wide, indented
// as glamour indents the text around it.
func fitTable(t *east.Table, src []byte, width int, bold bool) string {
	tab := table.Table{Indent: "  ", Width: width}
	for i, a := range t.Alignments {
		tab.Align = append(tab.Align, table.AlignLeft)
		if a == east.AlignRight {
			tab.Align[i] = table.AlignRight
		}
	}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.TrimSpace(inlineText(c, src)))
		}
		if _, ok := row.(*east.TableHeader); ok {
			if bold {
				for i, h := range cells {
					if h != "" {
						cells[i] = "\x1b[1m" + h + "\x1b[0m"
					}
				}
			}
			tab.Header = cells
			continue
		}
		tab.Rows = append(tab.Rows, cells)
	}
	return tab.String()
}

// inlineText is a cell's text as a reader sees it: emphasis and link
// markup gone, entities (&nbsp;) and escapes (\|) resolved.
func inlineText(n gast.Node, src []byte) string {
	var b bytes.Buffer
	_ = gast.Walk(n, func(c gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch x := c.(type) {
		case *gast.Text:
			v := x.Segment.Value(src)
			if !x.IsRaw() {
				v = util.UnescapePunctuations(v)
			}
			b.Write(util.ResolveEntityNames(util.ResolveNumericReferences(v)))
			if x.SoftLineBreak() || x.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *gast.String:
			b.Write(x.Value)
		case *gast.RawHTML:
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	return b.String()
}
