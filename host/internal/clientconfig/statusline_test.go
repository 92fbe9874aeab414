package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallStatusLine: the status line goes into Claude Code's settings
// beside what is there (comments kept), a second run changes nothing, and
// another status line is replaced with the old file kept as .bak.
func TestInstallStatusLine(t *testing.T) {
	path := StatusLinePath(Env{Home: t.TempDir()}, "")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	before := "{\n  // mine\n  \"model\": \"opus\",\n  \"statusLine\": {\"type\": \"command\", \"command\": \"ccusage statusline\"}\n}\n"
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := InstallStatusLine(path, "/opt/toolhost/plugins/usage/usage statusline", false)
	if err != nil || !o.Changed || o.Backup != path+".bak" {
		t.Fatalf("install: %+v, %v", o, err)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{"// mine", `"model": "opus"`, `"command": "/opt/toolhost/plugins/usage/usage statusline"`, `"type": "command"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("settings lack %s:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "ccusage") {
		t.Errorf("the old status line is still there:\n%s", got)
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != before {
		t.Errorf("backup: %s", bak)
	}
	if o, err := InstallStatusLine(path, "/opt/toolhost/plugins/usage/usage statusline", false); err != nil || o.Changed {
		t.Errorf("second install: %+v, %v", o, err)
	}
	fresh := StatusLinePath(Env{Home: t.TempDir()}, t.TempDir())
	if o, err := InstallStatusLine(fresh, "u statusline", false); err != nil || !o.Changed || o.Backup != "" {
		t.Errorf("new file: %+v, %v", o, err)
	}
	if b, _ := os.ReadFile(fresh); !strings.Contains(string(b), `"statusLine": {`) {
		t.Errorf("new file: %s", b)
	}
}
