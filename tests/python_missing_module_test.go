package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonPluginWithoutGrpcSaysWhatToInstall runs the text plugin with a
// Python that cannot see Debian's python3-grpcio (-S: no site-packages, so
// dist-packages is off sys.path, as on a machine without the package). The
// call answers not_ready quoting the plugin's ModuleNotFoundError and
// naming the Debian package, not only "did not complete the handshake".
func TestPythonPluginWithoutGrpcSaysWhatToInstall(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	e := textEnv(t)
	e.plugins = t.TempDir()
	dst := filepath.Join(e.plugins, "text")
	must(t, copyTree(filepath.Join(realPlugins, "text"), dst))
	must(t, os.WriteFile(filepath.Join(dst, "text"),
		[]byte("#!/bin/sh\nexec /usr/bin/python3 -I -B -S \"$(dirname \"$0\")/text.py\" \"$@\"\n"), 0o755))
	for i, kv := range e.vars {
		if strings.HasPrefix(kv, "HOST_PLUGIN_PATH=") {
			e.vars[i] = "HOST_PLUGIN_PATH=" + e.plugins
		}
	}
	e.approve()

	cmd := exec.Command(hostBin, "call", "text", "stats", "--arg", "text=The cat sat.", "--json")
	cmd.Env = e.vars
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("host call succeeded without grpc on sys.path: %s", out)
	}
	for _, want := range []string{`"not_ready"`, "ModuleNotFoundError: No module named 'grpc'", "python3-grpcio"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the answer lacks %q:\n%s", want, out)
		}
	}
}
