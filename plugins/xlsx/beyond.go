package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
	"github.com/toolhost/toolhost/sdk"
)

// ---- read-range ------------------------------------------------------------

// maxGridRows bounds read-range's grid when the caller gives no byte
// budget (CLI mode): empty rows between sparse data are rows too.
const maxGridRows = 100_000

type readRangeArgs struct {
	Path     string `json:"path"`
	Sheet    string `json:"sheet"`
	Range    string `json:"range"`
	Formulas bool   `json:"formulas"`
}

// parseRange reads "B2:D40" or "B2"; the corners may come in any order.
func parseRange(s string) (r1, c1, r2, c2 int, err error) {
	first, last, ok := strings.Cut(strings.ToUpper(strings.TrimSpace(s)), ":")
	if !ok {
		last = first
	}
	var ok1, ok2 bool
	r1, c1, ok1 = workbook.ParseRef(first)
	r2, c2, ok2 = workbook.ParseRef(last)
	if !ok1 || !ok2 {
		return 0, 0, 0, 0, &sdk.Error{Code: sdk.CodeInvalidArgs,
			Message:  "range " + strconv.Quote(s) + " is not an A1 range",
			NextStep: `pass a range such as "B2:D40" or a single cell such as "C7"`}
	}
	return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2), nil
}

func readRange(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a readRangeArgs
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	r1, c1, r2, c2, err := parseRange(a.Range)
	if err != nil {
		return nil, err
	}
	w, sh, err := openSheet(a.Path, a.Sheet)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	type srow struct {
		num      int
		cells    []workbook.Value
		formulas []string
		computed []workbook.Computation
	}
	var got []srow
	lastCol := 0
	b := newBudget(req, len(sh.Name)+len(a.Range))
	truncated := false
	st, err := w.Stream(ctx, sh, &workbook.StreamOptions{Formulas: a.Formulas, Compute: newComputer(ctx, w).forSheet(sh.Name)}, func(r workbook.Row) error {
		if r.Num < r1 {
			return nil
		}
		if r.Num > r2 {
			return workbook.ErrStop
		}
		width := max(len(r.Cells), len(r.Formulas))
		if width < c1 {
			return nil
		}
		var cells []workbook.Value
		if len(r.Cells) >= c1 {
			cells = append(cells, r.Cells[c1-1:min(len(r.Cells), c2)]...)
		}
		var formulas []string
		if len(r.Formulas) >= c1 {
			formulas = append(formulas, r.Formulas[c1-1:min(len(r.Formulas), c2)]...)
		}
		var computed []workbook.Computation
		if len(r.Computed) >= c1 {
			computed = append(computed, r.Computed[c1-1:min(len(r.Computed), c2)]...)
		}
		n := max(len(cells), len(formulas))
		for n > 0 {
			if _, ok := cellJSON(cells, formulas, computed, n-1); ok {
				break
			}
			n--
		}
		if n == 0 {
			return nil
		}
		cells, formulas = cells[:min(n, len(cells))], formulas[:min(n, len(formulas))]
		row := make([]any, n)
		for i := range row {
			row[i], _ = cellJSON(cells, formulas, computed, i)
		}
		if !b.fits(jsonLen(row) + 8) {
			truncated = true
			return workbook.ErrStop
		}
		lastCol = max(lastCol, c1+n-1)
		got = append(got, srow{r.Num, cells, formulas, computed})
		return nil
	})
	if err != nil {
		return nil, workbookError(a.Path, err)
	}
	// The grid spans the range up to its last row and column holding data;
	// empty rows between data rows count against the budget too.
	rows := [][]any{}
	nextRow := 0
	if len(got) > 0 {
		width := lastCol - c1 + 1
		last := got[len(got)-1].num
		gb := newBudget(req, len(sh.Name)+len(a.Range))
		k := 0
		for n := r1; n <= last; n++ {
			row := make([]any, width)
			for i := range row {
				row[i] = ""
			}
			if k < len(got) && got[k].num == n {
				for i := range max(len(got[k].cells), len(got[k].formulas)) {
					if v, ok := cellJSON(got[k].cells, got[k].formulas, got[k].computed, i); ok {
						row[i] = v
					}
				}
				k++
			}
			if len(rows) >= maxGridRows || (len(rows) > 0 && !gb.fits(jsonLen(row))) {
				truncated = true
				nextRow = n
				break
			}
			rows = append(rows, row)
		}
		if truncated && nextRow == 0 {
			nextRow = last + 1
		}
	}
	out := map[string]any{"sheet": sh.Name, "range": workbook.CellName(r1, c1) + ":" + workbook.CellName(r2, c2), "rows": rows, "truncated": truncated}
	if len(rows) > 0 {
		out["data_range"] = workbook.CellName(r1, c1) + ":" + workbook.CellName(r1+len(rows)-1, c1+len(rows[0])-1)
	}
	if truncated && nextRow > 0 && nextRow <= r2 {
		out["next_range"] = workbook.CellName(nextRow, c1) + ":" + workbook.CellName(r2, c2)
	}
	uncachedNote(out, st, a.Formulas)
	return &sdk.Result{Data: out}, nil
}

// ---- records ---------------------------------------------------------------

type recordsArgs struct {
	Path       string `json:"path"`
	Sheet      string `json:"sheet"`
	HeaderRow  int    `json:"header-row"`
	MaxResults int    `json:"max-results"`
	Offset     int    `json:"offset"`
	Formulas   bool   `json:"formulas"`
}

type renamedHeader struct {
	Column string `json:"column"`
	Header string `json:"header"`
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// headerKeys turns a header row into unique, non-blank keys, reporting each
// change.
func headerKeys(cells []workbook.Value) ([]string, []renamedHeader) {
	keys := make([]string, len(cells))
	var renamed []renamedHeader
	used := map[string]bool{}
	for _, c := range cells {
		used[strings.TrimSpace(c.Text())] = true
	}
	counts := map[string]int{}
	for i, c := range cells {
		h := strings.TrimSpace(c.Text())
		col := workbook.ColumnName(i + 1)
		switch {
		case h == "":
			k := "column_" + col
			keys[i] = k
			renamed = append(renamed, renamedHeader{col, c.Text(), k, "blank header"})
		case counts[h] > 0:
			n := counts[h] + 1
			k := h + "_" + strconv.Itoa(n)
			for used[k] {
				n++
				k = h + "_" + strconv.Itoa(n)
			}
			counts[h] = n
			used[k] = true
			keys[i] = k
			renamed = append(renamed, renamedHeader{col, h, k, "duplicate header"})
		default:
			counts[h] = 1
			keys[i] = h
		}
	}
	return keys, renamed
}

func records(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a recordsArgs // the host checked the args and filled tool.yaml's defaults
	w, sh, err := bindSheet(req, &a, &a.Path, &a.Sheet)
	if err != nil {
		return nil, err
	}
	// Records are encoded and written as they stream, keys in column
	// order; the header facts, known only at the end (data may run past
	// the header), follow them.
	return &sdk.Result{Data: newStreamed(w, func(out io.Writer) error {
		o := newObjectWriter(out)
		o.member("sheet", sh.Name)
		o.openArray("records")
		var keys []string
		var renamed []renamedHeader
		headerRow := 0
		rowNums := []int{}
		var keyJSON [][]byte
		seen := 0
		truncated := false
		b := newBudgetFor(req, 200+len(sh.Name), a.MaxResults)
		// The sheet's <dimension> claim sizes row_numbers once (capped:
		// the claim is not trusted), sparing the arrays append grows
		// through, each fresh memory and page faults.
		sizeRows := func(ref string) {
			_, last, _ := strings.Cut(ref, ":")
			if n, _, ok := workbook.ParseRef(last); ok {
				rowNums = make([]int, 0, max(0, min(n, a.MaxResults, 1<<16)))
			}
		}
		hd := &header{explicit: a.HeaderRow > 0, load: func() ([]mergedRange, error) { return sheetMerges(ctx, w, sh) }}
		headerDone := false
		finishHeader := func() error {
			headerDone = true
			if err := hd.finish(); err != nil {
				return err
			}
			headerRow = hd.first
			keys, renamed = headerKeys(hd.labels())
			b.fits(jsonLen(keys) + jsonLen(renamed))
			return nil
		}
		st, err := w.Stream(ctx, sh, &workbook.StreamOptions{Formulas: a.Formulas, Borrow: true, Dimension: sizeRows, Compute: newComputer(ctx, w).forSheet(sh.Name)}, func(r workbook.Row) error {
			if !headerDone && hd.first > 0 {
				in, err := hd.next(r)
				if err != nil {
					return err
				}
				if in {
					return nil
				}
				if err := finishHeader(); err != nil {
					return err
				}
			}
			if headerRow == 0 && hd.first == 0 {
				if a.HeaderRow > 0 && r.Num < a.HeaderRow {
					return nil
				}
				if a.HeaderRow > 0 && r.Num > a.HeaderRow {
					headerRow = a.HeaderRow // blank header row: every key is column_X
					headerDone = true
				} else {
					hd.begin(r)
					headerRow = r.Num
					return nil
				}
			}
			for len(keys) < max(len(r.Cells), len(r.Formulas)) {
				col := workbook.ColumnName(len(keys) + 1)
				keys = append(keys, "column_"+col)
				renamed = append(renamed, renamedHeader{col, "", "column_" + col, "no header above data"})
				b.fits(2*len(col) + 60)
			}
			if seen < a.Offset {
				seen++
				return nil
			}
			for len(keyJSON) < len(keys) {
				keyJSON = append(keyJSON, workbook.AppendJSONString(nil, keys[len(keyJSON)]))
			}
			if len(rowNums) >= a.MaxResults {
				truncated = true
				return workbook.ErrStop
			}
			// The record is encoded straight into the output, and taken
			// back when it does not fit.
			mark := o.beginItem()
			start := len(o.buf)
			rec := append(o.buf, '{')
			for i, k := range keyJSON {
				if i > 0 {
					rec = append(rec, ',')
				}
				rec = append(append(rec, k...), ':')
				rec = appendCell(rec, r, i, "null")
			}
			o.buf = append(rec, '}')
			if !b.fits(len(o.buf)-start+itemOverhead+8) && len(rowNums) > 0 {
				o.dropItem(mark)
				truncated = true
				return workbook.ErrStop
			}
			seen++
			o.endItem()
			rowNums = append(rowNums, r.Num)
			return o.err
		})
		if err != nil {
			if o.err != nil {
				return sdk.Errorf(sdk.CodeInternalError, "write the records of %s: %v", sh.Name, o.err)
			}
			return workbookError(a.Path, err)
		}
		o.closeArray()
		if hd.first > 0 && !headerDone {
			if err := finishHeader(); err != nil {
				return workbookError(a.Path, err)
			}
		}
		if keys == nil {
			keys = []string{}
		}
		o.member("header_row", headerRow)
		o.member("columns", keys)
		o.memberInts("row_numbers", rowNums)
		if len(renamed) > 0 {
			o.member("renamed", renamed)
		}
		o.member("truncated", truncated)
		if truncated {
			o.member("next_offset", a.Offset+len(rowNums))
		}
		o.notes(st, a.Formulas, "")
		return o.close()
	})}, nil
}

// ---- search ----------------------------------------------------------------

type searchArgs struct {
	Path       string `json:"path"`
	Query      string `json:"query"`
	Sheet      string `json:"sheet"`
	MaxResults int    `json:"max-results"`
	Offset     int    `json:"offset"`
	MatchCase  bool   `json:"match-case"`
	Formulas   bool   `json:"formulas"`
}

type match struct {
	Sheet string `json:"sheet"`
	Cell  string `json:"cell"`
	Row   int    `json:"row"`
	Col   int    `json:"column"`
	Value any    `json:"value"`
	// Formula and Cached are set, with formulas asked for, on a formula
	// cell (Value null when the file holds no computed value).
	Formula string `json:"formula,omitempty"`
	Cached  *bool  `json:"cached,omitempty"`
	// Computed and Reason are set as in read-sheet's formula cells.
	Computed *bool  `json:"computed,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func search(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a searchArgs // the host checked the args and filled tool.yaml's defaults
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	if a.Query == "" {
		return nil, &sdk.Error{Code: sdk.CodeInvalidArgs, Message: "query is required", NextStep: "pass --query with the text to find"}
	}
	w, err := openWorkbook(a.Path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	var sheets []*workbook.Sheet
	if a.Sheet != "" {
		sh, err := pickSheet(w, a.Sheet)
		if err != nil {
			return nil, err
		}
		sheets = append(sheets, sh)
	} else {
		for i := range w.Sheets {
			if w.Sheets[i].Type == "worksheet" {
				sheets = append(sheets, &w.Sheets[i])
			}
		}
	}
	q := []byte(a.Query)
	if !a.MatchCase {
		q = bytes.ToLower(q)
	}
	var text []byte
	matches := []match{}
	truncated, skipped := false, 0
	var bad []unreadableSheet
	b := newBudgetFor(req, len(a.Query), a.MaxResults)
	found := func(text []byte) bool {
		if a.MatchCase {
			return bytes.Contains(text, q)
		}
		return containsFold(text, q)
	}
	comp := newComputer(ctx, w)
	for _, sh := range sheets {
		_, err := w.Stream(ctx, sh, &workbook.StreamOptions{Formulas: a.Formulas, Borrow: true, Compute: comp.forSheet(sh.Name)}, progress(req, sh.Name, func(r workbook.Row) error {
			for i := range max(len(r.Cells), len(r.Formulas)) {
				var c workbook.Value
				if i < len(r.Cells) {
					c = r.Cells[i]
				}
				formula := ""
				if i < len(r.Formulas) {
					formula = r.Formulas[i]
				}
				if _, none := workbook.FormulaReason(formula); none {
					formula = "" // matched and shown by its value alone
				}
				if c.IsEmpty() && formula == "" {
					continue
				}
				// With formulas asked for, a cell matches by its value or
				// its formula.
				text = c.AppendText(text[:0])
				if (c.IsEmpty() || !found(text)) && (formula == "" || !found([]byte(formula))) {
					continue
				}
				if skipped < a.Offset {
					skipped++
					continue
				}
				m := match{Sheet: sh.Name, Cell: workbook.CellName(r.Num, i+1), Row: r.Num, Col: i + 1, Value: c.Owned().JSON()}
				if formula != "" {
					done := i < len(r.Computed) && r.Computed[i].Done
					cached := !c.IsEmpty() && !done
					m.Formula, m.Cached = formula, &cached
					if i < len(r.Computed) && (done || r.Computed[i].Reason != "") {
						m.Computed, m.Reason = &done, r.Computed[i].Reason
					}
				}
				if len(matches) >= a.MaxResults || !b.fits(jsonLen(m)) && len(matches) > 0 {
					truncated = true
					return workbook.ErrStop
				}
				matches = append(matches, m)
			}
			return nil
		}))
		if err != nil {
			// Over every sheet, one that cannot be read is reported and
			// the others searched (dump does the same); a sheet asked
			// for by name fails the call.
			u, ok := unreadable(a.Path, sh.Name, err)
			if !ok || a.Sheet != "" {
				return nil, workbookError(a.Path, err)
			}
			bad = append(bad, u)
			continue
		}
		if truncated {
			break
		}
	}
	if len(bad) > 0 && len(bad) == len(sheets) {
		return nil, bad[0].err
	}
	out := map[string]any{"query": a.Query, "matches": matches, "truncated": truncated}
	if truncated {
		out["next_offset"] = a.Offset + len(matches)
	}
	if bad != nil {
		out["unreadable_sheets"] = bad
	}
	return &sdk.Result{Data: out}, nil
}

// containsFold reports whether s contains the lower-case q, ignoring case.
// ASCII text is searched for q's first byte in either case (bytes.IndexByte,
// each case's next position remembered, so the scan stays linear) and each
// candidate compared; other text goes through bytes.ToLower (non-ASCII
// text may fold to ASCII: the Kelvin sign is 'k').
func containsFold(s, q []byte) bool {
	if len(q) == 0 {
		return true
	}
	if !isASCII(q) || !isASCII(s) {
		return bytes.Contains(bytes.ToLower(s), q)
	}
	lo, up := q[0], q[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	n := len(s) - len(q) + 1 // candidate starts are [0, n)
	next := [2]int{-2, -2}   // next start of lo and of up: -2 unknown, -1 none
	for pos := 0; pos < n; {
		best := -1
		for k, c := range [2]byte{lo, up} {
			if k == 1 && up == lo {
				break
			}
			if next[k] != -1 && next[k] < pos {
				if j := bytes.IndexByte(s[pos:n], c); j >= 0 {
					next[k] = pos + j
				} else {
					next[k] = -1
				}
			}
			if next[k] >= 0 && (best < 0 || next[k] < best) {
				best = next[k]
			}
		}
		if best < 0 {
			return false
		}
		if equalFoldASCII(s[best+1:best+len(q)], q[1:]) {
			return true
		}
		pos = best + 1
	}
	return false
}

// equalFoldASCII reports whether ASCII s equals the lower-case q but for
// the case of s.
func equalFoldASCII(s, q []byte) bool {
	for j, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != q[j] {
			return false
		}
	}
	return true
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ---- describe --------------------------------------------------------------

type describeArgs struct {
	Path      string `json:"path"`
	Sheet     string `json:"sheet"`
	HeaderRow int    `json:"header-row"`
}

type columnInfo struct {
	Column   string         `json:"column"`
	Header   any            `json:"header"`
	Type     string         `json:"type"`
	NonEmpty int            `json:"non_empty"`
	Types    map[string]int `json:"types,omitempty"`
	Examples []any          `json:"examples"`
	// Min and Max span the column's numbers, or its dates and times when
	// it holds no numbers (ISO text sorts in time order).
	Min any `json:"min,omitempty"`
	Max any `json:"max,omitempty"`
	// Formulas counts the column's formula cells.
	Formulas int `json:"formulas,omitempty"`

	counts       [workbook.KindDuration + 1]int
	lo, hi       workbook.Value
	loNum, hiNum float64
	when         [2]string // earliest and latest date or time
}

// observe folds one non-empty value into the column's range.
func (ci *columnInfo) observe(c workbook.Value) {
	switch c.Kind {
	case workbook.KindInt, workbook.KindFloat:
		f := c.Float64()
		if ci.lo.Kind == workbook.KindEmpty || f < ci.loNum {
			ci.lo, ci.loNum = c, f
		}
		if ci.hi.Kind == workbook.KindEmpty || f > ci.hiNum {
			ci.hi, ci.hiNum = c, f
		}
	case workbook.KindDateTime, workbook.KindDate, workbook.KindTime:
		if ci.when[0] == "" || c.Str < ci.when[0] {
			ci.when[0] = c.Str
		}
		if c.Str > ci.when[1] {
			ci.when[1] = c.Str
		}
	}
}

// finishRange sets Min and Max.
func (ci *columnInfo) finishRange() {
	switch {
	case ci.lo.Kind != workbook.KindEmpty:
		ci.Min, ci.Max = ci.lo.JSON(), ci.hi.JSON()
	case ci.when[0] != "":
		ci.Min, ci.Max = ci.when[0], ci.when[1]
	}
}

func describe(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a describeArgs
	w, sh, err := bindSheet(req, &a, &a.Path, &a.Sheet)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	var cols []*columnInfo
	headerRow, dataRows := 0, 0
	col := func(i int) *columnInfo {
		for len(cols) <= i {
			cols = append(cols, &columnInfo{Column: workbook.ColumnName(len(cols) + 1), Header: nil,
				Examples: []any{}})
		}
		return cols[i]
	}
	hd := &header{explicit: a.HeaderRow > 0, load: func() ([]mergedRange, error) { return sheetMerges(ctx, w, sh) }}
	headerDone := false
	finishHeader := func() error {
		headerDone = true
		if err := hd.finish(); err != nil {
			return err
		}
		headerRow = hd.first
		for i, v := range hd.labels() {
			col(i).Header = v.JSON()
		}
		return nil
	}
	st, err := w.Stream(ctx, sh, &workbook.StreamOptions{Formulas: true, FormulaMarks: true, Borrow: true, Compute: newComputer(ctx, w).forSheet(sh.Name)}, progress(req, sh.Name, func(r workbook.Row) error {
		if !headerDone && hd.first > 0 {
			in, err := hd.next(r)
			if err != nil {
				return err
			}
			if in {
				return nil
			}
			if err := finishHeader(); err != nil {
				return err
			}
		}
		if headerRow == 0 && (a.HeaderRow == 0 || r.Num >= a.HeaderRow) {
			headerRow = r.Num
			if a.HeaderRow == 0 || r.Num == a.HeaderRow {
				hd.begin(r)
				return nil
			}
			headerDone = true
		}
		if headerRow == 0 {
			return nil
		}
		dataRows++
		for i, f := range r.Formulas {
			if f != "" {
				col(i).Formulas++
			}
		}
		for i, c := range r.Cells {
			ci := col(i)
			if c.IsEmpty() {
				continue
			}
			ci.NonEmpty++
			ci.counts[c.Kind]++
			ci.observe(c)
			if len(ci.Examples) < 3 {
				v := c.JSON()
				dup := false
				for _, e := range ci.Examples {
					if e == v {
						dup = true
					}
				}
				if !dup {
					ci.Examples = append(ci.Examples, c.Owned().JSON())
				}
			}
		}
		return nil
	}))
	if err != nil {
		return nil, workbookError(a.Path, err)
	}
	if hd.first > 0 && !headerDone {
		if err := finishHeader(); err != nil {
			return nil, workbookError(a.Path, err)
		}
	}
	out := make([]columnInfo, len(cols))
	formulaCols := 0
	for i, c := range cols {
		if c.Formulas > 0 {
			formulaCols++
		}
		c.Types = map[string]int{}
		for k, n := range c.counts {
			if n > 0 {
				c.Types[workbook.ValueKind(k).String()] = n
			}
		}
		c.Type = inferType(c.Types)
		c.finishRange()
		if len(c.Types) <= 1 {
			c.Types = nil
		}
		out[i] = *c
	}
	return &sdk.Result{Data: map[string]any{"sheet": sh.Name, "header_row": headerRow, "data_rows": dataRows,
		"used_range": st.UsedRange, "formula_columns": formulaCols, "columns": out}}, nil
}

// inferType names a column's type: the one kind of its values, "number"
// when integers and decimals mix, "mixed" otherwise, "empty" when none.
func inferType(kinds map[string]int) string {
	switch len(kinds) {
	case 0:
		return "empty"
	case 1:
		for k := range kinds {
			return k
		}
	}
	if len(kinds) == 2 && kinds["integer"] > 0 && kinds["number"] > 0 {
		return "number"
	}
	return "mixed"
}
