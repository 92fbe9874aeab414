package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// profile is the shape `go test -coverprofile` writes (set mode): two tests
// that reach different blocks of one file, and one block no test runs.
const profileA = `mode: set
example.com/p/f.go:3.20,5.2 1 1
example.com/p/f.go:7.10,9.3 2 0
example.com/p/g.go:1.1,1.30 1 1
`

const profileB = `mode: set
example.com/p/f.go:3.20,5.2 1 0
example.com/p/f.go:7.10,9.3 2 1
`

func TestCoverageSelectsTheTestsThatReachAMutant(t *testing.T) {
	cov := coverOf(t, map[string]string{"TestA": profileA, "TestB": profileB})
	tests := []struct {
		name      string
		file      string
		line, col int
		want      []string
	}{
		{"inside A's block", "pkg/f.go", 4, 1, []string{"TestA"}},
		{"block's first column", "pkg/f.go", 3, 20, []string{"TestA"}},
		{"before the block", "pkg/f.go", 3, 19, nil},
		{"block's last column", "pkg/f.go", 5, 2, []string{"TestA"}},
		{"after the block", "pkg/f.go", 5, 3, nil},
		{"a block only B runs", "pkg/f.go", 8, 40, []string{"TestB"}},
		{"same position, other file", "pkg/h.go", 4, 1, nil},
		{"other file", "pkg/g.go", 1, 15, []string{"TestA"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cov.tests(mutant{file: tt.file, kind: "INVERT_LOGICAL", line: tt.line, col: tt.col}, span{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("tests reaching %s:%d:%d (-want +got):\n%s", tt.file, tt.line, tt.col, diff)
			}
		})
	}
}

func TestRunPatternMatchesExactlyTheNamedTests(t *testing.T) {
	re := regexp.MustCompile(runPattern([]string{"TestA", "TestCall"}))
	for name, want := range map[string]bool{"TestA": true, "TestCall": true, "TestCallSlow": false, "TestAB": false, "XTestA": false} {
		if got := re.MatchString(name); got != want {
			t.Errorf("pattern %s matches %s: got %v, want %v", re, name, got, want)
		}
	}
}

func TestParseProfileRefusesABadLine(t *testing.T) {
	_, err := parseProfile([]byte("mode: set\nf.go:3.20 1\n"))
	if err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("got %v, want an error naming the bad line", err)
	}
}

// caseSrc is a tagless switch: the cover tool counts the function's entry
// block and each case body, never the case expressions themselves.
const caseSrc = `package p

func f(a int) int {
	switch {
	case a > 1:
		return 1
	case a < 0:
		return 2
	}
	return 0
}

func g() int { return 3 }
`

func TestCaseExpressionsAreReachedByTheTestsThatEnterTheFunction(t *testing.T) {
	// TestF calls f (entry block 3.19,4.9 and the first case body);
	// TestG calls only g.
	profF := "mode: set\nexample.com/p/c.go:3.19,4.9 1 1\nexample.com/p/c.go:5.13,6.11 1 1\nexample.com/p/c.go:7.13,8.11 1 0\nexample.com/p/c.go:10.2,10.10 1 0\n"
	profG := "mode: set\nexample.com/p/c.go:3.19,4.9 1 0\nexample.com/p/c.go:13.16,13.25 1 1\n"
	cov := coverOf(t, map[string]string{"TestF": profF, "TestG": profG})
	for _, tt := range []struct {
		name      string
		line, col int
		want      []string
	}{
		{"second case expression", 7, 9, []string{"TestF"}},
		{"first case expression", 5, 9, []string{"TestF"}},
		{"inside g", 13, 23, []string{"TestG"}},
		{"inside a case body no test runs", 8, 5, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fn := enclosingFunc("c.go", []byte(caseSrc), tt.line, tt.col)
			got := cov.tests(mutant{file: "pkg/c.go", kind: "CONDITIONALS_NEGATION", line: tt.line, col: tt.col}, fn)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("tests reaching %d:%d (-want +got):\n%s", tt.line, tt.col, diff)
			}
		})
	}
	if fn := enclosingFunc("c.go", []byte(caseSrc), 1, 1); fn.valid() {
		t.Fatalf("the package clause is in function %+v", fn)
	}
}

// coverOf parses each test's coverage profile, keyed by the test's name.
func coverOf(t *testing.T, profiles map[string]string) coverage {
	t.Helper()
	cov := coverage{}
	for name, p := range profiles {
		bs, err := parseProfile([]byte(p))
		if err != nil {
			t.Fatal(err)
		}
		cov[name] = bs
	}
	return cov
}

func TestLimitIsSetFromTheUnmutatedRun(t *testing.T) {
	took := durations{"TestA": 2 * time.Second, "TestB": 30 * time.Second}
	tests := []struct {
		name  string
		tests []string
		want  time.Duration
	}{
		{"one test", []string{"TestB"}, 300 * time.Second},
		{"the tests' sum", []string{"TestA", "TestB"}, 320 * time.Second},
		{"a quick test gets the floor", []string{"TestA"}, time.Minute},
		{"a test not measured counts nothing", []string{"TestC"}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := took.limit(tt.tests, 10, time.Minute); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}
