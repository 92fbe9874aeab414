// Package markdown renders Markdown for a person at a terminal, through
// glamour's dark style. It is kept out of package cli because glamour (and
// the syntax highlighter it links) slow every start of a binary that links
// it with package initialisation: the host and the plugins whose
// results carry Markdown link it (cli.Term.Markdown, sdk.Plugin's
// RenderMarkdown); a plugin that returns no Markdown, such as xlsx, does not.
package markdown

import (
	"bytes"
	"fmt"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/colorprofile"
)

// Render renders md wrapped at width columns (its tables through
// cli.Table, fitted to width): with colour, or without
// colour but with emphasis (colour false), or without any escape sequence
// (dumb, a TERM=dumb terminal). Its signature is cli.MarkdownRenderer's.
func Render(md string, width int, colour, dumb bool) (string, error) {
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(width))
	if err != nil {
		return "", fmt.Errorf("markdown: renderer: %w", err)
	}
	var out string
	for _, seg := range split(md) {
		if seg.table != nil {
			out += fitTable(seg.table, seg.src, width, !dumb) + "\n"
			continue
		}
		if strings.TrimSpace(seg.text) == "" {
			continue
		}
		part, err := r.Render(seg.text)
		if err != nil {
			return "", fmt.Errorf("markdown: render: %w", err)
		}
		out += part
	}
	if colour {
		return out, nil
	}
	var b bytes.Buffer
	cw := &colorprofile.Writer{Forward: &b, Profile: colorprofile.ASCII}
	if dumb {
		cw.Profile = colorprofile.NoTTY
	}
	if _, err := cw.WriteString(out); err != nil {
		return "", fmt.Errorf("markdown: strip colour: %w", err)
	}
	return b.String(), nil
}
