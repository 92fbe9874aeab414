package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	src := "package p\n\nfunc f(a, b int) bool { return a < b && -a != b+1 }\n"
	tests := []struct {
		name, kind string
		col        int
		want, err  string
	}{
		{"boundary", "CONDITIONALS_BOUNDARY", 34, "a <= b && -a != b+1", ""},
		{"negation", "CONDITIONALS_NEGATION", 34, "a >= b && -a != b+1", ""},
		{"logical", "INVERT_LOGICAL", 38, "a < b || -a != b+1", ""},
		{"negatives", "INVERT_NEGATIVES", 41, "a < b && +a != b+1", ""},
		{"negation of !=", "CONDITIONALS_NEGATION", 44, "a < b && -a == b+1", ""},
		{"arithmetic", "ARITHMETIC_BASE", 48, "a < b && -a != b-1", ""},
		{"wrong operator for the type", "INVERT_LOGICAL", 34, "", "< is not swapped by INVERT_LOGICAL"},
		{"no token there", "CONDITIONALS_BOUNDARY", 35, "", "no operator at that position"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := apply([]byte(src), mutant{file: "p.go", kind: tt.kind, line: 3, col: tt.col})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), "return "+tt.want+" }") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFirstFailureNamesTheTestAndItsLine(t *testing.T) {
	for _, tt := range []struct{ name, out, want string }{
		{"a failed test", "=== RUN   TestA\n--- FAIL: TestA (0.20s)\n    a_test.go:9: got 1, want 2\nFAIL\n", " by TestA: a_test.go:9: got 1, want 2"},
		{"a subtest's failure is under its parent", "--- FAIL: TestB (1.00s)\n    --- FAIL: TestB/row (0.00s)\n", " by TestB: --- FAIL: TestB/row (0.00s)"},
		{"the last line", "--- FAIL: TestC (0.00s)", " by TestC"},
		{"no failed test (a panic)", "panic: boom\nFAIL\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := firstFailure(tt.out); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestALargerSampleExtendsASmallerOne(t *testing.T) {
	all := func() []mutant {
		var ms []mutant
		for i := 1; i <= 50; i++ {
			ms = append(ms, mutant{file: "p.go", kind: "INVERT_LOGICAL", line: i, col: 1})
		}
		return ms
	}
	small, large, every := shuffled(all(), 10, 1), shuffled(all(), 30, 1), shuffled(all(), 500, 1)
	if len(small) != 10 || len(large) != 30 || len(every) != 50 {
		t.Fatalf("got %d, %d and %d mutants, want 10, 30 and 50", len(small), len(large), len(every))
	}
	for i := range small {
		if small[i] != large[i] || large[i] != every[i] {
			t.Fatalf("mutant %d: got %s, %s and %s, want one mutant: a larger sample must start with the smaller one", i, small[i], large[i], every[i])
		}
	}
	inOrder := 0
	for i := range every {
		if every[i].line == i+1 {
			inOrder++
		}
	}
	if inOrder == len(every) {
		t.Fatal("a sample of all the mutants is in file order, want the seed's shuffled order")
	}
}

// The tests of a mutant run with the home and XDG folders in a temporary
// folder (a mutant that drops a given state folder for its default must
// not write the user's approval key), and the Go caches where they were.
func TestSandboxEnv(t *testing.T) {
	env, cleanup, err := sandboxEnv(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range env { // the last of a name wins, as in exec.Cmd
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	home := got["HOME"]
	if st, err := os.Stat(home); err != nil || !st.IsDir() || home == os.Getenv("HOME") {
		t.Fatalf("HOME=%s (%v): want a new temporary folder", home, err)
	}
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"} {
		if !strings.HasPrefix(got[k], home+string(filepath.Separator)) {
			t.Errorf("%s=%s, want it under %s", k, got[k], home)
		}
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got["GOCACHE"] != want {
		t.Errorf("GOCACHE=%s, want the build cache %s", got["GOCACHE"], want)
	}
	cleanup()
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("%s left after cleanup: %v", home, err)
	}
}

// A run resumed with -skip k runs what the whole run would have run after
// its first k, in the same order.
func TestChooseResumes(t *testing.T) {
	all := func() []mutant {
		var ms []mutant
		for i := range 20 {
			ms = append(ms, mutant{file: "f.go", kind: "CONDITIONALS_NEGATION", line: i + 1, col: 1})
		}
		return ms
	}
	whole := choose(all(), 1000, 1, 0)
	for _, skip := range []int{0, 2, 19, 20, 25} {
		got := choose(all(), 1000, 1, skip)
		want := whole[min(skip, len(whole)):]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("skip %d: got %v, want %v", skip, got, want)
		}
	}
	if got := choose(all(), 0, 1, 3); len(got) != 17 || got[0].line != 4 {
		t.Errorf("no sample, skip 3: got %v, want the report's order from the fourth", got)
	}
}

// TestLoadTakesEachStatusAsked: -status takes several statuses, so the
// mutants gremlins counts NOT COVERED (a case expression is in no block of
// Go's coverage profile) can be judged by -select with the runnable ones.
func TestLoadTakesEachStatusAsked(t *testing.T) {
	report := filepath.Join(t.TempDir(), "dry.json")
	if err := os.WriteFile(report, []byte(`{"files":[{"file_name":"a.go","mutations":[
		{"type":"CONDITIONALS_NEGATION","status":"RUNNABLE","line":3,"column":7},
		{"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":5,"column":9},
		{"type":"INVERT_LOGICAL","status":"LIVED","line":8,"column":2}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		status string
		want   []string
	}{
		{"RUNNABLE", []string{"CONDITIONALS_NEGATION pkg/a.go:3:7"}},
		{"RUNNABLE,NOT COVERED", []string{"CONDITIONALS_NEGATION pkg/a.go:3:7", "CONDITIONALS_NEGATION pkg/a.go:5:9"}},
		{"LIVED", []string{"INVERT_LOGICAL pkg/a.go:8:2"}},
	} {
		ms, err := load(report, tt.status, "pkg")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("-status %s: got %v, want %v", tt.status, got, tt.want)
		}
	}
}
