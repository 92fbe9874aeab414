//go:build unix

package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// depsLine matches the Debian-packages step a make target runs.
var depsLine = regexp.MustCompile(`(?m)^sh scripts/debian-deps\.sh.*$`)

// TestMakeRunInstallsOnlyWhatRunningNeeds runs the Debian-packages step of
// `make run` and of `make deps` (what `make test` calls) on a system where
// nothing is installed — dpkg-query, apt-get and id are stand-ins on PATH
// that report nothing installed, record what apt-get was asked for, and
// say root — and reads what each would install and what it told the
// person: `make run` asks for what running needs and names each package
// with why; the test-only packages come with `make deps` alone.
func TestMakeRunInstallsOnlyWhatRunningNeeds(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	fake := t.TempDir()
	log := filepath.Join(fake, "apt-get.log")
	for name, body := range map[string]string{
		"dpkg-query": "exit 1\n",
		"id":         "echo 0\n",
		"apt-get":    "echo \"$@\" >>" + log + "\n",
	} {
		must(t, os.WriteFile(filepath.Join(fake, name), []byte("#!/bin/sh\n"+body), 0o755))
	}
	run := debianList(t, "debian-packages.txt")
	testOnly := debianList(t, "debian-packages-test.txt")
	for _, p := range []string{"nginx-light", "python3-grpc-tools"} {
		if !slices.Contains(testOnly, p) || slices.Contains(run, p) {
			t.Fatalf("%s should be listed in scripts/debian-packages-test.txt only (run: %v, test: %v)", p, run, testOnly)
		}
	}
	for _, tt := range []struct {
		target string
		want   []string
	}{
		{"run", run},
		{"deps", append(append([]string{}, run...), testOnly...)},
	} {
		t.Run(tt.target, func(t *testing.T) {
			stamps := t.TempDir()
			// -n prints the target's commands; the stamps in a new folder
			// make the packages step due.
			plan := exec.Command("make", "-n", "--no-print-directory", tt.target,
				"DEPS_RUN_STAMP="+filepath.Join(stamps, "run"), "DEPS_STAMP="+filepath.Join(stamps, "all"))
			plan.Dir = repoRoot
			out, err := plan.CombinedOutput()
			if err != nil {
				t.Fatalf("make -n %s: %v\n%s", tt.target, err, out)
			}
			steps := depsLine.FindAllString(string(out), -1)
			if len(steps) == 0 {
				t.Fatalf("make %s runs no scripts/debian-deps.sh step:\n%s", tt.target, out)
			}
			_ = os.Remove(log)
			var told strings.Builder
			for _, step := range steps {
				cmd := exec.Command("sh", "-c", step)
				cmd.Dir = repoRoot
				cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
				o, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", step, err, o)
				}
				told.Write(o)
			}
			calls, err := os.ReadFile(log)
			must(t, err)
			var installed []string
			for _, line := range strings.Split(string(calls), "\n") {
				if f := strings.Fields(line); slices.Contains(f, "install") {
					for _, a := range f {
						if !strings.HasPrefix(a, "-") && a != "install" {
							installed = append(installed, a)
						}
					}
				}
			}
			slices.Sort(installed)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(installed, want) {
				t.Errorf("make %s installs %v, want %v", tt.target, installed, want)
			}
			for _, p := range tt.want {
				// Each package named on a line of its own with the reason
				// its list gives.
				if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p) + `: \S`).MatchString(told.String()) {
					t.Errorf("make %s does not say it installs %s and why:\n%s", tt.target, p, told.String())
				}
			}
		})
	}
}
