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

// TestWriteRuntime: the runtime written into a folder is these files,
// and only an unchanged copy counts as the runtime (host approve --tracked
// accepts such a copy, ignored by git, beside a plugin's own files).
func TestWriteRuntime(t *testing.T) {
	dir := t.TempDir()
	names, err := WriteRuntime(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(RuntimeFiles) {
		t.Fatalf("wrote %v, want %v", names, RuntimeFiles)
	}
	for _, f := range RuntimeFiles {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s in the folder differs from sdk/python/%s (%v)", f, f, err)
		}
		if !IsRuntimeCopy(filepath.Join(dir, f)) {
			t.Errorf("IsRuntimeCopy(%s) = false for an unchanged copy", f)
		}
	}
	edited := filepath.Join(dir, "toolhost_plugin.py")
	if err := os.WriteFile(edited, []byte("import os\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "text.py")
	if err := os.WriteFile(own, []byte("import toolhost_plugin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{edited, own, filepath.Join(dir, "missing_pb2.py")} {
		if IsRuntimeCopy(p) {
			t.Errorf("IsRuntimeCopy(%s) = true, want false", filepath.Base(p))
		}
	}
}
