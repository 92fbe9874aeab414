// Command manifestgen parses a plugin's tool.yaml at build time into Go
// source, so the plugin's CLI mode starts without parsing YAML (about 4 ms
// of a 30 ms start): run from the plugin's folder by go generate,
//
//	//go:generate go run github.com/toolhost/toolhost/sdk/manifestgen
//
// it writes manifest_gen.go, declaring
//
//	var prebuiltManifest = &sdk.PrebuiltManifest{SHA256: …, Build: …}
//
// for sdk.Plugin.Manifest. The SDK uses it only while the tool.yaml beside
// the binary has that SHA256, so a stale file costs the parse, never a
// wrong manifest; a test in the plugin should compare it with the parsed
// tool.yaml (sdk.CheckPrebuiltManifest) to keep it current.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "tool.yaml", "the manifest to parse")
	out := flag.String("o", "manifest_gen.go", "the Go file to write")
	pkg := flag.String("package", "main", "the package of the Go file")
	name := flag.String("var", "prebuiltManifest", "the variable the Go file declares")
	flag.Parse()
	data, err := os.ReadFile(*in)
	if err == nil {
		var src []byte
		if src, err = Generate(*pkg, *name, *in, data); err == nil {
			err = os.WriteFile(*out, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "manifestgen: %v\n", err)
		os.Exit(1)
	}
}
