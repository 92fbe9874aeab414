package python

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// python3 is the interpreter with Debian's grpc-tools (make deps).
const python3 = "/usr/bin/python3"

// TestGeneratedCurrent regenerates the gRPC code from the protos and fails
// when the checked-in files differ: run `make python-gen` after changing
// sdk/wire/plugin.proto.
func TestGeneratedCurrent(t *testing.T) {
	if err := exec.Command(python3, "-c", "import grpc_tools").Run(); err != nil {
		t.Fatalf("%s cannot import grpc_tools (%v): run `make deps` (installs python3-grpc-tools)", python3, err)
	}
	out := t.TempDir()
	cmd := exec.Command(python3, "-m", "grpc_tools.protoc", "-I.", "-I../wire", "--python_out="+out, "--grpc_python_out="+out,
		"health.proto", "../wire/plugin.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	for _, f := range []string{"plugin_pb2.py", "plugin_pb2_grpc.py", "health_pb2.py", "health_pb2_grpc.py"} {
		want, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sdk/python/%s is not what the protos give: run `make python-gen` and commit it", f)
		}
	}
}

// TestTextPluginCarriesRuntime: plugins/text runs from a copy of its own
// folder, so it carries the runtime; it must be this one.
func TestTextPluginCarriesRuntime(t *testing.T) {
	for _, f := range RuntimeFiles {
		want, err := Files.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "plugins", "text", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("plugins/text/%s differs from sdk/python/%s: run `make python-gen`", f, f)
		}
	}
}
