package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestArchivesKeepModesAndRepeatExactly: the tar.gz keeps the executable
// bit and dates every entry at the commit's time, so the same staged
// folder archived twice gives the same bytes; the zip holds the same
// files.
func TestArchivesKeepModesAndRepeatExactly(t *testing.T) {
	parent := t.TempDir()
	base := "toolhost_1.2.3_linux_amd64"
	write := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(parent, base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("toolhost", "binary", 0o755)
	write("plugins/xlsx/tool.yaml", "name: xlsx\n", 0o644)
	write("plugins/xlsx/xlsx", "binary", 0o755)
	when := time.Date(2026, 12, 7, 0, 17, 4, 0, time.UTC)
	out := t.TempDir()
	var first []byte
	for i := range 2 {
		dst := filepath.Join(out, "a.tar.gz")
		if err := writeTarGz(dst, parent, base, when); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Fatal("the same folder archived twice gave different bytes")
		}
	}
	gz, err := gzip.NewReader(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(when) || h.Uid != 0 || h.Uname != "" {
			t.Errorf("%s: time %s, owner %d %q; want %s, root", h.Name, h.ModTime, h.Uid, h.Uname, when)
		}
		got[h.Name] = h.Mode
	}
	want := map[string]int64{base + "/": 0o755, base + "/toolhost": 0o755, base + "/plugins/": 0o755, base + "/plugins/xlsx/": 0o755,
		base + "/plugins/xlsx/tool.yaml": 0o644, base + "/plugins/xlsx/xlsx": 0o755}
	for name, mode := range want {
		if got[name] != mode {
			t.Errorf("tar entry %s: mode %o, want %o (all: %v)", name, got[name], mode, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tar entries %v, want %v", got, want)
	}

	zdst := filepath.Join(out, "a.zip")
	if err := writeZip(zdst, parent, base, when); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(zdst)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != len(want) {
		t.Errorf("zip holds %d entries, want %d", len(zr.File), len(want))
	}
	for _, f := range zr.File {
		if _, ok := want[f.Name]; !ok {
			t.Errorf("zip entry %s not in the staged folder", f.Name)
		}
	}
}

// TestShipsPluginFileLeavesOutSourcesAndTestData: a plugin folder ships
// its manifest, README, scripts and model files, not its Go sources, test
// data or internal packages.
func TestShipsPluginFileLeavesOutSourcesAndTestData(t *testing.T) {
	for p, want := range map[string]bool{
		"plugins/xlsx/tool.yaml":                          true,
		"plugins/xlsx/README.md":                          true,
		"plugins/text/text.py":                            true,
		"plugins/notes/model/package-lock.json":           true,
		"plugins/xlsx/main.go":                            false,
		"plugins/xlsx/testdata/corpus/files/a.xlsx":       false,
		"plugins/notes/internal/embed/testdata/README.md": false,
		"plugins/notes/internal/brain/brain.go":           false,
	} {
		if got := shipsPluginFile(p); got != want {
			t.Errorf("shipsPluginFile(%s) = %v, want %v", p, got, want)
		}
	}
}
