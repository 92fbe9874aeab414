package sdk

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"reflect"

	"github.com/toolhost/toolhost/manifests"
)

// PrebuiltManifest is a tool.yaml parsed at build time by sdk/manifestgen.
type PrebuiltManifest struct {
	// SHA256 is the hex SHA256 of the tool.yaml it was built from.
	SHA256 string
	// Build returns the parsed manifest, Path empty.
	Build func() *manifests.Manifest
}

// loadManifest reads the manifest at path: p's prebuilt one when the file's
// bytes are those it was built from, else the file parsed.
func loadManifest(p *PrebuiltManifest, path string) (*manifests.Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifests: read %s: %w", path, err)
	}
	if p != nil && p.Build != nil {
		if sha256Hex(data) == p.SHA256 {
			m := p.Build()
			m.Path = path
			return m, nil
		}
	}
	return manifests.ParseBytes(path, data)
}

// CheckPrebuiltManifest reports whether p is the manifest at path parsed:
// nil when it is, else an error saying to run go generate. A plugin that
// sets Plugin.Manifest checks it in a test, so tool.yaml never changes
// without it.
func CheckPrebuiltManifest(p *PrebuiltManifest, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("check prebuilt manifest: %w", err)
	}
	parsed, err := manifests.ParseBytes(path, data)
	if err != nil {
		return fmt.Errorf("check prebuilt manifest: %w", err)
	}
	if got := sha256Hex(data); got != p.SHA256 {
		return fmt.Errorf("check prebuilt manifest: %s changed since manifest_gen.go was generated (sha256 %s, built from %s): run go generate in its folder", path, got, p.SHA256)
	}
	built := p.Build()
	built.Path = parsed.Path
	if !reflect.DeepEqual(built, parsed) {
		return fmt.Errorf("check prebuilt manifest: manifest_gen.go differs from %s parsed: run go generate in its folder", path)
	}
	return nil
}

// sha256Hex is data's SHA256 in hex.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
