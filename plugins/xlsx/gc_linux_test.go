//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// gcLine is one collection of GODEBUG=gctrace=1: the heap live after it
// and the goal it ran to (MB).
var gcLine = regexp.MustCompile(`(?m)^gc (\d+) @.* (\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

// collections runs the plugin binary in CLI mode with the collector traced
// and returns each collection's goal and live heap, in MB.
func collections(t *testing.T, dir string, env []string, args ...string) (goals, live []int) {
	t.Helper()
	bin := filepath.Join(binaries(t), "plugins", "xlsx", "xlsx")
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "GODEBUG=gctrace=1")...)
	out, stderr, code := testplugin.Run(t, cmd)
	if code != 0 {
		t.Fatalf("xlsx %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, stderr)
	}
	for _, m := range gcLine.FindAllStringSubmatch(string(stderr), -1) {
		l, _ := strconv.Atoi(m[4])
		g, _ := strconv.Atoi(m[5])
		goals, live = append(goals, g), append(live, l)
	}
	return goals, live
}

// TestCLIDefersTheFirstCollection: a CLI read of a mid-size sheet (a few
// megabytes allocated) runs no collection at all — at the runtime's 4 MB
// start it paid one, a tenth of the call's CPU — and a large read, after
// its first collection at 16 MB, collects as GOGC 100 does (goal twice the
// live heap, give or take the stacks and globals the runtime adds), so its
// memory stays the default's.
func TestCLIDefersTheFirstCollection(t *testing.T) {
	files := allowCorpus(t)
	mid := []string{"records", "--path", "sheetjs__large_strings.xlsx", "--sheet", "longwordslist", "--max-results", "100000"}
	if goals, _ := collections(t, files, nil, mid...); len(goals) != 0 {
		t.Errorf("records of the 17,619-row sheet ran %d collections (goals %v MB), want none", len(goals), goals)
	}
	// GOGC=50: the read now allocates close to the 4 MB at which GOGC=100
	// collects first (round 6 made it leaner), so 100 ran one collection
	// or none from run to run; at 50 the first comes at 2 MB, and the check
	// still tells a GOGC the person set from the 400 the CLI would set.
	if goals, _ := collections(t, files, []string{"GOGC=50"}, mid...); len(goals) == 0 {
		t.Errorf("with GOGC=50 set the same read ran no collection: the person's GOGC is not honoured, or the read no longer allocates enough to test this")
	}

	dir := allowDir(t)
	var sheet strings.Builder
	sheet.WriteString(sheetHead + "<sheetData>")
	for r := 1; r <= 15000; r++ {
		fmt.Fprintf(&sheet, `<row r="%d">`, r)
		for c := range 6 {
			fmt.Fprintf(&sheet, `<c r="%c%d" t="inlineStr"><is><t>cell %d of row %d, every one a match</t></is></c>`, 'A'+c, r, c, r)
		}
		sheet.WriteString("</row>")
	}
	sheet.WriteString("</sheetData></worksheet>")
	writeZip(t, filepath.Join(dir, "big.xlsx"), minimalParts(sheet.String()))
	goals, live := collections(t, dir, nil, "search", "--path", "big.xlsx", "--query", "match", "--max-results", "1000000")
	t.Logf("collections of the large search: goals %v MB, live after %v MB", goals, live)
	if len(goals) < 3 {
		t.Fatalf("search of 90,000 matching cells ran %d collections (goals %v MB), want several", len(goals), goals)
	}
	if goals[0] < 15 {
		t.Errorf("first collection at a %d MB goal, want 16 MB", goals[0])
	}
	for i := 2; i < len(goals); i++ { // the reset lands just after the first
		// GOGC 400 would give five times; the pacer may lift a goal a
		// little past twice while a cycle runs behind.
		if goals[i] > 3*live[i-1]+4 {

			t.Errorf("collection %d ran to a %d MB goal after %d MB live: want about GOGC 100's twice the live heap after the first, not GOGC 400's five times", i+1, goals[i], live[i-1])
		}
	}
}
