package testplugin

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	installOnce sync.Once
	installDir  string
	installErr  error
)

// HostAndPlugin builds the host and the plugin whose source is the test's
// working folder (a plugins/NAME package, its tool.yaml beside it) once per
// test binary, laid out as an installation: DIR/host and
// DIR/plugins/NAME/NAME with its tool.yaml, approved in DIR/plugins.lock.
// It points the test process's XDG_STATE_HOME at DIR/state, where the
// approval key is, so a host started with os.Environ() runs the plugin. It
// returns DIR; RemoveBuilt deletes it.
func HostAndPlugin(t testing.TB, name string) string {
	t.Helper()
	installOnce.Do(func() {
		installDir, installErr = os.MkdirTemp("", name+"-e2e-")
		if installErr != nil {
			return
		}
		plugin := filepath.Join(installDir, "plugins", name)
		if installErr = os.MkdirAll(plugin, 0o755); installErr != nil {
			return
		}
		for _, c := range [][]string{
			{"go", "build", "-o", filepath.Join(plugin, name), "."},
			{"go", "build", "-o", filepath.Join(installDir, "host"), "github.com/toolhost/toolhost/host"},
		} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				installErr = errors.New(strings.Join(c, " ") + ": " + err.Error() + "\n" + string(out))
				return
			}
		}
		var manifest []byte
		if manifest, installErr = os.ReadFile("tool.yaml"); installErr != nil {
			return
		}
		if installErr = os.WriteFile(filepath.Join(plugin, "tool.yaml"), manifest, 0o644); installErr != nil {
			return
		}
		state := filepath.Join(installDir, "state")
		if installErr = os.Setenv("XDG_STATE_HOME", state); installErr != nil {
			return
		}
		installErr = approve(filepath.Join(installDir, "plugins"), state, "")
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	return installDir
}

// RemoveBuilt deletes what HostAndPlugin and Build made; call it from
// TestMain after m.Run.
func RemoveBuilt() {
	if installDir != "" {
		os.RemoveAll(installDir)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	for _, p := range built {
		os.RemoveAll(filepath.Dir(p))
	}
}
