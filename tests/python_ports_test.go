package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestPythonPluginsDoNotSharePorts starts two Python plugins from two hosts
// at once, round after round (6 rounds in make test, 20 in make check): each plugin must listen on a port of its own.
// With gRPC's default SO_REUSEPORT, two plugins both bound the first port
// of go-plugin's range and the host could reach the other's server, failing
// the handshake's mTLS with "x509: certificate signed by unknown authority".
func TestPythonPluginsDoNotSharePorts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts up to 80 Python plugins")
	}
	e := textEnv(t)
	e.plugins = t.TempDir()
	for _, name := range []string{"text", "text2"} {
		dst := filepath.Join(e.plugins, name)
		must(t, copyTree(filepath.Join(realPlugins, "text"), dst))
		raw, err := os.ReadFile(filepath.Join(dst, "tool.yaml"))
		must(t, err)
		manifest := strings.Replace(string(raw), "name: text\n", "name: "+name+"\n", 1)
		must(t, os.WriteFile(filepath.Join(dst, "tool.yaml"), []byte(manifest), 0o644))
	}
	for i, kv := range e.vars {
		if strings.HasPrefix(kv, "HOST_PLUGIN_PATH=") {
			e.vars[i] = "HOST_PLUGIN_PATH=" + e.plugins
		}
	}
	e.approve()

	rounds := testplugin.Size(6, 20)
	var failures []string
	for round := range rounds {
		// Two hosts, each starting both plugins: four Python plugins
		// binding at the same moment.
		var (
			wg sync.WaitGroup
			mu sync.Mutex
		)
		for _, tool := range []string{"text", "text2", "text", "text2"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(hostBin, "call", tool, "stats", "--arg", "text=The cat sat on the mat.", "--json")
				cmd.Env = e.vars
				out, err := cmd.CombinedOutput()
				if err != nil || !strings.Contains(string(out), `"words": 6`) {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("round %d, %s: %v\n%s", round, tool, err, firstLines(string(out), 10)))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d starts failed; the first:\n%s", len(failures), rounds*4, failures[0])
	}
}
