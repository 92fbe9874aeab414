package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestReleaseArchiveInstallsWithoutGo: the linux/amd64 archive `make
// release` builds, checked against its checksums file and unpacked into
// an empty folder, runs with an empty HOME and no Go on PATH: `toolhost
// version` names the commit, `toolhost approve --shipped` approves the
// shipped plugins and leaves a changed one for a person, `toolhost
// install-client claude-code --print` names the unpacked binary, and a
// real MCP client started from that entry reads a workbook and writes a
// note through it.
func TestReleaseArchiveInstallsWithoutGo(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("builds and runs the linux/amd64 archive")
	}
	node, _ := npmClients(t)
	for _, tool := range []string{"make", "tar", "sha256sum", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			testplugin.Missing(t, tool, "install it (Debian: make, tar, coreutils, git)")
		}
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "plugins", "notes", "model", "node_modules")); err != nil {
		testplugin.Missing(t, "the notes sentence model a release ships", "run `make notes-model`")
	}

	// The archive, as `make release` builds it (one target).
	dist := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	mk := exec.CommandContext(ctx, "make", "-s", "--no-print-directory", "release", "RELEASE_TARGETS=linux/amd64", "RELEASE_OUT="+dist)
	mk.Dir = repoRoot
	mk.Env = withoutMake(os.Environ())
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	sums, _ := filepath.Glob(filepath.Join(dist, "toolhost_*_checksums.txt"))
	archives, _ := filepath.Glob(filepath.Join(dist, "toolhost_*_linux_amd64.tar.gz"))
	if len(sums) != 1 || len(archives) != 1 {
		t.Fatalf("make release wrote %v and %v, want one checksums file and one linux/amd64 archive", sums, archives)
	}
	// The README's check, as written there.
	check := exec.Command("sh", "-c", "grep _linux_amd64.tar.gz "+filepath.Base(sums[0])+" | sha256sum -c")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), filepath.Base(archives[0])+": OK") {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}

	// Unpacked into an empty folder, run with an empty HOME and a PATH
	// without Go.
	where := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", archives[0], "-C", where).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(where, "toolhost_*_linux_amd64"))
	if len(dirs) != 1 {
		t.Fatalf("the archive unpacked to %v, want one toolhost_VERSION_linux_amd64 folder", dirs)
	}
	install := dirs[0]
	toolhost := filepath.Join(install, "toolhost")
	home := t.TempDir()
	path := filepath.Dir(node) + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
	for _, d := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			t.Fatalf("%s holds go: the test needs a PATH without Go", d)
		}
	}
	env := []string{"HOME=" + home, "PATH=" + path, "LANG=C.UTF-8", "TMPDIR=" + t.TempDir()}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, toolhost, args...)
		cmd.Dir, cmd.Env = home, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("toolhost %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	head, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	must(t, err)
	version := run("version")
	want := regexp.MustCompile(`^toolhost \S+ commit ` + strings.TrimSpace(string(head)) + ` date \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ linux/amd64\n$`)
	if !want.MatchString(version) {
		t.Errorf("toolhost version printed %q, want the version, this commit and its date (%s)", version, want)
	}

	// A shipped folder changed after unpacking is left for a person.
	readme := filepath.Join(install, "plugins", "usage", "README.md")
	f, err := os.OpenFile(readme, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString("\nedited after unpacking\n")
	must(t, err)
	must(t, f.Close())
	approved := run("approve", "--shipped")
	for _, name := range []string{"xlsx", "notes", "text", "workbook-brief", "spend-review"} {
		if !strings.Contains(approved, "\n"+name+": approved (it was new)") && !strings.HasPrefix(approved, name+": approved (it was new)") {
			t.Errorf("approve --shipped did not approve %s:\n%s", name, approved)
		}
	}
	if !strings.Contains(approved, "left for a person to approve: usage: its files are not the ones this release shipped") {
		t.Errorf("approve --shipped did not leave the changed usage plugin for a person:\n%s", approved)
	}
	if strings.Contains(approved, "usage: approved") {
		t.Errorf("approve --shipped approved the changed usage plugin:\n%s", approved)
	}

	var config struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	printed := run("install-client", "claude-code", "--print")
	if err := json.Unmarshal([]byte(printed), &config); err != nil {
		t.Fatalf("install-client --print: %v\n%s", err, printed)
	}
	entry, ok := config.MCPServers["toolhost"]
	if real, _ := filepath.EvalSymlinks(toolhost); !ok || entry.Command != real {
		t.Fatalf("install-client --print gave %s, want the toolhost entry with command %s", printed, real)
	}

	// A real MCP client, started from that entry in HOME, reads a workbook
	// there and writes a note.
	// excelize's test/Book1.xlsx (BSD-3, plugins/xlsx/testdata/corpus/SOURCES.tsv).
	copyFile(t, filepath.Join(repoRoot, "plugins", "xlsx", "testdata", "corpus", "files", "excelize__Book1.xlsx"), filepath.Join(home, "book.xlsx"))
	calls := []map[string]any{
		{"tool": "xlsx", "action": "read-range", "args": map[string]any{"path": "book.xlsx", "range": "A19:B19"}},
		{"tool": "notes", "action": "write-page", "args": map[string]any{"path": "wiki/concepts/Release.md", "mode": "create",
			"content": "Installed from the release archive.", "frontmatter": map[string]any{"type": "concept"}}},
		{"tool": "notes", "action": "read", "args": map[string]any{"path": "wiki/concepts/Release.md"}},
	}
	entryJSON, _ := json.Marshal(entry)
	cmd := exec.CommandContext(ctx, node, filepath.Join(repoRoot, "tests", "clients", "ts-calls.mjs"), "sdk-legacy", string(entryJSON), string(mustJSON(t, calls)))
	cmd.Dir = home
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts-calls: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), lastLines(stderr.String(), 40))
	}
	var got struct {
		Tools   []string `json:"tools"`
		Results []struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
			Text              string         `json:"text"`
		} `json:"results"`
	}
	must(t, json.Unmarshal(lastLine(stdout.Bytes()), &got))
	if len(got.Results) != len(calls) {
		t.Fatalf("the client ran %d calls, want %d:\n%s", len(got.Results), len(calls), stdout.String())
	}
	for i, r := range got.Results {
		if r.IsError {
			t.Errorf("%v: error %s\nhost stderr:\n%s", calls[i], r.Text, lastLines(stderr.String(), 20))
		}
	}
	if rows, _ := json.Marshal(got.Results[0].StructuredContent["rows"]); string(rows) != `[["Total:",237]]` {
		t.Errorf("xlsx read-range A19:B19 of book.xlsx gave rows %s, want [[\"Total:\",237]]", rows)
	}
	if !strings.Contains(got.Results[2].Text, "Installed from the release archive.") {
		t.Errorf("notes read after write-page: %s", got.Results[2].Text)
	}
}

// withoutMake is env without the variables a calling make sets for its
// children, so the make the test runs starts afresh.
func withoutMake(env []string) []string {
	var out []string
	for _, e := range env {
		if name, _, _ := strings.Cut(e, "="); name != "MAKEFLAGS" && name != "MFLAGS" && name != "MAKELEVEL" {
			out = append(out, e)
		}
	}
	return out
}
