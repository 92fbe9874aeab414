// Package python holds the Python plugin runtime: toolhost_plugin.py (the
// go-plugin handshake with AutoMTLS, the Plugin and health services, CLI
// mode) and its gRPC code generated from sdk/wire/plugin.proto and
// health.proto by `make python-gen`. This folder holds the repository's one
// copy: `make plugins` copies it into each Python plugin's folder (git
// ignores those copies), `host new-plugin --lang python` writes it into a
// new plugin's folder, and the e2e tests install it with WriteRuntime.
package python

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// Files is the runtime: RuntimeFiles, by name, at the root of the FS.
//
//go:embed toolhost_plugin.py plugin_pb2.py plugin_pb2_grpc.py health_pb2.py health_pb2_grpc.py
var Files embed.FS

// RuntimeFiles names the files a Python plugin's folder needs beside its
// own script.
var RuntimeFiles = []string{"toolhost_plugin.py", "plugin_pb2.py", "plugin_pb2_grpc.py", "health_pb2.py", "health_pb2_grpc.py"}

// WriteRuntime writes the runtime's files into dir (which must exist),
// replacing what is there, and returns their names.
func WriteRuntime(dir string) ([]string, error) {
	for _, f := range RuntimeFiles {
		b, err := Files.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("python runtime: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return nil, fmt.Errorf("python runtime: %w", err)
		}
	}
	return RuntimeFiles, nil
}

// IsRuntimeCopy reports whether the file at path is one of the runtime's
// files (by its name) with exactly this runtime's bytes: a copy that
// `make plugins` put there, not a file of the plugin's own.
func IsRuntimeCopy(path string) bool {
	want, err := Files.ReadFile(filepath.Base(path))
	if err != nil {
		return false
	}
	got, err := os.ReadFile(path)
	return err == nil && bytes.Equal(got, want)
}
