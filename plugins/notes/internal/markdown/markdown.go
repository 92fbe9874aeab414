// Package markdown reads the parts of a note body the brain indexes: its
// headings with byte offsets (parsed by goldmark), the sections they open,
// and wikilinks ([[Target]], [[Target|label]], [[Target#Section]]) found by a
// small scanner that skips code spans and code blocks.
package markdown

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Heading is one heading of a body.
type Heading struct {
	// Level is 1 to 6.
	Level int `json:"level"`
	// Text is the heading's text.
	Text string `json:"text"`
	// Path is the heading texts from the top level down to this one.
	Path []string `json:"path"`
	// Line is the 1-based line of the heading.
	Line int `json:"line"`
	// Offset is the byte offset of the heading's line in the body.
	Offset int `json:"offset"`
	// End is the byte offset where its section ends (the next heading of the
	// same or a higher level, or the end of the body).
	End int `json:"end"`
}

// Link is one wikilink.
type Link struct {
	// Target is what the link names, without section or label.
	Target string `json:"target"`
	// Section is the part after '#', if any.
	Section string `json:"section,omitempty"`
	// Label is the part after '|', if any.
	Label string `json:"label,omitempty"`
	// Line is 1-based.
	Line int `json:"line"`
	// Offset is the byte offset of "[[" in the body.
	Offset int `json:"offset"`
}

// Doc is a parsed body.
type Doc struct {
	// Headings in document order.
	Headings []Heading
	// Links in document order, outside code.
	Links []Link
}

var md = goldmark.New()

// Parse reads body.
func Parse(body string) Doc {
	src := []byte(body)
	root := md.Parser().Parse(text.NewReader(src))
	var doc Doc
	var code [][2]int
	var stack []Heading
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			start := -1
			if v.Lines().Len() > 0 {
				start = v.Lines().At(0).Start
			}
			if start < 0 {
				return ast.WalkSkipChildren, nil
			}
			lineStart := strings.LastIndexByte(body[:start], '\n') + 1
			// A setext heading's text line is the heading's line too.
			h := Heading{Level: v.Level, Text: strings.TrimSpace(plainText(v, src)), Offset: lineStart}
			h.Line = 1 + strings.Count(body[:lineStart], "\n")
			for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
				stack = stack[:len(stack)-1]
			}
			for _, p := range stack {
				h.Path = append(h.Path, p.Text)
			}
			h.Path = append(h.Path, h.Text)
			stack = append(stack, h)
			doc.Headings = append(doc.Headings, h)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			lines := n.Lines()
			if lines.Len() > 0 {
				s, e := lines.At(0).Start, lines.At(lines.Len()-1).Stop
				code = append(code, [2]int{s, e})
			}
			if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
				code = append(code, [2]int{f.Info.Segment.Start, f.Info.Segment.Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := v.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					code = append(code, [2]int{t.Segment.Start, t.Segment.Stop})
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for i := range doc.Headings {
		doc.Headings[i].End = len(body)
		for j := i + 1; j < len(doc.Headings); j++ {
			if doc.Headings[j].Level <= doc.Headings[i].Level {
				doc.Headings[i].End = doc.Headings[j].Offset
				break
			}
		}
	}
	doc.Links = scanLinks(body, code)
	return doc
}

func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// scanLinks finds [[...]] outside the code ranges. Fenced blocks are also
// skipped by their fence lines, which goldmark's segments do not cover.
func scanLinks(body string, code [][2]int) []Link {
	sort.Slice(code, func(i, j int) bool { return code[i][0] < code[j][0] })
	inCode := func(off int) bool {
		for _, r := range code {
			if off >= r[0] && off < r[1] {
				return true
			}
			if r[0] > off {
				break
			}
		}
		return false
	}
	var out []Link
	fence := ""
	off := 0
	for lineNo, line := range strings.SplitAfter(body, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			off += len(line)
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			off += len(line)
			continue
		}
		for i := 0; i+1 < len(line); {
			j := strings.Index(line[i:], "[[")
			if j < 0 {
				break
			}
			start := i + j
			end := strings.Index(line[start+2:], "]]")
			if end < 0 {
				break
			}
			inner := line[start+2 : start+2+end]
			i = start + 2 + end + 2
			if inCode(off+start) || inBackticks(line, start) || strings.ContainsAny(inner, "[]") || strings.TrimSpace(inner) == "" {
				continue
			}
			l := parseLink(inner)
			l.Line = lineNo + 1
			l.Offset = off + start
			out = append(out, l)
		}
		off += len(line)
	}
	return out
}

// inBackticks reports whether position pos of line sits inside an inline
// code span (an odd number of backticks before it on the line).
func inBackticks(line string, pos int) bool {
	return strings.Count(line[:pos], "`")%2 == 1
}

// parseLink splits the inside of a wikilink ("Target#Section|Label").
func parseLink(inner string) Link {
	var l Link
	if i := strings.IndexByte(inner, '|'); i >= 0 {
		l.Label = strings.TrimSpace(inner[i+1:])
		inner = inner[:i]
	}
	if i := strings.IndexByte(inner, '#'); i >= 0 {
		l.Section = strings.TrimSpace(inner[i+1:])
		inner = inner[:i]
	}
	l.Target = strings.TrimSpace(inner)
	return l
}

// Unwrap returns the target of s when it is a whole wikilink ("[[X]]" → "X"),
// else s trimmed.
func Unwrap(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		return parseLink(s[2 : len(s)-2]).Target
	}
	return s
}

// Section finds the heading named by want: its text, or a path "Parent ›
// Child" (also "Parent > Child"), compared case-insensitively.
func (d Doc) Section(want string) (Heading, bool) {
	parts := splitPath(want)
	for _, h := range d.Headings {
		if len(parts) == 1 && strings.EqualFold(h.Text, parts[0]) {
			return h, true
		}
		if len(parts) > 1 && len(h.Path) >= len(parts) {
			tail := h.Path[len(h.Path)-len(parts):]
			ok := true
			for i := range parts {
				if !strings.EqualFold(tail[i], parts[i]) {
					ok = false
					break
				}
			}
			if ok {
				return h, true
			}
		}
	}
	return Heading{}, false
}

func splitPath(s string) []string {
	s = strings.ReplaceAll(s, "›", ">")
	var out []string
	for _, p := range strings.Split(s, ">") {
		if p = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(p), "#")); p != "" {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}
