package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk"
	"github.com/xuri/excelize/v2"
)

// TestDumpSaveIsSafe: save writes only new files inside the output folder,
// never a dotfile, never through a symlink, never over a file.
func TestDumpSaveIsSafe(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inside, outside := filepath.Join(base, "in"), filepath.Join(base, "out")
	os.Mkdir(inside, 0o755)
	os.Mkdir(outside, 0o755)
	os.Mkdir(filepath.Join(inside, "sub"), 0o755)
	src := sampleXLSXIn(t, inside)
	t.Setenv(rootsEnv, inside)
	t.Setenv(outputEnv, inside)
	existing := filepath.Join(inside, "existing.txt")
	os.WriteFile(existing, []byte("keep me"), 0o644)
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("keep me too"), 0o644)
	os.Symlink(victim, filepath.Join(inside, "link.txt"))
	os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(inside, "dangling.txt"))
	os.Symlink(outside, filepath.Join(inside, "escape"))
	os.Mkdir(filepath.Join(inside, ".hidden"), 0o755)
	tests := []struct {
		name, save string
		code       sdk.Code
		saved      string // the file written, when it succeeds
	}{
		{"outside the output folder", filepath.Join(outside, "dump.txt"), codePathNotAllowed, ""},
		{"up and out", "../out/dump.txt", sdk.CodeInvalidArgs, ""},
		{"into a symlinked folder outside", filepath.Join(inside, "escape", "dump.txt"), codePathNotAllowed, ""},
		{"into a symlinked folder, relative", "escape/dump.txt", codePathNotAllowed, ""},
		{"over an existing file", existing, codeAlreadyExists, ""},
		{"through a symlink to a file outside", "link.txt", codeAlreadyExists, ""},
		{"through a dangling symlink", "dangling.txt", codeAlreadyExists, ""},
		{"a dotfile", ".profile", codePathNotAllowed, ""},
		{"a dotfile, absolute", filepath.Join(inside, ".bashrc"), codePathNotAllowed, ""},
		{"into a dot-folder", ".hidden/dump.txt", codePathNotAllowed, ""},
		{"into a missing folder", "no/dump.txt", sdk.CodeNotFound, ""},
		{"a new file by name", "dump.txt", "", filepath.Join(inside, "dump.txt")},
		{"a new file by absolute path", filepath.Join(inside, "abs.txt"), "", filepath.Join(inside, "abs.txt")},
		{"a new file in a folder inside", "sub/dump.txt", "", filepath.Join(inside, "sub", "dump.txt")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, e := call(t, "dump", map[string]any{"path": src, "save": tc.save})
			switch {
			case tc.code == "" && e != nil:
				t.Fatalf("got %v, want a result", e)
			case tc.code == "":
				if out["saved_to"] != tc.saved {
					t.Errorf("saved_to = %v, want %s", out["saved_to"], tc.saved)
				}
			case e == nil || e.Code != tc.code:
				t.Errorf("got %v (%v), want %s", e, out, tc.code)
			}
		})
	}
	for p, want := range map[string]string{existing: "keep me", victim: "keep me too"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s was changed to %q", p, b)
		}
	}
	for _, p := range []string{filepath.Join(outside, "new.txt"), filepath.Join(outside, "dump.txt"),
		filepath.Join(inside, ".profile"), filepath.Join(inside, ".bashrc"), filepath.Join(inside, ".hidden", "dump.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestOutputFolderMustBeDedicated: an output folder that is /, the home
// folder, a system folder or inside a dot-folder is refused.
func TestOutputFolderMustBeDedicated(t *testing.T) {
	home := allowDir(t)
	src := sampleXLSXIn(t, home)
	t.Setenv("HOME", home)
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	for _, dir := range []string{"/", "/etc", home, filepath.Join(home, ".ssh"), "~"} {
		t.Run(dir, func(t *testing.T) {
			t.Setenv(outputEnv, dir)
			if _, e := call(t, "dump", map[string]any{"path": src, "save": "authorized_keys"}); e == nil || e.Code != codeInvalidConfig {
				t.Errorf("got %v, want invalid_config", e)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(home, ".ssh", "authorized_keys")); err == nil {
		t.Error("authorized_keys was written")
	}
}

// TestDefaultRootsLeaveOutSystemFolders: with XLSX_ROOTS unset, a working
// folder of / (as MCP clients often start the host) adds nothing, and a
// workbook in a dot-folder of the home is not opened.
func TestDefaultRootsLeaveOutSystemFolders(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := allowDir(t)
	src := sampleXLSXIn(t, elsewhere)
	os.Mkdir(filepath.Join(home, ".config"), 0o700)
	hidden := sampleXLSXIn(t, filepath.Join(home, ".config"))
	t.Setenv(rootsEnv, "")
	t.Setenv("HOME", home)
	t.Chdir("/")
	if got := allowedRoots(); len(got) != 1 || got[0] != home {
		t.Errorf("default roots with the working folder / = %q, want only the home %s", got, home)
	}
	for _, p := range []string{src, hidden} {
		f, err := openWorkbookFile(p)
		if err == nil {
			f.Close()
		}
		if e, ok := err.(*sdk.Error); !ok || e.Code != codePathNotAllowed {
			t.Errorf("%s: got %v, want path_not_allowed", p, err)
		}
	}
}

// TestDumpEscapesCellText: a | or a line break inside a cell, a formula or
// a sheet name cannot start a line or a cell of the dump.
func TestDumpEscapesCellText(t *testing.T) {
	dir := allowDir(t)
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", ";touch pwned #"); err != nil {
		t.Fatal(err)
	}
	f.SetCellValue(";touch pwned #", "A1", "\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5 attacker\n")
	f.SetCellValue(";touch pwned #", "B1", `a|b\c`+"\r\t")
	p := filepath.Join(dir, "evil.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	text := mustCall(t, "dump", map[string]any{"path": p})["text"].(string)
	want := `r1: \nssh-ed25519 AAAAC3NzaC1lZDI1NTE5 attacker\n | a\|b\\c\r\t`
	if !strings.Contains(text, want) {
		t.Errorf("dump = %q, want the line %q", text, want)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "ssh-ed25519") {
			t.Errorf("a cell's text starts a line: %q", line)
		}
	}
}

// TestDumpSaveAttacksThroughBinary replays the attacks on the real plugin
// binary and through the host: a workbook whose cell holds an SSH key
// between line breaks, saved as ~/.ssh/authorized_keys, and whose sheet is
// named ";touch pwned #", saved as ~/.bash_profile, with the host started
// in / and XLSX_ROOTS unset. Neither file is written; a save by name lands
// in the output folder.
func TestDumpSaveAttacksThroughBinary(t *testing.T) {
	dir := binaries(t)
	bin := filepath.Join(dir, "plugins", "xlsx", "xlsx")
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", ";touch pwned #"); err != nil {
		t.Fatal(err)
	}
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerAttackerAttackerAttacker attacker"
	f.SetCellValue(";touch pwned #", "A1", "\n"+key+"\n")
	book := filepath.Join(home, "book.xlsx")
	if err := f.SaveAs(book); err != nil {
		t.Fatal(err)
	}
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outsideBook := filepath.Join(other, "book.xlsx")
	if b, err := os.ReadFile(book); err != nil || os.WriteFile(outsideBook, b, 0o644) != nil {
		t.Fatal("copy the workbook", err)
	}
	env := append(os.Environ(), "HOME="+home, rootsEnv+"=", outputEnv+"=")
	forbidden := []string{filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(home, ".bash_profile"), filepath.Join(other, "dump.txt")}
	tests := []struct {
		name string
		args []string
		code string
	}{
		{"key into authorized_keys", []string{"dump", "--path", "~/book.xlsx", "--save", "~/.ssh/authorized_keys"}, "path_not_allowed"},
		{"sheet name into .bash_profile", []string{"dump", "--path", "~/book.xlsx", "--save", "~/.bash_profile"}, "path_not_allowed"},
		{"save outside the output folder", []string{"dump", "--path", "~/book.xlsx", "--save", filepath.Join(other, "dump.txt")}, "path_not_allowed"},
		{"read outside the home from /", []string{"list-sheets", "--path", outsideBook}, "path_not_allowed"},
		{"save by name", []string{"dump", "--path", "~/book.xlsx", "--save", "book.txt"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir, cmd.Env = "/", env
			out, _, code := testplugin.Run(t, cmd)
			if tc.code == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, out)
				}
				return
			}
			if code == 0 || !strings.Contains(string(out), `"`+tc.code+`"`) {
				t.Errorf("exit %d, want %s: %s", code, tc.code, out)
			}
		})
	}
	saved, err := os.ReadFile(filepath.Join(home, defaultOutput, "book.txt"))
	if err != nil {
		t.Fatalf("the save by name is not in the output folder: %v", err)
	}
	for _, line := range strings.Split(string(saved), "\n") {
		if line == key {
			t.Errorf("the cell's key is a line of its own in the saved dump:\n%s", saved)
		}
	}

	// Through the host, started in / as MCP clients often do: plain
	// run_tool gets the same refusal.
	c := testplugin.Serve(t, dir, "/", "xlsx-attack", "HOME="+home, rootsEnv+"=", outputEnv+"=")
	for i, save := range []string{"~/.ssh/authorized_keys", "~/.bash_profile"} {
		args, _ := json.Marshal(map[string]any{"tool": "xlsx", "action": "dump", "args": map[string]any{"path": book, "save": save}})
		res, _ := c.Call(`{"jsonrpc":"2.0","id":` + itoa(10+i) + `,"method":"tools/call","params":{"name":"run_tool","arguments":` + string(args) + `}}`)["result"].(map[string]any)
		sc, _ := res["structuredContent"].(map[string]any)
		env, _ := sc["error"].(map[string]any)
		if res["isError"] != true || env["code"] != "path_not_allowed" {
			t.Errorf("run_tool dump save %s = %s, want path_not_allowed", save, toJSON(res))
		}
	}
	for _, p := range forbidden {
		if _, err := os.Lstat(p); err == nil {
			b, _ := os.ReadFile(p)
			t.Errorf("%s was written:\n%s", p, b)
		}
	}
}
