// Command mutants re-runs chosen mutants from a gremlins report against one
// package's own tests, one at a time, in place: a fixed-seed random sample
// of the runnable mutants (for a package whose suite is too slow to run them
// all), or the mutants that lived (to show new tests now kill them).
//
// It applies the same token swaps as gremlins v0.6.0 for the operators
// `make mutate` enables, restores every file it changed (also on Ctrl-C),
// and prints one line per mutant and the efficacy (killed over killed plus
// lived, as gremlins counts it). Usage (see testdata/mutate.md):
//
//	go run ./internal/mutants -report R.json [-status LIVED] [-sample N -seed S [-skip K]] [-select] PKG
//
// -select runs, for each mutant, only the tests that reach its line: each
// top-level test is run alone once, unmutated, with coverage, and a mutant
// on a line a test never executes cannot change what that test sees. This
// is what makes a package whose whole suite takes minutes (the supervisor's
// real plugins, crash storms and resource ceilings) affordable to mutate.
// With -select a mutant's time limit is set, as gremlins sets it, from the
// unmutated run: -timeout-coefficient times what its tests took alone (at
// least -timeout); a mutant that passes it is run once more at twice the
// limit, and only a second time-out counts, so "timed out" is a hang and
// not a loaded machine.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// swaps maps a gremlins mutant type to the operator it replaces and with what.
var swaps = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR,
		token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT": {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_LOGICAL":      {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_NEGATIVES":    {token.SUB: token.ADD},
}

// report is the part of gremlins' `-o` JSON this command reads.
type report struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// mutant is one operator swap at a file position.
type mutant struct {
	file, kind string
	line, col  int
}

func (m mutant) String() string { return fmt.Sprintf("%s %s:%d:%d", m.kind, m.file, m.line, m.col) }

func main() { os.Exit(command()) }

// command is the whole command; it returns the exit code, so that the temporary
// folders it makes are removed on every way out.
func command() int {
	reportPath := flag.String("report", "", "gremlins JSON report (unleash -o, or --dry-run -o for the runnable list)")
	status := flag.String("status", "RUNNABLE", "take the report's mutants with these statuses, comma-separated (RUNNABLE, LIVED, NOT COVERED, ...)")
	sample := flag.Int("sample", 0, "run a random sample of this many (0: all chosen)")
	seed := flag.Uint64("seed", 1, "seed of the sample")
	skip := flag.Int("skip", 0, "leave out the first N chosen (in the sample's order): resume a run stopped after N")
	timeout := flag.Duration("timeout", 10*time.Minute, "per-mutant test time limit (counts as TIMED OUT); with -select, the least limit")
	coef := flag.Float64("timeout-coefficient", 10, "with -select, a mutant's time limit is this times what its tests took unmutated (at least -timeout)")
	run := flag.String("run", "", "go test -run pattern (empty: all the package's tests)")
	sel := flag.Bool("select", false, "run, for each mutant, only the tests whose coverage (measured once, unmutated, test by test) reaches its line; a mutant no test reaches is NOT COVERED")
	plan := flag.Bool("plan", false, "print which tests each chosen mutant would run, and run nothing")
	flag.Parse()
	if *reportPath == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mutants -report R.json [-status S] [-sample N -seed S] ./PKG")
		return 2
	}
	ms, err := load(*reportPath, *status, flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 1
	}
	ms = choose(ms, *sample, *seed, *skip)
	if *sel && *run != "" {
		fmt.Fprintln(os.Stderr, "mutants: -select chooses the tests itself; drop -run")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, cleanup, err := sandboxEnv(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 1
	}
	defer cleanup()
	var (
		cov  coverage
		took durations
	)
	if *sel {
		dir, err := os.MkdirTemp("", "mutants-cover-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		if cov, took, err = measure(ctx, flag.Arg(0), dir, env); err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			return 1
		}
		fmt.Printf("measured the coverage of %d tests\n", len(cov))
	}
	counts := map[string]int{}
	for _, m := range ms {
		pattern, note, limit := *run, "", *timeout
		if cov != nil {
			src, err := os.ReadFile(m.file)
			if err != nil {
				fmt.Fprintln(os.Stderr, "mutants:", err)
				return 1
			}
			ts := cov.tests(m, enclosingFunc(m.file, src, m.line, m.col))
			if len(ts) == 0 {
				counts["NOT COVERED"]++
				fmt.Printf("%-10s %s (no test reaches it in the test process)\n", "NOT COVERED", m)
				continue
			}
			pattern, note = runPattern(ts), fmt.Sprintf(" (%d tests)", len(ts))
			limit = took.limit(ts, *coef, *timeout)
		}
		if *plan {
			fmt.Printf("PLAN       %s%s %s\n", m, note, pattern)
			continue
		}
		start := time.Now()
		st, why, err := try(ctx, m, flag.Arg(0), pattern, limit, env)
		if err == nil && st == "TIMED OUT" {
			// A hang hangs again; a run the machine's load slowed does
			// not. Only a second time-out, at twice the limit, counts.
			if st, why, err = try(ctx, m, flag.Arg(0), pattern, 2*limit, env); err == nil {
				why += fmt.Sprintf(" (timed out at %s, re-run with %s)", limit, 2*limit)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			return 1
		}
		why += fmt.Sprintf(" [%s]", time.Since(start).Round(time.Second))
		counts[st]++
		fmt.Printf("%-10s %s%s%s\n", st, m, note, why)
	}
	if *plan {
		return 0
	}
	k, l := counts["KILLED"], counts["LIVED"]
	eff := 0.0
	if k+l > 0 {
		eff = 100 * float64(k) / float64(k+l)
	}
	fmt.Printf("ran %d of the report's %s mutants: killed %d, lived %d, timed out %d, not viable %d, not covered %d; efficacy %.2f%%\n",
		len(ms), *status, k, l, counts["TIMED OUT"], counts["NOT VIABLE"], counts["NOT COVERED"], eff)
	return 0
}

// choose is the mutants to run: with sample > 0 the first sample of
// seed's shuffle (shuffled), and then all but the first skip, so a run
// stopped after k mutants is resumed with -skip k.
func choose(ms []mutant, sample int, seed uint64, skip int) []mutant {
	if sample > 0 {
		ms = shuffled(ms, sample, seed)
	}
	return ms[min(skip, len(ms)):]
}

// shuffled is the first n of ms in seed's random order (all of them when n
// is at least their number). The order is run as it is: a run stopped early
// is still a random sample (the first k of this seed's order), and a larger
// n extends a smaller one's sample.
func shuffled(ms []mutant, n int, seed uint64) []mutant {
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	return ms[:min(n, len(ms))]
}

// load reads the report and keeps the mutants in files of the package
// directory pkg whose status is one of status's comma-separated ones.
func load(path, status, pkg string) ([]mutant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read report %s: %w", path, err)
	}
	var ms []mutant
	for _, f := range r.Files {
		file := filepath.Join(pkg, filepath.Base(f.Name))
		for _, m := range f.Mutations {
			if slices.Contains(strings.Split(status, ","), m.Status) {
				ms = append(ms, mutant{file: file, kind: m.Type, line: m.Line, col: m.Column})
			}
		}
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("read report %s: no %s mutants in %s", path, status, pkg)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].String() < ms[j].String() })
	return ms, nil
}

// try applies m, runs the package's tests, restores the file and says
// what became of the mutant; for a killed one, why names the first test
// that failed and its first line of output, to tell a real kill from a
// test that failed for the machine's load.
func try(ctx context.Context, m mutant, pkg, run string, timeout time.Duration, env []string) (status, why string, err error) {
	orig, err := os.ReadFile(m.file)
	if err != nil {
		return "", "", fmt.Errorf("apply %s: %w", m, err)
	}
	mutated, err := apply(orig, m)
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(m.file, mutated, 0o644); err != nil {
		return "", "", fmt.Errorf("apply %s: %w", m, err)
	}
	defer os.WriteFile(m.file, orig, 0o644)
	tctx, cancel := context.WithTimeout(ctx, timeout+time.Minute) // go test's own -timeout ends it first
	defer cancel()
	args := []string{"test", "-count=1", "-failfast", "-timeout", timeout.String()}
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := exec.CommandContext(tctx, "go", append(args, pkg)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", "", fmt.Errorf("run %s: interrupted", m)
	case err == nil:
		return "LIVED", "", nil
	case errors.Is(tctx.Err(), context.DeadlineExceeded) || strings.Contains(out.String(), "panic: test timed out"):
		return "TIMED OUT", "", nil
	case strings.Contains(out.String(), "[build failed]") || strings.Contains(out.String(), "[setup failed]"):
		return "NOT VIABLE", "", nil
	}
	return "KILLED", firstFailure(out.String()), nil
}

// sandboxEnv is the environment the tests run in: this one with HOME and
// the XDG folders in a temporary folder, so a mutant that drops an
// option's given folder for its default (a state or cache folder under
// the home) writes there and not into the user's own; the Go build and
// module caches stay where they are. cleanup removes the folder.
func sandboxEnv(ctx context.Context) (env []string, cleanup func(), err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: go env: %w", err)
	}
	goenv := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(goenv) != 4 {
		return nil, nil, fmt.Errorf("sandbox: go env printed %q", out)
	}
	home, err := os.MkdirTemp("", "mutants-home-")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	env = append(os.Environ(), "GOCACHE="+goenv[0], "GOMODCACHE="+goenv[1], "GOPATH="+goenv[2], "GOENV="+goenv[3],
		"HOME="+home)
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"} {
		env = append(env, v+"="+filepath.Join(home, strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(v, "XDG_"), "_HOME"))))
	}
	return env, func() { os.RemoveAll(home) }, nil
}

// firstFailure is " by TestX: <its first line of output>" for go test
// output holding a failed test, else "".
func firstFailure(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		name, ok := strings.CutPrefix(strings.TrimSpace(l), "--- FAIL: ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		if i+1 < len(lines) {
			return fmt.Sprintf(" by %s: %s", name, strings.TrimSpace(lines[i+1]))
		}
		return " by " + name
	}
	return ""
}

// apply swaps the operator token at m's position, refusing a position
// whose token the mutant type does not swap.
func apply(src []byte, m mutant) ([]byte, error) {
	fset := token.NewFileSet()
	f := fset.AddFile(m.file, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return nil, fmt.Errorf("apply %s: no operator at that position", m)
		}
		p := fset.Position(pos)
		if p.Line != m.line || p.Column != m.col {
			continue
		}
		to, ok := swaps[m.kind][tok]
		if !ok {
			return nil, fmt.Errorf("apply %s: %s is not swapped by %s", m, tok, m.kind)
		}
		off := p.Offset
		out := append([]byte{}, src[:off]...)
		out = append(out, to.String()...)
		return append(out, src[off+len(tok.String()):]...), nil
	}
}
