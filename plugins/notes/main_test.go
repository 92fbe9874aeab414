package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIMode builds the real binary beside a copy of tool.yaml and runs
// actions in plugin CLI mode over a temp brain.
func TestCLIMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "notes")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	yaml, err := os.ReadFile("tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), yaml, 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	brain := filepath.Join(t.TempDir(), "brain")
	run := func(args ...string) (map[string]any, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "NOTES_BRAIN=" + brain}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("run %v: %v", args, err)
		}
		var m map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
			t.Fatalf("%v: stdout is not one JSON object: %v\n%s\nstderr: %s", args, err, stdout.String(), stderr.String())
		}
		return m, code
	}
	m, code := run("remember", "--json", `{"type":"gotcha","content":"The CLI path writes through the same handlers as the host"}`)
	if code != 0 || m["decision"] != "created" {
		t.Fatalf("remember: exit %d, %v", code, m)
	}
	log, err := exec.Command("git", "-C", brain, "log", "-1", "--format=%B").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "Notes-Client: cli") {
		t.Fatalf("commit does not name the cli client:\n%s", log)
	}
	m, code = run("search", "--query", "handlers")
	if code != 0 || len(m["hits"].([]any)) != 1 {
		t.Fatalf("search: exit %d, %v", code, m)
	}
	m, code = run("write-page", "--json", `{"path":"../x.md","content":"x","frontmatter":{"type":"concept"}}`)
	if code != 1 || m["error"].(map[string]any)["code"] != "unsafe_path" {
		t.Fatalf("unsafe write: exit %d, %v", code, m)
	}
}
