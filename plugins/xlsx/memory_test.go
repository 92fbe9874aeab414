package main

import (
	"context"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

// setMemoryEnv sets the memory variables for one test and makes the plugin
// read them again, restoring the defaults afterwards.
func setMemoryEnv(t *testing.T, budget, concurrency string) {
	t.Helper()
	t.Setenv(maxMemoryEnv, budget)
	t.Setenv(maxConcurrencyEnv, concurrency)
	memOnce = sync.Once{}
	t.Cleanup(func() {
		memOnce = sync.Once{}
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// manyStrings writes a workbook whose shared-string table holds n
// one-character strings (declaring uniqueCount when declare is set) — the
// shape of issue 12's 84 MB file of 60 M strings, which grew the process to
// 1.88 GB — with a sheet using the first and the last.
func manyStrings(t *testing.T, dir string, n int, declare bool) string {
	t.Helper()
	var sst strings.Builder
	sst.WriteString(`<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`)
	if declare {
		sst.WriteString(` uniqueCount="` + itoa(n) + `"`)
	}
	sst.WriteString(`>`)
	for i := range n {
		sst.WriteString(`<si><t>` + string(rune('a'+i%26)) + `</t></si>`)
	}
	sst.WriteString(`</sst>`)
	parts := minimalParts(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>` + itoa(n-1) + `</v></c></row></sheetData></worksheet>`)
	parts[3][1] = strings.Replace(parts[3][1], `</Relationships>`,
		`<Relationship Id="rId9" Type="`+relNS+`sharedStrings" Target="sharedStrings.xml"/></Relationships>`, 1)
	parts = append(parts, [2]string{"xl/sharedStrings.xml", sst.String()})
	name := "strings-" + itoa(n)
	if declare {
		name += "-declared"
	}
	p := filepath.Join(dir, name+".xlsx")
	writeZip(t, p, parts)
	return p
}

func TestMemoryBudget(t *testing.T) {
	dir := allowDir(t)
	const n = 100_000 // 100,000 strings: 1.6 MB of headers alone
	files := map[bool]string{false: manyStrings(t, dir, n, false), true: manyStrings(t, dir, n, true)}
	tests := []struct {
		name, budget string
		declare      bool
		code         sdk.Code
		msg          string
		rows         string
	}{
		{"within the default budget", "", false, "", "", `[["a","d"]]`},
		{"declared count over the budget: refused before reading", "1MiB", true, codeWorkbookTooLarge, "it declares 100000 strings, whose headers alone take 1 MiB", ""},
		{"undeclared: refused while reading", "1MiB", false, codeWorkbookTooLarge, "expands far beyond the file in memory: after", ""},
		{"a larger budget reads it", "16MB", true, "", "", `[["a","d"]]`},
		{"a malformed budget", "lots", false, codeInvalidConfig, `XLSX_MAX_MEMORY="lots"`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setMemoryEnv(t, tc.budget, "")
			p := files[tc.declare]
			out, e := call(t, "read-sheet", map[string]any{"path": p})
			if tc.code != "" {
				if e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
					t.Fatalf("got %v (%v), want %s with %q", e, out, tc.code, tc.msg)
				}
				if tc.code == codeWorkbookTooLarge && !strings.Contains(e.NextStep, maxMemoryEnv+"=1048576") {
					t.Errorf("next_step %q does not name the budget", e.NextStep)
				}
				return
			}
			if e != nil {
				t.Fatalf("got %v, want rows", e)
			}
			if got := toJSON(out["rows"]); got != tc.rows {
				t.Errorf("rows = %s, want %s", got, tc.rows)
			}
		})
	}
}

// TestMemoryBudgetEverySheet checks that a refused table is not read as a
// partial one by the next sheet of the same call.
func TestMemoryBudgetEverySheet(t *testing.T) {
	dir := allowDir(t)
	setMemoryEnv(t, "1MiB", "")
	p := manyStrings(t, dir, 100_000, false)
	out := mustCall(t, "list-sheets", map[string]any{"path": p})
	// list-sheets does not need the strings; search does.
	if got := toJSON(out["sheets"]); !strings.Contains(got, `"data_rows":1`) {
		t.Errorf("sheets = %s", got)
	}
	if _, e := call(t, "search", map[string]any{"path": p, "query": "a"}); e == nil || e.Code != codeWorkbookTooLarge {
		t.Errorf("search: got %v, want workbook_too_large", e)
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"268435456", 268435456, true},
		{"256MiB", 256 << 20, true},
		{"256 MB", 256e6, true},
		{"1GiB", 1 << 30, true},
		{"512k", 512 << 10, true},
		{"0", 0, false},
		{"-5MB", 0, false},
		{"1.5GB", 0, false},
		{"99999999999GiB", 0, false},
	}
	for _, tc := range tests {
		got, err := parseBytes(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestConcurrencyLimit checks that with XLSX_MAX_CONCURRENCY=1 a second call
// waits while the first runs: given up, it ends cancelled without running.
func TestConcurrencyLimit(t *testing.T) {
	setMemoryEnv(t, "", "1")
	entered, release := make(chan struct{}), make(chan struct{})
	runs := 0
	h := limited(func(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
		runs++
		entered <- struct{}{}
		<-release
		return &sdk.Result{}, nil
	})
	req, err := sdk.NewRequest("read-sheet", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := h(context.Background(), req)
		done <- err
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h(ctx, req); err == nil || !strings.Contains(err.Error(), "waiting for a free reader") {
		t.Errorf("second call while the first runs: got %v, want cancelled while waiting", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	go func() { <-entered }()
	if _, err := h(context.Background(), req); err != nil {
		t.Errorf("a call after the first ended: %v", err)
	}
	if runs != 2 {
		t.Errorf("handler ran %d times, want 2", runs)
	}
}
