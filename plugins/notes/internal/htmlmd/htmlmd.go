// Package htmlmd converts an HTML document into Markdown for the notes
// plugin's ingest: headings, paragraphs, lists, links, emphasis, code,
// quotes and tables survive; scripts, styles and other non-content elements
// are dropped. It walks golang.org/x/net/html's parse tree (the HTML5
// parsing algorithm, so broken markup parses the way a browser would).
package htmlmd

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Document is a converted page.
type Document struct {
	// Title is the page's <title>, else its first <h1>; "" when neither.
	Title string
	// Markdown is the body as Markdown.
	Markdown string
}

// Convert parses r as HTML and returns it as Markdown.
func Convert(r io.Reader) (*Document, error) {
	root, err := html.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("htmlmd: parse: %w", err)
	}
	c := &conv{doc: &Document{}}
	c.children(root)
	c.doc.Markdown = tidy(c.b.String())
	c.doc.Title = strings.TrimSpace(c.doc.Title)
	if c.doc.Title == "" {
		c.doc.Title = c.h1
	}
	return c.doc, nil
}

// conv renders nodes into b; nested blocks (list items, quotes) render
// into a sub-converter sharing doc.
type conv struct {
	doc *Document
	h1  string
	b   strings.Builder
}

func (c *conv) sub() *conv { return &conv{doc: c.doc} }

// skipped are elements whose content is not the page's text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Button: true,
	atom.Select: true, atom.Input: true, atom.Textarea: true, atom.Math: true,
}

// blocks are elements rendered as paragraphs of their own.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Figure: true, atom.Figcaption: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Address: true, atom.Aside: true, atom.Nav: true, atom.Form: true, atom.Fieldset: true,
	atom.Details: true, atom.Summary: true, atom.Body: true, atom.Caption: true,
}

var headings = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

func (c *conv) children(n *html.Node) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

// atLineStart reports whether the output ends a line (or is empty).
func (c *conv) atLineStart() bool {
	s := c.b.String()
	return s == "" || strings.HasSuffix(s, "\n")
}

// block ends the current paragraph with a blank line.
func (c *conv) block() {
	s := c.b.String()
	switch {
	case s == "" || strings.HasSuffix(s, "\n\n"):
	case strings.HasSuffix(s, "\n"):
		c.b.WriteByte('\n')
	default:
		c.b.WriteString("\n\n")
	}
}

// inline renders n's children on one line.
func (c *conv) inline(n *html.Node) string {
	s := c.sub()
	s.children(n)
	return strings.Join(strings.Fields(s.b.String()), " ")
}

func (c *conv) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		c.text(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
		c.children(n)
		return
	default:
		return
	}
	if skipped[n.DataAtom] {
		return
	}
	if lvl, ok := headings[n.DataAtom]; ok {
		t := c.inline(n)
		if t == "" {
			return
		}
		if lvl == 1 && c.h1 == "" {
			c.h1 = t
		}
		c.block()
		c.b.WriteString(strings.Repeat("#", lvl) + " " + t)
		c.block()
		return
	}
	switch n.DataAtom {
	case atom.Head:
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.DataAtom == atom.Title && c.doc.Title == "" {
				c.doc.Title = strings.Join(strings.Fields(textOf(ch)), " ")
			}
		}
	case atom.Title:
		if c.doc.Title == "" {
			c.doc.Title = strings.Join(strings.Fields(textOf(n)), " ")
		}
	case atom.Br:
		c.b.WriteString("\n")
	case atom.Hr:
		c.block()
		c.b.WriteString("* * *")
		c.block()
	case atom.Pre:
		c.block()
		code := strings.Trim(textOf(n), "\n")
		fence := "```"
		for strings.Contains(code, fence) {
			fence += "`"
		}
		c.b.WriteString(fence + "\n" + code + "\n" + fence)
		c.block()
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		t := textOf(n)
		if strings.TrimSpace(t) == "" {
			return
		}
		tick := "`"
		for strings.Contains(t, tick) {
			tick += "`"
		}
		c.b.WriteString(tick + strings.Join(strings.Fields(t), " ") + tick)
	case atom.Strong, atom.B:
		c.wrap(n, "**")
	case atom.Em, atom.I, atom.Cite:
		c.wrap(n, "*")
	case atom.Del, atom.S, atom.Strike:
		c.wrap(n, "~~")
	case atom.A:
		t := c.inline(n)
		href := strings.TrimSpace(attr(n, "href"))
		low := strings.ToLower(href)
		if t == "" || href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(low, "javascript:") || strings.HasPrefix(low, "data:") {
			c.text(t)
			return
		}
		c.b.WriteString("[" + t + "](" + strings.ReplaceAll(href, " ", "%20") + ")")
	case atom.Img:
		src := strings.TrimSpace(attr(n, "src"))
		if src == "" || strings.HasPrefix(strings.ToLower(src), "data:") {
			return
		}
		c.b.WriteString("![" + strings.Join(strings.Fields(attr(n, "alt")), " ") + "](" + strings.ReplaceAll(src, " ", "%20") + ")")
	case atom.Ul, atom.Ol:
		c.list(n)
	case atom.Blockquote:
		s := c.sub()
		s.children(n)
		body := tidy(s.b.String())
		if body == "" {
			return
		}
		c.block()
		for i, line := range strings.Split(body, "\n") {
			if i > 0 {
				c.b.WriteByte('\n')
			}
			c.b.WriteString(strings.TrimRight("> "+line, " "))
		}
		c.block()
	case atom.Table:
		c.table(n)
	default:
		if blocks[n.DataAtom] {
			c.block()
			c.children(n)
			c.block()
			return
		}
		c.children(n)
	}
}

// text writes a run of text with HTML's whitespace collapsed.
func (c *conv) text(s string) {
	if s == "" {
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		if !c.atLineStart() && !strings.HasSuffix(c.b.String(), " ") {
			c.b.WriteByte(' ')
		}
		return
	}
	lead := s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r'
	if lead && !c.atLineStart() && !strings.HasSuffix(c.b.String(), " ") {
		c.b.WriteByte(' ')
	}
	c.b.WriteString(strings.Join(words, " "))
	last := s[len(s)-1]
	if last == ' ' || last == '\n' || last == '\t' || last == '\r' {
		c.b.WriteByte(' ')
	}
}

func (c *conv) wrap(n *html.Node, mark string) {
	t := c.inline(n)
	if t == "" {
		return
	}
	if !c.atLineStart() && !strings.HasSuffix(c.b.String(), " ") && n.PrevSibling != nil && n.PrevSibling.Type == html.TextNode &&
		strings.HasSuffix(n.PrevSibling.Data, " ") {
		c.b.WriteByte(' ')
	}
	c.b.WriteString(mark + t + mark)
}

func (c *conv) list(n *html.Node) {
	c.block()
	i := 1
	if v := attr(n, "start"); v != "" {
		fmt.Sscanf(v, "%d", &i)
	}
	first := true
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			continue
		}
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = fmt.Sprintf("%d. ", i)
			i++
		}
		s := c.sub()
		s.children(li)
		body := tidy(s.b.String())
		if !first {
			c.b.WriteByte('\n')
		}
		first = false
		pad := strings.Repeat(" ", len(marker))
		for j, line := range strings.Split(body, "\n") {
			switch {
			case j == 0:
				c.b.WriteString(marker + line)
			case line == "":
				c.b.WriteString("\n")
			default:
				c.b.WriteString("\n" + pad + line)
			}
		}
	}
	c.block()
}

func (c *conv) table(n *html.Node) {
	var rows [][]string
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			switch ch.DataAtom {
			case atom.Tr:
				var row []string
				for cell := ch.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type == html.ElementNode && (cell.DataAtom == atom.Td || cell.DataAtom == atom.Th) {
						row = append(row, strings.ReplaceAll(c.inline(cell), "|", `\|`))
					}
				}
				rows = append(rows, row)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(ch)
			case atom.Caption:
				if t := c.inline(ch); t != "" {
					c.block()
					c.b.WriteString(t)
					c.block()
				}
			}
		}
	}
	walk(n)
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return
	}
	c.block()
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		c.b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			c.b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	c.block()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text under n, as written (for pre and code).
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
		}
		if x.Type == html.ElementNode && x.DataAtom == atom.Br {
			b.WriteByte('\n')
		}
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return b.String()
}

var blankRuns = regexp.MustCompile(`\n{3,}`)

// tidy trims each line's trailing spaces (outside fenced code) and keeps
// at most one blank line in a row.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if t == fence {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fence = strings.Repeat("`", len(t)-len(strings.TrimLeft(t, "`")))
		}
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(blankRuns.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
