package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// block is one block of a coverage profile: from start to end (line and
// column, inclusive) in the file named by its base name; ran says the test
// executed it.
type block struct {
	file                     string
	line0, col0, line1, col1 int
	ran                      bool
}

// contains says whether the position line:col lies inside b.
func (b block) contains(file string, line, col int) bool {
	if b.file != file {
		return false
	}
	after := line > b.line0 || line == b.line0 && col >= b.col0
	before := line < b.line1 || line == b.line1 && col <= b.col1
	return after && before
}

// coverage maps each top-level test of a package to its profile's blocks.
type coverage map[string][]block

// durations maps each top-level test of a package to how long it took,
// run alone and unmutated: a mutant's time limit is set from the tests it
// runs, so "timed out" means a hang, not a slow machine.
type durations map[string]time.Duration

// limit is the time limit for running tests: coef times what they took
// unmutated, and never under floor (a test binary's start and a loaded
// machine's scheduling are not in a short test's figure).
func (d durations) limit(tests []string, coef float64, floor time.Duration) time.Duration {
	var sum time.Duration
	for _, t := range tests {
		sum += d[t]
	}
	return max(time.Duration(coef*float64(sum)), floor)
}

// tests names the tests that ran a block holding m's position, sorted; a
// position inside a block no test ran is reached by none. A position in
// no block at all (a tagless switch's case expression, or the rest of a
// statement after a func literal inside it: the cover tool counts neither)
// is reached by any test that ran some block of the function around it,
// from its start to the position: fn is that function's span, from
// enclosingFunc.
func (c coverage) tests(m mutant, fn span) []string {
	file := filepath.Base(m.file)
	inBlock := false
	for _, bs := range c {
		for _, b := range bs {
			if b.contains(file, m.line, m.col) {
				inBlock = true
			}
		}
	}
	var out []string
	for name, bs := range c {
		for _, b := range bs {
			reached := b.ran && b.contains(file, m.line, m.col)
			if !inBlock && fn.valid() {
				reached = b.ran && b.file == file && fn.holds(b.line0, b.col0) && (b.line0 < m.line || b.line0 == m.line && b.col0 <= m.col)
			}
			if reached {
				out = append(out, name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// span is a range of a file, by line and column; the zero span is none.
type span struct{ line0, col0, line1, col1 int }

func (s span) valid() bool { return s.line0 > 0 }

// holds says whether line:col lies inside s.
func (s span) holds(line, col int) bool {
	return (line > s.line0 || line == s.line0 && col >= s.col0) && (line < s.line1 || line == s.line1 && col <= s.col1)
}

// enclosingFunc is the span of the innermost function (declaration or
// literal) of src around line:col, or the zero span.
func enclosingFunc(name string, src []byte, line, col int) span {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return span{}
	}
	var best span
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			a, b := fset.Position(n.Pos()), fset.Position(n.End())
			s := span{a.Line, a.Column, b.Line, b.Column}
			if s.holds(line, col) {
				best = s // Inspect goes outside in: the last that holds is the innermost
			}
		}
		return true
	})
	return best
}

// runPattern is the go test -run pattern that runs exactly the named
// top-level tests.
func runPattern(tests []string) string {
	q := make([]string, len(tests))
	for i, t := range tests {
		q[i] = regexp.QuoteMeta(t)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// measure builds pkg's test binary with coverage once and runs each of its
// top-level tests alone, recording what each one covers and how long it
// took. A test that fails unmutated makes the whole selection meaningless,
// so it is an error.
func measure(ctx context.Context, pkg, dir string, env []string) (coverage, durations, error) {
	bin, err := filepath.Abs(filepath.Join(dir, "pkg.test"))
	if err != nil {
		return nil, nil, fmt.Errorf("measure %s: %w", pkg, err)
	}
	build := exec.CommandContext(ctx, "go", "test", "-c", "-cover", "-covermode=set", "-o", bin, pkg)
	build.Env = env
	if out, err := build.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("measure %s: build: %w\n%s", pkg, err, out)
	}
	list := exec.CommandContext(ctx, bin, "-test.list", ".")
	list.Dir, list.Env = pkg, env
	out, err := list.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("measure %s: list tests: %w", pkg, err)
	}
	cov, took := coverage{}, durations{}
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasPrefix(name, "Test") {
			continue // examples, benchmarks and fuzz targets are not run per mutant
		}
		prof := filepath.Join(dir, name+".cover")
		// A test that fails unmutated makes the selection meaningless; on a
		// loaded machine a plugin may miss its start-up limit once, so it
		// gets a second run before that is an error.
		var err error
		for try := 0; try < 2; try++ {
			run := exec.CommandContext(ctx, bin, "-test.run", runPattern([]string{name}), "-test.count=1",
				"-test.coverprofile", prof)
			run.Dir, run.Env = pkg, env
			var out []byte
			start := time.Now()
			if out, err = run.CombinedOutput(); err == nil {
				took[name] = time.Since(start)
				break
			}
			err = fmt.Errorf("measure %s: %s fails unmutated: %w\n%s", pkg, name, err, out)
		}
		if err != nil {
			return nil, nil, err
		}
		bs, err := readProfile(prof)
		if err != nil {
			return nil, nil, fmt.Errorf("measure %s: %w", pkg, err)
		}
		cov[name] = bs
	}
	return cov, took, nil
}

// readProfile reads the blocks of a Go coverage profile.
func readProfile(path string) ([]block, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	return parseProfile(b)
}

// parseProfile parses a profile's lines, "file:l0.c0,l1.c1 stmts count";
// a block ran when its count is not 0.
func parseProfile(b []byte) ([]block, error) {
	var out []block
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		colon := strings.LastIndex(line, ":")
		f := strings.Fields(line[colon+1:])
		if colon < 0 || len(f) != 3 {
			return nil, fmt.Errorf("parse profile: bad line %q", line)
		}
		bl := block{ran: f[2] != "0"}
		if _, err := fmt.Sscanf(f[0], "%d.%d,%d.%d", &bl.line0, &bl.col0, &bl.line1, &bl.col1); err != nil {
			return nil, fmt.Errorf("parse profile: bad range in %q: %w", line, err)
		}
		if _, err := strconv.Atoi(f[2]); err != nil {
			return nil, fmt.Errorf("parse profile: bad count in %q: %w", line, err)
		}
		bl.file = filepath.Base(line[:colon])
		out = append(out, bl)
	}
	return out, s.Err()
}
