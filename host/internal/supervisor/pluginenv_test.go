//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPluginPathIsFixedUnlessTheManifestSays: a program of the same name
// as one the plugin runs (sleep), put earlier on the host's PATH, runs
// only when the manifest names its folder (exec_path) or asks for the
// host's PATH (env: [PATH]); otherwise the plugin's PATH is the system's.
func TestPluginPathIsFixedUnlessTheManifestSays(t *testing.T) {
	fake := t.TempDir()
	marker := filepath.Join(t.TempDir(), "fake-sleep-ran")
	if err := os.WriteFile(filepath.Join(fake, "sleep"), []byte("#!/bin/sh\necho ran > "+marker+"\nexec /bin/sleep \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hostPath := fake + ":/usr/bin:/bin"
	tests := []struct {
		name     string
		edit     func(string) string
		wantPath string
		fakeRuns bool
	}{
		{"no word in the manifest", nil, systemPath(nil), false},
		{"exec_path", func(m string) string {
			return strings.Replace(m, "env: [TESTTOOL_PASS]", "env: [TESTTOOL_PASS]\nexec_path: ["+fake+", /usr/bin, /bin]", 1)
		}, fake + ":/usr/bin:/bin", true},
		{"env lists PATH", func(m string) string {
			return strings.Replace(m, "env: [TESTTOOL_PASS]", "env: [TESTTOOL_PASS, PATH]", 1)
		}, hostPath, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			f := newFixture(t, tt.edit, Options{Environ: []string{"PATH=" + hostPath, "HOME=/home/x"}})
			m := decode(t, f.call(t, context.Background(), "env", nil))
			if m["path"] != tt.wantPath {
				t.Fatalf("plugin PATH %q, want %q", m["path"], tt.wantPath)
			}
			sp := decode(t, f.call(t, context.Background(), "spawn", nil))
			child := int(sp["child"].(float64))
			// The fake writes its marker, then execs the real sleep: once
			// the child is a sleep, the marker says which one started.
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child))
				if strings.HasPrefix(string(cmd), "sleep\x00") || strings.HasPrefix(string(cmd), "/bin/sleep\x00") {
					break
				}
			}
			_, err := os.Stat(marker)
			ran := err == nil
			if ran != tt.fakeRuns {
				t.Fatalf("the fake sleep on the host's PATH ran: %v, want %v", ran, tt.fakeRuns)
			}
		})
	}
}

// TestHostVariablesNeverReachAPlugin: the host's own variables (HOST_*:
// its bearer token, its OAuth settings) are withheld from a plugin whose
// manifest asks for them in env and in secrets.
func TestHostVariablesNeverReachAPlugin(t *testing.T) {
	env := []string{"PATH=/usr/bin:/bin", "HOST_HTTP_TOKEN=leak", "HOST_OAUTH_CLIENT_SECRET=leak", "AWS_SECRET_ACCESS_KEY=asked"}
	f := newFixture(t, func(m string) string {
		return strings.Replace(m, "env: [TESTTOOL_PASS]",
			"env: [TESTTOOL_PASS, HOST_HTTP_TOKEN, AWS_SECRET_ACCESS_KEY]\nsecrets:\n  - {name: oauth, env: HOST_OAUTH_CLIENT_SECRET}", 1)
	}, Options{Environ: env})
	names := fmt.Sprint(decode(t, f.call(t, context.Background(), "env", nil))["names"])
	if !strings.Contains(names, "AWS_SECRET_ACCESS_KEY") {
		t.Fatalf("a variable the manifest asks for is missing: %s", names)
	}
	for _, leak := range []string{"HOST_HTTP_TOKEN", "HOST_OAUTH_CLIENT_SECRET"} {
		if strings.Contains(names, leak) {
			t.Errorf("the plugin got the host's %s: %s", leak, names)
		}
	}
}
