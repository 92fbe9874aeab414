// Package python holds the Python plugin runtime: toolhost_plugin.py (the
// go-plugin handshake with AutoMTLS, the Plugin and health services, CLI
// mode) and its gRPC code generated from sdk/wire/plugin.proto and
// health.proto by `make python-gen`. Files embeds them so `host new-plugin
// --lang python` can copy them into a new plugin's folder; plugins/text
// carries the same files.
package python

import "embed"

// Files is the runtime: RuntimeFiles, by name, at the root of the FS.
//
//go:embed toolhost_plugin.py plugin_pb2.py plugin_pb2_grpc.py health_pb2.py health_pb2_grpc.py
var Files embed.FS

// RuntimeFiles names the files a Python plugin's folder needs beside its
// own script.
var RuntimeFiles = []string{"toolhost_plugin.py", "plugin_pb2.py", "plugin_pb2_grpc.py", "health_pb2.py", "health_pb2_grpc.py"}
