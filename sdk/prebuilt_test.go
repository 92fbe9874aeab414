package sdk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/manifests"
)

// TestLoadManifestTakesPrebuiltOnlyForItsFile: CLI mode uses the manifest
// built into the binary only while the tool.yaml beside it is the file it
// was built from; an edited tool.yaml is parsed, so its edit shows.
func TestLoadManifestTakesPrebuiltOnlyForItsFile(t *testing.T) {
	const yaml = "name: demo\ndescription: From the file.\nentrypoint: demo\nactions:\n  - {name: run, description: Run it., read_only: true}\n"
	path := filepath.Join(t.TempDir(), manifests.FileName)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := manifests.ParseBytes(path, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	prebuilt := func(sha string) *PrebuiltManifest {
		return &PrebuiltManifest{SHA256: sha, Build: func() *manifests.Manifest {
			m := *fromFile
			m.Path, m.Description = "", "Prebuilt."
			return &m
		}}
	}
	tests := []struct {
		name     string
		prebuilt *PrebuiltManifest
		want     string
	}{
		{"built from this file", prebuilt(sha256Hex([]byte(yaml))), "Prebuilt."},
		{"built from another file", prebuilt(strings.Repeat("0", 64)), "From the file."},
		{"none", nil, "From the file."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := loadManifest(tc.prebuilt, path)
			if err != nil {
				t.Fatal(err)
			}
			if m.Description != tc.want || m.Path != path {
				t.Errorf("manifest %q from %s, want %q from %s", m.Description, m.Path, tc.want, path)
			}
		})
	}
	if err := CheckPrebuiltManifest(prebuilt(sha256Hex([]byte(yaml))), path); err == nil || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("CheckPrebuiltManifest of a manifest unlike the file: %v, want go generate asked for", err)
	}
	if err := CheckPrebuiltManifest(prebuilt(strings.Repeat("0", 64)), path); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("CheckPrebuiltManifest of another file's hash: %v, want the file called changed", err)
	}
}
