// Command mkref writes the tool.yaml reference (docs/manifest-reference.md)
// from the manifest's JSON Schema: `go generate ./docs` runs it as
// `mkref SCHEMA OUT`.
package main

import (
	"fmt"
	"os"

	"github.com/toolhost/toolhost/docs"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkref SCHEMA OUT")
		os.Exit(2)
	}
	schema, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkref:", err)
		os.Exit(1)
	}
	ref, err := docs.ManifestReference(schema)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkref:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], []byte(ref), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "mkref:", err)
		os.Exit(1)
	}
}
