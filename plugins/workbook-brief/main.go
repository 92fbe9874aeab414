// Command workbook-brief is an agent: it reads a local Excel workbook with
// the xlsx tool (its sheets, each sheet's columns, the header rows) and
// records what the workbook holds, and what looks wrong in it, as one
// synthesis page in the notes brain, calling both tools through the host
// (and so through the host's gate and the uses its manifest declares).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/cli/markdown"
	"github.com/toolhost/toolhost/sdk"
)

func main() {
	sdk.Main(sdk.Plugin{Actions: map[string]sdk.Handler{"brief": brief}, RenderMarkdown: markdown.Render})
}

// headerPreviewRows is how many rows from the header row on the page shows
// for each sheet.
const headerPreviewRows = 3

// sheet is one entry of xlsx list-sheets.
type sheet struct {
	Title        string `json:"title"`
	Type         string `json:"type"`
	State        string `json:"state"`
	Rows         int    `json:"rows"`
	Columns      int    `json:"columns"`
	DataRows     int    `json:"data_rows"`
	UsedRange    string `json:"used_range"`
	Dimension    string `json:"dimension"`
	MergedRanges int    `json:"merged_ranges"`
	Error        string `json:"error"`
}

// column is one column of xlsx describe.
type column struct {
	Column   string `json:"column"`
	Header   any    `json:"header"`
	Type     string `json:"type"`
	NonEmpty int    `json:"non_empty"`
	Examples []any  `json:"examples"`
	Min      any    `json:"min"`
	Max      any    `json:"max"`
}

// described is xlsx describe's answer for one sheet.
type described struct {
	Sheet     string   `json:"sheet"`
	HeaderRow int      `json:"header_row"`
	DataRows  int      `json:"data_rows"`
	UsedRange string   `json:"used_range"`
	Columns   []column `json:"columns"`
}

// anomaly is one thing in the workbook a reader should know before
// trusting it.
type anomaly struct {
	Sheet  string `json:"sheet"`
	Column string `json:"column,omitempty"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// sheetBrief is what the page says of one worksheet.
type sheetBrief struct {
	sheet
	Described *described `json:"described,omitempty"`
	Preview   [][]any    `json:"header_rows,omitempty"`
}

type briefArgs struct {
	Path      string `json:"path"`
	DryRun    bool   `json:"dry-run"`
	Scope     string `json:"scope"`
	MaxSheets int    `json:"max-sheets"`
}

func brief(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var args briefArgs
	if err := req.Bind(&args); err != nil {
		return nil, err
	}
	if args.Scope == "" {
		args.Scope = "global"
	}
	if args.MaxSheets <= 0 {
		args.MaxSheets = 20
	}
	host, err := req.NeedHost("workbook-brief", "host call workbook-brief brief --arg path=FILE")
	if err != nil {
		return nil, err
	}

	req.Progress(0, 0, "listing the sheets")
	var listed struct {
		Path   string  `json:"path"`
		Sheets []sheet `json:"sheets"`
	}
	if _, err := sdk.CallData(ctx, host, "xlsx", "list-sheets", map[string]any{"path": args.Path}, &listed); err != nil {
		return nil, err
	}
	var todo []int // worksheets with data, in order, up to max-sheets
	for i, s := range listed.Sheets {
		if s.Type == "worksheet" && s.Error == "" && s.DataRows > 0 && len(todo) < args.MaxSheets {
			todo = append(todo, i)
		}
	}
	total := float64(1 + 2*len(todo) + 1)
	step := 1.0
	briefs := make([]sheetBrief, len(listed.Sheets))
	for i, s := range listed.Sheets {
		briefs[i] = sheetBrief{sheet: s}
	}
	for _, i := range todo {
		s := listed.Sheets[i]
		req.Progress(step, total, "describing "+s.Title)
		step++
		var d described
		if _, err := sdk.CallData(ctx, host, "xlsx", "describe", map[string]any{"path": args.Path, "sheet": s.Title}, &d); err != nil {
			return nil, err
		}
		briefs[i].Described = &d
		req.Progress(step, total, "reading the header rows of "+s.Title)
		step++
		if rng := headerRange(d); rng != "" {
			var rr struct {
				Rows [][]any `json:"rows"`
			}
			if _, err := sdk.CallData(ctx, host, "xlsx", "read-range", map[string]any{"path": args.Path, "sheet": s.Title, "range": rng}, &rr); err != nil {
				return nil, err
			}
			briefs[i].Preview = rr.Rows
		}
	}
	anomalies := findAnomalies(briefs)
	// The agent runs in the host's working directory, as xlsx does: a
	// relative path means the same file to both.
	abs, err := filepath.Abs(args.Path)
	if err != nil {
		return nil, fmt.Errorf("brief: resolve %s: %w", args.Path, err)
	}
	notePath := pagePath(abs)
	page := render(args.Path, abs, briefs, anomalies, len(todo) < countData(listed.Sheets))
	out := map[string]any{"path": abs, "note_path": notePath, "sheets": briefs, "anomalies": nonNil(anomalies), "dry_run": args.DryRun}

	if args.DryRun {
		out["written"] = nil
		req.Progress(total, total, "dry run: nothing written")
		return &sdk.Result{Data: out, Markdown: page + "\n\n_Dry run: nothing was written to notes._"}, nil
	}
	req.Progress(step, total, "recording the page in notes")
	mode := "create"
	var existing struct {
		Note struct {
			Content string `json:"content"`
		} `json:"note"`
	}
	_, err = sdk.CallData(ctx, host, "notes", "read", map[string]any{"path": notePath}, &existing)
	var se *sdk.Error
	switch {
	case err == nil && strings.TrimSpace(existing.Note.Content) == page:
		// The workbook has not changed since the page was written.
		out["written"] = map[string]any{"mode": "unchanged", "note": nil}
		req.Progress(total, total, "done: the page is up to date")
		return &sdk.Result{Data: out, Markdown: page + fmt.Sprintf("\n\n_Unchanged in notes as %s._", notePath)}, nil
	case err == nil:
		mode = "overwrite" // a re-run updates the same page
	case errors.As(err, &se) && se.Code == "not_found":
	default:
		return nil, err
	}
	var written map[string]any
	if _, err := sdk.CallData(ctx, host, "notes", "write-page", map[string]any{
		"path":    notePath,
		"content": page,
		"mode":    mode,
		"frontmatter": map[string]any{
			"type":  "synthesis",
			"title": "Workbook " + filepath.Base(abs),
			"scope": args.Scope,
			"tags":  []string{"workbook", "xlsx"},
		},
	}, &written); err != nil {
		return nil, err
	}
	out["written"] = map[string]any{"mode": mode, "note": written}
	req.Progress(total, total, "done")
	verb := "Recorded"
	if mode == "overwrite" {
		verb = "Updated"
	}
	return &sdk.Result{Data: out, Markdown: page + fmt.Sprintf("\n\n_%s in notes as %s (undo with notes undo)._", verb, notePath)}, nil
}

var cellRE = regexp.MustCompile(`^([A-Z]+)(\d+)$`)

// headerRange is the A1 range of the header row and the rows after it
// (headerPreviewRows in all, within the used range), or "".
func headerRange(d described) string {
	from, to, ok := strings.Cut(d.UsedRange, ":")
	if !ok {
		to = from
	}
	f, t := cellRE.FindStringSubmatch(from), cellRE.FindStringSubmatch(to)
	if f == nil || t == nil || d.HeaderRow < 1 {
		return ""
	}
	last, _ := strconv.Atoi(t[2])
	end := min(d.HeaderRow+headerPreviewRows-1, last)
	return fmt.Sprintf("%s%d:%s%d", f[1], d.HeaderRow, t[1], end)
}

// findAnomalies lists what a reader should know before trusting the
// workbook, sheet by sheet.
func findAnomalies(briefs []sheetBrief) []anomaly {
	var out []anomaly
	for _, b := range briefs {
		add := func(col, kind, format string, a ...any) {
			out = append(out, anomaly{Sheet: b.Title, Column: col, Kind: kind, Detail: fmt.Sprintf(format, a...)})
		}
		switch {
		case b.Error != "":
			add("", "unreadable", "the sheet could not be read: %s", b.Error)
			continue
		case b.State == "hidden" || b.State == "veryHidden":
			add("", "hidden", "the sheet is %s: Excel does not show it", b.State)
		}
		if b.Type != "worksheet" {
			continue
		}
		if b.DataRows == 0 {
			add("", "empty_sheet", "the sheet holds no values")
			continue
		}
		if b.Dimension != "" && b.UsedRange != "" && b.Dimension != b.UsedRange {
			add("", "stored_size", "the file says the sheet spans %s, but its values span %s", b.Dimension, b.UsedRange)
		}
		if b.Described == nil {
			continue
		}
		seen := map[string]string{}
		for _, c := range b.Described.Columns {
			header := headerText(c.Header)
			switch {
			case header == "" && c.NonEmpty > 0:
				add(c.Column, "blank_header", "column %s has values but no header", c.Column)
			case header != "" && seen[header] != "":
				add(c.Column, "repeated_header", "column %s repeats the header %q of column %s", c.Column, header, seen[header])
			}
			if header != "" && seen[header] == "" {
				seen[header] = c.Column
			}
			switch c.Type {
			case "mixed":
				add(c.Column, "mixed_types", "column %s (%s) mixes value types", c.Column, orBlank(header))
			case "error":
				add(c.Column, "error_values", "column %s (%s) holds error values such as %s", c.Column, orBlank(header), examples(c.Examples, 2))
			case "empty":
				if header != "" {
					add(c.Column, "empty_column", "column %s has the header %q but no values", c.Column, header)
				}
			}
			if rows := b.Described.DataRows; c.Type != "empty" && rows >= 4 && c.NonEmpty*2 < rows {
				add(c.Column, "sparse_column", "column %s (%s) is filled in %d of %d rows", c.Column, orBlank(header), c.NonEmpty, rows)
			}
		}
	}
	return out
}

// pagePath is the note the workbook's page lives at: one per workbook file
// (its name, plus a digest of its absolute path so two book.xlsx in
// different folders get two pages).
func pagePath(abs string) string {
	base := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.Trim(b.String(), "-")
	if slug == "" {
		slug = "workbook"
	}
	sum := sha256.Sum256([]byte(abs))
	return fmt.Sprintf("wiki/syntheses/workbook-%s-%s.md", slug, hex.EncodeToString(sum[:4]))
}

// render writes the page: what the workbook holds, sheet by sheet, and the
// anomalies. It holds nothing that changes between runs on the same file,
// so a re-run on an unchanged workbook rewrites the same text.
func render(given, abs string, briefs []sheetBrief, anomalies []anomaly, cut bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Workbook %s\n\n", inline(filepath.Base(abs)))
	fmt.Fprintf(&b, "File: `%s`", inline(abs))
	if given != abs {
		fmt.Fprintf(&b, " (given as `%s`)", inline(given))
	}
	b.WriteString("\n\n")
	worksheets, data := 0, 0
	for _, s := range briefs {
		if s.Type == "worksheet" {
			worksheets++
			if s.DataRows > 0 {
				data++
			}
		}
	}
	fmt.Fprintf(&b, "%d sheets: %d worksheets, %d of them holding values; %d anomalies found.\n\n", len(briefs), worksheets, data, len(anomalies))

	b.WriteString("## Sheets\n\n| Sheet | Type | State | Rows with values | Used range |\n|---|---|---|---|---|\n")
	for _, s := range briefs {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", cell(s.Title), s.Type, s.State, s.DataRows, orDash(s.UsedRange))
	}
	for _, s := range briefs {
		if s.Described == nil {
			continue
		}
		d := s.Described
		fmt.Fprintf(&b, "\n## %s\n\nHeader row %d; %d data rows; values in %s.\n\n", inline(s.Title), d.HeaderRow, d.DataRows, orDash(d.UsedRange))
		b.WriteString("| Column | Header | Type | Filled | Range or examples |\n|---|---|---|---|---|\n")
		for _, c := range d.Columns {
			spread := examples(c.Examples, 3)
			if c.Min != nil || c.Max != nil {
				spread = fmt.Sprintf("%s to %s", value(c.Min), value(c.Max))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", c.Column, cell(orBlank(headerText(c.Header))), c.Type, c.NonEmpty, cell(spread))
		}
		if len(s.Preview) > 0 {
			fmt.Fprintf(&b, "\nThe header rows as stored:\n\n")
			width := 0
			for _, r := range s.Preview {
				width = max(width, len(r))
			}
			for i, r := range s.Preview {
				b.WriteString("|")
				for j := range width {
					v := ""
					if j < len(r) {
						v = value(r[j])
					}
					fmt.Fprintf(&b, " %s |", cell(v))
				}
				b.WriteString("\n")
				if i == 0 {
					b.WriteString("|" + strings.Repeat("---|", width) + "\n")
				}
			}
		}
	}
	b.WriteString("\n## Anomalies\n\n")
	if len(anomalies) == 0 {
		b.WriteString("None found.\n")
	}
	for _, a := range anomalies {
		fmt.Fprintf(&b, "- **%s** (%s): %s\n", inline(a.Sheet), a.Kind, inline(a.Detail))
	}
	if cut {
		b.WriteString("\n_Only the first sheets were described (max-sheets)._\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func countData(sheets []sheet) int {
	n := 0
	for _, s := range sheets {
		if s.Type == "worksheet" && s.Error == "" && s.DataRows > 0 {
			n++
		}
	}
	return n
}

// headerText is a header cell as text ("" for none).
func headerText(h any) string {
	if h == nil {
		return ""
	}
	return strings.TrimSpace(value(h))
}

// value renders a cell value as the page shows it.
func value(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// examples renders up to n example values.
func examples(vs []any, n int) string {
	var parts []string
	for _, v := range vs[:min(n, len(vs))] {
		parts = append(parts, strconv.Quote(value(v)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// inline makes text from the workbook (sheet names, headers) or its path
// safe on one line of the page: a line break would let it start a heading,
// a list item or front matter of its own, and a backtick end a code span.
func inline(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "`", "'").Replace(s)
}

// cell makes text safe inside a Markdown table cell, at most 60 runes.
func cell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ").Replace(s)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

func orBlank(s string) string {
	if s == "" {
		return "no header"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func nonNil(a []anomaly) []anomaly {
	if a == nil {
		return []anomaly{}
	}
	return a
}
