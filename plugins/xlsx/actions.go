package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/ods"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/xls"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/xlsb"
	"github.com/toolhost/toolhost/sdk"
)

// openWorkbook resolves and opens a workbook, mapping failures to codes.
func openWorkbook(p string) (*workbook.Workbook, error) {
	f, err := openWorkbookFile(p)
	if err != nil {
		return nil, err
	}
	var w *workbook.Workbook
	ext := strings.ToLower(filepath.Ext(p))
	switch sig := workbook.Signature(f); {
	case sig == "cfb", sig == "" && (ext == ".xls" || ext == ".xlt"):
		// A legacy .xls (or an Excel 3–4 worksheet, a bare BIFF stream),
		// or an encrypted package, which xls names.
		w, err = xls.Open(f, limits())
	case sig == "zip" && ods.Is(f):
		w, err = ods.Open(f, limits())
	case sig == "zip" && xlsb.Is(f):
		w, err = xlsb.Open(f, limits())
	default:
		w, err = workbook.OpenFile(f, limits())
	}
	if err != nil {
		return nil, workbookError(p, err)
	}
	return w, nil
}

// workbookError turns a reader error into the plugin's error envelope.
func workbookError(p string, err error) error {
	var we *workbook.Error
	if !errors.As(err, &we) {
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return sdk.Errorf(sdk.CodeCancelled, "reading %s: %v", p, err)
		case errors.Is(err, fs.ErrNotExist):
			return sdk.Errorf(sdk.CodeNotFound, "file not found: %s", p)
		case errors.Is(err, fs.ErrPermission):
			return sdk.Errorf(codePermissionDenied, "%s cannot be read: permission denied", p)
		}
		return sdk.Errorf(sdk.CodeInternalError, "reading %s: %v", p, err)
	}
	switch we.Kind {
	case workbook.Encrypted:
		return &sdk.Error{Code: codeEncryptedWorkbook, Message: p + ": " + we.Msg,
			NextStep: "open the file in Excel, remove the password (or save the .xls as .xlsx), and try again"}
	case workbook.Unsupported:
		return &sdk.Error{Code: codeUnsupportedFormat, Message: p + ": " + we.Msg,
			NextStep: "open the file in Excel or LibreOffice and save it as .xlsx, then try again"}
	case workbook.TooLarge:
		e := &sdk.Error{Code: codeWorkbookTooLarge, Message: p + ": " + we.Msg}
		if we.Budget {
			e.NextStep = fmt.Sprintf("the plugin's memory budget per call is %s=%d bytes; raise it if this machine has the memory, or save the sheet with fewer distinct strings", maxMemoryEnv, memory().budget)
		}
		return e
	default:
		return &sdk.Error{Code: codeInvalidWorkbook, Message: p + ": " + invalidDetail(we)}
	}
}

// invalidDetail is what an invalid workbook's (or sheet's) error says:
// its message and the underlying error.
func invalidDetail(we *workbook.Error) string {
	if we.Err != nil {
		return we.Msg + ": " + we.Err.Error()
	}
	return we.Msg
}

// bindWorkbook binds req's args into a and opens the workbook at *path, a
// field of a; the caller closes the workbook.
func bindWorkbook(req *sdk.Request, a any, path *string) (*workbook.Workbook, error) {
	if err := req.Bind(a); err != nil {
		return nil, err
	}
	return openWorkbook(*path)
}

// bindSheet binds req's args into a and opens the sheet *sheet of the
// workbook at *path, fields of a (see openSheet).
func bindSheet(req *sdk.Request, a any, path, sheet *string) (*workbook.Workbook, *workbook.Sheet, error) {
	if err := req.Bind(a); err != nil {
		return nil, nil, err
	}
	return openSheet(*path, *sheet)
}

// openSheet opens the workbook at path and picks its sheet (see pickSheet);
// the caller closes the workbook.
func openSheet(path, sheet string) (*workbook.Workbook, *workbook.Sheet, error) {
	w, err := openWorkbook(path)
	if err != nil {
		return nil, nil, err
	}
	sh, err := pickSheet(w, sheet)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return w, sh, nil
}

// pickSheet returns the named sheet, or the first worksheet when name is
// empty; an unknown name is invalid_args with did_you_mean.
func pickSheet(w *workbook.Workbook, name string) (*workbook.Sheet, error) {
	if name == "" {
		for i := range w.Sheets {
			if w.Sheets[i].Type == "worksheet" {
				return &w.Sheets[i], nil
			}
		}
		return nil, &sdk.Error{Code: sdk.CodeNotFound, Message: "the workbook has no worksheet",
			NextStep: "list-sheets shows what it holds"}
	}
	if sh, ok := w.Sheet(name); ok {
		return sh, nil
	}
	names := make([]string, len(w.Sheets))
	for i, s := range w.Sheets {
		names[i] = s.Name
	}
	return nil, &sdk.Error{Code: sdk.CodeInvalidArgs,
		Message:    fmt.Sprintf("no sheet named %q", name),
		DidYouMean: suggest(name, names),
		NextStep:   "pass one of the sheet names; list-sheets lists them",
		Details:    map[string]any{"sheets": names}}
}

// suggest ranks candidates by closeness to s: equality ignoring case,
// spaces and punctuation first, then containment, then edit distance; at
// most three.
func suggest(s string, candidates []string) []string {
	type scored struct {
		name string
		d    int
	}
	var sc []scored
	ls := fold(s)
	for _, c := range candidates {
		lc := fold(c)
		d := levenshtein(ls, lc)
		switch {
		case lc == ls:
			d = 0
		case strings.Contains(lc, ls) || strings.Contains(ls, lc):
			d = min(d, 1)
		}
		if d <= max(2, utf8.RuneCountInString(c)/2) {
			sc = append(sc, scored{c, d})
		}
	}
	slices.SortStableFunc(sc, func(a, b scored) int { return a.d - b.d })
	var out []string
	for i := 0; i < len(sc) && i < 3; i++ {
		if sc[i].d > 0 && sc[0].d == 0 {
			break // a name equal but for case and spacing outranks the rest
		}
		out = append(out, sc[i].name)
	}
	if len(out) == 0 && len(candidates) <= 5 {
		out = append(out, candidates...)
	}
	return out
}

// fold lowercases s and drops everything but letters and digits.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// budget tracks the byte budget of a result's JSON; zero means none.
type budget struct{ limit, used int }

func newBudget(req *sdk.Request, overhead int) *budget {
	return &budget{limit: req.Caller.MaxResultBytes, used: overhead + 256}
}

// fits adds n bytes when they fit (always when there is no limit).
func (b *budget) fits(n int) bool {
	if b.limit > 0 && b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

func jsonLen(v any) int {
	bs, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(bs) + 1
}

// appendRow appends a row as read-sheet returns it: a JSON array from
// column A, empty cells inside as "", and with formulas asked for each
// formula cell as {"formula", "value", "cached"} (value null when the file
// holds no cached result).
func appendRow(dst []byte, r workbook.Row) []byte {
	if len(r.Formulas) == 0 {
		return workbook.AppendRowJSON(dst, r.Cells)
	}
	dst = append(dst, '[')
	for i := range max(len(r.Cells), len(r.Formulas)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendCell(dst, r, i, `""`)
	}
	return append(dst, ']')
}

// appendCell appends cell i of a row as JSON: its value, empty when it
// has none, or its formula object when it has a formula.
func appendCell(dst []byte, r workbook.Row, i int, empty string) []byte {
	var c workbook.Value
	if i < len(r.Cells) {
		c = r.Cells[i]
	}
	if i < len(r.Formulas) && r.Formulas[i] != "" {
		if reason, ok := workbook.FormulaReason(r.Formulas[i]); ok {
			dst = append(dst, `{"formula":null,"value":`...)
			dst = c.AppendJSON(dst, "null")
			dst = append(dst, `,"cached":`...)
			dst = strconv.AppendBool(dst, !c.IsEmpty())
			dst = append(dst, `,"reason":`...)
			dst = workbook.AppendJSONString(dst, noFormulaTextReason+reason)
			return append(dst, '}')
		}
		dst = append(dst, `{"formula":`...)
		dst = workbook.AppendJSONString(dst, r.Formulas[i])
		dst = append(dst, `,"value":`...)
		dst = c.AppendJSON(dst, "null")
		var comp workbook.Computation
		if i < len(r.Computed) {
			comp = r.Computed[i]
		}
		dst = append(dst, `,"cached":`...)
		dst = strconv.AppendBool(dst, !c.IsEmpty() && !comp.Done)
		if comp.Done || comp.Reason != "" {
			dst = append(dst, `,"computed":`...)
			dst = strconv.AppendBool(dst, comp.Done)
		}
		if comp.Reason != "" {
			dst = append(dst, `,"reason":`...)
			dst = workbook.AppendJSONString(dst, comp.Reason)
		}
		return append(dst, '}')
	}
	return c.AppendJSON(dst, empty)
}

// noFormulaTextReason starts the reason of a formula cell given without
// its formula's text.
const noFormulaTextReason = "no formula text: "

// formulaCell is a formula cell as the reading actions return it when
// formulas are asked for; Formula is nil when its text cannot be given
// (the Reason says why).
type formulaCell struct {
	Formula *string `json:"formula"`
	Value   any     `json:"value"`
	Cached  bool    `json:"cached"`
	// Computed is set on a formula the file holds no value for: true when
	// its value was computed, false with the Reason when not.
	Computed *bool  `json:"computed,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// cellJSON returns cell i of a row for encoding/json: its value, or a
// formulaCell when the cell has a formula (formulas and computed may be
// nil), and whether there is anything there.
func cellJSON(cells []workbook.Value, formulas []string, computed []workbook.Computation, i int) (any, bool) {
	var c workbook.Value
	if i < len(cells) {
		c = cells[i]
	}
	if i < len(formulas) && formulas[i] != "" {
		fc := formulaCell{Formula: &formulas[i], Value: c.JSON(), Cached: !c.IsEmpty()}
		if reason, ok := workbook.FormulaReason(formulas[i]); ok {
			fc.Formula, fc.Reason = nil, noFormulaTextReason+reason
			return fc, true
		}
		if i < len(computed) && (computed[i].Done || computed[i].Reason != "") {
			done := computed[i].Done
			fc.Computed, fc.Reason, fc.Cached = &done, computed[i].Reason, false
		}
		return fc, true
	}
	return c.JSON(), !c.IsEmpty()
}

// uncachedNote tells a reader that formula cells without a cached value
// read as empty, and how to see them.
func uncachedNote(out map[string]any, st workbook.Stats, asked bool) {
	if st.ComputedFormulas > 0 {
		out["computed_formulas"] = st.ComputedFormulas
	}
	if st.UncachedFormulas > 0 && !asked {
		out["uncached_formulas"] = st.UncachedFormulas
		out["next_step"] = "some formula cells hold no value (the file was written without one) and could not be computed, so they read as empty; pass formulas: true to see their formulas and why"
	} else if st.ComputedFormulas > 0 && !asked {
		out["next_step"] = "some values were computed here from their formulas (the file was written without them); pass formulas: true to see which"
	}
}

// progressEvery is how many rows pass between progress events of a long
// scan.
const progressEvery = 100_000

// progress wraps a row callback so every progressEvery rows the caller
// hears how far a scan of sheet has come; fn may be nil.
func progress(req *sdk.Request, sheet string, fn func(workbook.Row) error) func(workbook.Row) error {
	n := 0
	return func(r workbook.Row) error {
		if n++; n%progressEvery == 0 {
			req.Progress(float64(n), 0, fmt.Sprintf("read %d rows of %s (row %d)", n, sheet, r.Num))
		}
		if fn == nil {
			return nil
		}
		return fn(r)
	}
}

// ---- list-sheets -----------------------------------------------------------

type pathArgs struct {
	Path string `json:"path"`
}

type sheetInfo struct {
	Title        string `json:"title"`
	Type         string `json:"type"`
	State        string `json:"state"`
	Rows         *int   `json:"rows,omitempty"`
	Columns      *int   `json:"columns,omitempty"`
	Dimension    string `json:"dimension,omitempty"`
	UsedRange    string `json:"used_range,omitempty"`
	DataRows     *int   `json:"data_rows,omitempty"`
	MergedRanges int    `json:"merged_ranges,omitempty"`
	Error        string `json:"error,omitempty"`
}

func listSheets(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a pathArgs
	w, err := bindWorkbook(req, &a, &a.Path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	sheets := []sheetInfo{}
	for i := range w.Sheets {
		sh := &w.Sheets[i]
		info := sheetInfo{Title: sh.Name, Type: sh.Type, State: sh.State}
		if sh.Type == "worksheet" {
			st, err := w.Stream(ctx, sh, &workbook.StreamOptions{StatsOnly: true}, progress(req, sh.Name, nil))
			if err != nil {
				if ctx.Err() != nil {
					return nil, workbookError(a.Path, err)
				}
				info.Error = workbookError(a.Path, err).Error()
			} else {
				info.Rows, info.Columns, info.DataRows = &st.MaxRow, &st.MaxColumn, &st.DataRows
				info.Dimension, info.UsedRange, info.MergedRanges = st.Dimension, st.UsedRange, st.MergedRanges
			}
		}
		sheets = append(sheets, info)
	}
	return &sdk.Result{Data: map[string]any{"path": a.Path, "sheets": sheets}}, nil
}

// ---- read-sheet ------------------------------------------------------------

type readSheetArgs struct {
	Path       string `json:"path"`
	Sheet      string `json:"sheet"`
	MaxResults int    `json:"max-results"`
	Offset     int    `json:"offset"`
	SkipEmpty  bool   `json:"skip-empty"`
	Formulas   bool   `json:"formulas"`
}

func readSheet(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a readSheetArgs // the host checked the args and filled tool.yaml's defaults
	w, sh, err := bindSheet(req, &a, &a.Path, &a.Sheet)
	if err != nil {
		return nil, err
	}
	skipEmpty := a.SkipEmpty
	// Rows are encoded and written as they stream: a sheet costs its
	// bytes once, never a boxed value per cell or the whole JSON at once.
	return &sdk.Result{Data: newStreamed(w, func(out io.Writer) error {
		o := newObjectWriter(out)
		o.member("sheet", sh.Name)
		o.openArray("rows")
		b := newBudgetFor(req, len(sh.Name), a.MaxResults)
		seen, shown, lastNum := 0, 0, 0
		truncated := false
		cut := ""
		emit := func(r *workbook.Row) error {
			if seen < a.Offset {
				seen++
				return nil
			}
			if shown >= a.MaxResults {
				truncated = true
				return workbook.ErrStop
			}
			// The row is encoded straight into the output, and taken
			// back when it does not fit.
			mark := o.beginItem()
			start := len(o.buf)
			if r == nil {
				o.buf = append(o.buf, "[]"...)
			} else {
				o.buf = appendRow(o.buf, *r)
			}
			if !b.fits(len(o.buf) - start + itemOverhead) {
				truncated = true
				if shown > 0 || r == nil {
					o.dropItem(mark)
					return workbook.ErrStop
				}
				// A row larger than the whole budget comes cut to the
				// cells that fit, and says where the rest is.
				var k int
				o.buf, k = appendRowPrefix(o.buf[:start], *r, b.limit-b.used-itemOverhead)
				cut = fmt.Sprintf("row %d is larger than the result budget: only its first %d of %d cells are shown; read-range %s:%s reads the rest",
					r.Num, k, max(len(r.Cells), len(r.Formulas)), workbook.CellName(r.Num, k+1), workbook.CellName(r.Num, max(len(r.Cells), len(r.Formulas))))
			}
			seen++
			shown++
			o.endItem()
			if cut != "" {
				return workbook.ErrStop
			}
			return o.err
		}
		st, err := w.Stream(ctx, sh, &workbook.StreamOptions{Formulas: a.Formulas, Borrow: true, Compute: newComputer(ctx, w).forSheet(sh.Name)}, func(r workbook.Row) error {
			if !skipEmpty {
				for n := lastNum + 1; n < r.Num; n++ {
					if err := emit(nil); err != nil {
						return err
					}
				}
			}
			lastNum = r.Num
			return emit(&r)
		})
		if err != nil {
			if o.err != nil {
				return sdk.Errorf(sdk.CodeInternalError, "write the rows of %s: %v", sh.Name, o.err)
			}
			return workbookError(a.Path, err)
		}
		o.closeArray()
		o.member("truncated", truncated)
		if truncated {
			o.member("next_offset", a.Offset+shown)
		}
		o.notes(st, a.Formulas, cut)
		return o.close()
	})}, nil
}

// appendRowPrefix appends as many of a row's first cells as fit in limit
// bytes (at least one) and says how many.
func appendRowPrefix(dst []byte, r workbook.Row, limit int) ([]byte, int) {
	start := len(dst)
	dst = append(dst, '[')
	n := max(len(r.Cells), len(r.Formulas))
	k := 0
	for ; k < n; k++ {
		mark := len(dst)
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendCell(dst, r, k, `""`)
		if k > 0 && len(dst)-start+1 > limit {
			dst = dst[:mark]
			break
		}
	}
	return append(dst, ']'), k
}

// ---- dump ------------------------------------------------------------------

type dumpArgs struct {
	Path       string `json:"path"`
	Save       string `json:"save"`
	MaxResults int    `json:"max-results"`
	Formulas   bool   `json:"formulas"`
}

func pyList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + strings.ReplaceAll(dumpEscape(n), "'", `\'`) + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// dumpSpecial marks the bytes dump escapes: the backslash that starts an
// escape, the | between cells, and the control characters (line breaks
// above all), so that a cell or a sheet name never starts a line of its
// own nor a cell that is not one.
var dumpSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['\\'], t['|'], t[0x7f] = true, true, true
	return t
}()

// appendDumpEscaped appends s as dump writes text: \\, \|, \n, \r, \t, and
// \xHH for the other control characters.
func appendDumpEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !dumpSpecial[c] {
			dst = append(dst, c)
			continue
		}
		switch c {
		case '\\', '|':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			dst = append(dst, '\\', 'x', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
	}
	return dst
}

// dumpEscape is appendDumpEscaped as a string.
func dumpEscape(s string) string {
	for i := 0; i < len(s); i++ {
		if dumpSpecial[s[i]] {
			return string(appendDumpEscaped(nil, s))
		}
	}
	return s
}

// escapeTail escapes dst[from:] in place as appendDumpEscaped does, when
// it holds anything to escape.
func escapeTail(dst []byte, from int) []byte {
	for i := from; i < len(dst); i++ {
		if dumpSpecial[dst[i]] {
			tail := string(dst[i:])
			return appendDumpEscaped(dst[:i], tail)
		}
	}
	return dst
}

func dump(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a dumpArgs
	w, err := bindWorkbook(req, &a, &a.Path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if a.Save != "" {
		return dumpSaved(ctx, w, a)
	}
	// Inline, the text need not grow past the byte budget: stop reading
	// once it does.
	var m memDump
	_, bad, err := dumpText(ctx, w, a, &m, req.Caller.MaxResultBytes)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(string(m.b), "\n")
	out := map[string]any{"characters": utf8.RuneCountInString(text)}
	if lim := req.Caller.MaxResultBytes; lim > 0 && jsonLen(text) > lim-200 {
		cut := text
		for jsonLen(cut) > lim-300 && len(cut) > 0 {
			cut = cut[:len(cut)*3/4]
			if i := strings.LastIndexByte(cut, '\n'); i > 0 {
				cut = cut[:i]
			}
		}
		text = cut + "\n... [truncated to fit the result budget; use max-results or save]"
		out["truncated"] = true
	}
	out["text"] = text
	if bad != nil {
		out["unreadable_sheets"] = bad
	}
	return &sdk.Result{Data: out}, nil
}

// dumpSaved streams the dump into a.Save, writing each byte once: into a
// new file in the target's folder that takes the target's name (never
// overwriting) only once the whole workbook has been read, so memory stays
// flat however large the workbook and a failed read leaves no
// half-written file.
func dumpSaved(ctx context.Context, w *workbook.Workbook, a dumpArgs) (*sdk.Result, error) {
	po, err := createPending(a.Save)
	if err != nil {
		return nil, err
	}
	d := newFileDump(po.File)
	runes, bad, err := dumpText(ctx, w, a, d, 0)
	if err != nil {
		po.abort()
		return nil, err
	}
	// The text ends with its last line's newline, which is left out.
	size, err := d.finish(1)
	if err != nil {
		po.abort()
		return nil, sdk.Errorf(sdk.CodeInternalError, "save %s: %v", po.target, err)
	}
	if size > 0 {
		runes--
	}
	if err := po.commit(); err != nil {
		return nil, err
	}
	out := map[string]any{"saved_to": po.target, "characters": runes}
	if bad != nil {
		out["unreadable_sheets"] = bad
	}
	return &sdk.Result{Data: out}, nil
}

// unreadableSheet is a worksheet that dump or search (over every sheet)
// could not read, and why; the others are still read.
type unreadableSheet struct {
	Sheet string `json:"sheet"`
	Error string `json:"error"`
	err   error  // the whole error, returned when no sheet can be read
}

// unreadable reports whether err is a fault of one sheet (its part is
// missing or not well-formed), which the other sheets of the file need
// not share; a cancelled call, a limit, or an unreadable file is not.
func unreadable(path, sheet string, err error) (unreadableSheet, bool) {
	var we *workbook.Error
	if !errors.As(err, &we) || we.Kind != workbook.Invalid {
		return unreadableSheet{}, false
	}
	return unreadableSheet{Sheet: sheet, Error: invalidDetail(we), err: workbookError(path, err)}, true
}

// appendCellText appends cell j of a row as dump shows it: its value's
// text, and a formula cell's formula after it in brackets ("6 [=SUM(A1:A3)]",
// "[=A3*2]" when the file holds no computed value).
func appendCellText(dst []byte, r workbook.Row, j int) []byte {
	if j < len(r.Cells) {
		n := len(dst)
		dst = escapeTail(r.Cells[j].AppendText(dst), n)
	}
	if _, none := workbook.FormulaReason(at(r.Formulas, j)); !none && j < len(r.Formulas) && r.Formulas[j] != "" {
		if j < len(r.Cells) && !r.Cells[j].IsEmpty() {
			dst = append(dst, ' ')
		}
		dst = append(appendDumpEscaped(append(dst, '['), r.Formulas[j]), ']')
	}
	return dst
}

// at is s[i], "" past its end.
func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// dumpText writes the dump's text to out — the file and sheet list, then
// each worksheet's header and its rows — and returns how many characters
// it wrote. A sheet's header names its used range, known at its end: out
// puts it before the sheet's lines. With limit > 0 it stops at the first
// sheet whose text passes limit bytes.
//
// A worksheet that cannot be read (its part missing or malformed) does not
// cost the others: its header is followed by a line saying why, after any
// rows read before the fault, and it is returned among the unreadable;
// only when no worksheet can be read is the first one's error returned.
func dumpText(ctx context.Context, w *workbook.Workbook, a dumpArgs, out dumpOut, limit int) (int, []unreadableSheet, error) {
	var names []string
	for _, s := range w.Sheets {
		if s.Type == "worksheet" {
			names = append(names, s.Name)
		}
	}
	ioErr := func(err error) error {
		return sdk.Errorf(sdk.CodeInternalError, "dump %s: %v", a.Path, err)
	}
	pre := "### FILE: " + dumpEscape(a.Path) + "\n### SHEETS: " + pyList(names) + "\n\n"
	written, runes := len(pre), utf8.RuneCountInString(pre)
	if _, err := io.WriteString(out, pre); err != nil {
		return 0, nil, ioErr(err)
	}
	var (
		line []byte
		bad  []unreadableSheet
	)
	comp := newComputer(ctx, w)
	for i := range w.Sheets {
		sh := &w.Sheets[i]
		if sh.Type != "worksheet" {
			continue
		}
		if err := out.sheetStart(len(sheetHeader(sh.Name, ""))); err != nil {
			return 0, nil, ioErr(err)
		}
		shown, size := 0, 0
		over := false
		opt := &workbook.StreamOptions{Formulas: a.Formulas, Borrow: true, Compute: comp.forSheet(sh.Name), Dimension: func(ref string) {
			out.guessHeader(len(sheetHeader(sh.Name, ref)))
		}}
		st, err := w.Stream(ctx, sh, opt, func(r workbook.Row) error {
			line = append(line[:0], 'r')
			line = strconv.AppendInt(line, int64(r.Num), 10)
			line = append(line, ": "...)
			for j := range max(len(r.Cells), len(r.Formulas)) {
				if j > 0 {
					line = append(line, " | "...)
				}
				line = appendCellText(line, r, j)
			}
			line = append(line, '\n')
			shown++
			if a.MaxResults > 0 && shown >= a.MaxResults {
				line = fmt.Appendf(line, "... [truncated at %d non-empty rows]\n", a.MaxResults)
			}
			size += len(line)
			runes += workbook.RuneCount(line)
			if _, err := out.Write(line); err != nil {
				return err
			}
			if limit > 0 && written+size > limit {
				over = true
				return workbook.ErrStop
			}
			if a.MaxResults > 0 && shown >= a.MaxResults {
				return workbook.ErrStop
			}
			return nil
		})
		// The sheet's last line: why it stopped short, or that it is empty.
		var tail string
		switch {
		case err != nil:
			if _, ok := err.(*sdk.Error); ok {
				return 0, nil, err
			}
			u, ok := unreadable(a.Path, sh.Name, err)
			if !ok {
				return 0, nil, workbookError(a.Path, err)
			}
			bad = append(bad, u)
			tail = "(cannot be read: " + dumpEscape(u.Error) + ")\n"
			if shown > 0 {
				tail = "(the rest cannot be read: " + dumpEscape(u.Error) + ")\n"
			}
		case shown == 0:
			tail = "(empty)\n"
		}
		if tail != "" {
			size += len(tail)
			runes += utf8.RuneCountInString(tail)
			if _, err := io.WriteString(out, tail); err != nil {
				return 0, nil, ioErr(err)
			}
		}
		h := sheetHeader(sh.Name, st.UsedRange)
		written += len(h) + size
		runes += utf8.RuneCount(h)
		if err := out.sheetHeader(h); err != nil {
			return 0, nil, ioErr(err)
		}
		if over {
			break
		}
	}
	if len(bad) > 0 && len(bad) == len(names) {
		return 0, nil, bad[0].err
	}
	return runes, bad, nil
}

// sheetHeader is the line before a sheet's rows in the dump; dims is its
// used range ("A1:A1" when "", "A1" as "A1:A1").
func sheetHeader(name, dims string) []byte {
	switch {
	case dims == "":
		dims = "A1:A1"
	case !strings.Contains(dims, ":"):
		dims += ":" + dims
	}
	return fmt.Appendf(nil, "\n===== SHEET: %s  (dims %s) =====\n", dumpEscape(name), dumpEscape(dims))
}
