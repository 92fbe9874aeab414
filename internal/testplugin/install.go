package testplugin

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	pluginOnce  sync.Once
	installOnce sync.Once
	installDir  string
	installErr  error
)

// Plugin builds the plugin whose source is the test's working folder (a
// plugins/NAME package, its tool.yaml beside it) once per test binary, as
// DIR/plugins/NAME/NAME with its tool.yaml beside it, and returns the
// binary's path; RemoveBuilt deletes it. Run by hand, it is the plugin's
// CLI mode.
func Plugin(t testing.TB, name string) string {
	t.Helper()
	pluginOnce.Do(func() {
		installDir, installErr = os.MkdirTemp("", name+"-e2e-")
		if installErr != nil {
			return
		}
		plugin := filepath.Join(installDir, "plugins", name)
		if installErr = os.MkdirAll(plugin, 0o755); installErr != nil {
			return
		}
		if installErr = goBuild(filepath.Join(plugin, name), "."); installErr != nil {
			return
		}
		var manifest []byte
		if manifest, installErr = os.ReadFile("tool.yaml"); installErr != nil {
			return
		}
		installErr = os.WriteFile(filepath.Join(plugin, "tool.yaml"), manifest, 0o644)
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	return filepath.Join(installDir, "plugins", name, name)
}

// HostAndPlugin builds the plugin (Plugin) and the host once per test
// binary, laid out as an installation: DIR/host and DIR/plugins/NAME/NAME
// with its tool.yaml, approved in DIR/plugins.lock. It points the test
// process's XDG_STATE_HOME at DIR/state, where the approval key is, so a
// host started with os.Environ() (or Serve) runs the plugin. It returns
// DIR; RemoveBuilt deletes it.
func HostAndPlugin(t testing.TB, name string) string {
	t.Helper()
	Plugin(t, name)
	installOnce.Do(func() {
		if installErr = goBuild(filepath.Join(installDir, "host"), "github.com/toolhost/toolhost/host"); installErr != nil {
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

// goBuild builds the package pkg into out.
func goBuild(out, pkg string) error {
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return errors.New("go build -o " + out + " " + pkg + ": " + err.Error() + "\n" + string(b))
	}
	return nil
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
