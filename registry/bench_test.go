package registry

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRunCopyCheck times the check before every launch on a plugin
// folder shaped like xlsx's (a 20 MB binary and 190 small files): with the
// stat cache (what the host does), and reading every byte (the baseline),
// and reports the ratio.
func BenchmarkRunCopyCheck(b *testing.B) {
	src := filepath.Join(b.TempDir(), "plugin")
	big := make([]byte, 20<<20)
	rand.Read(big)
	if err := os.MkdirAll(filepath.Join(src, "testdata"), 0o755); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "bin"), big, 0o755)
	os.WriteFile(filepath.Join(src, "tool.yaml"), []byte("name: bench\n"), 0o644)
	for i := range 190 {
		os.WriteFile(filepath.Join(src, "testdata", fmt.Sprintf("f%03d.xlsx", i)), big[i*1000:i*1000+25000], 0o644)
	}
	d, err := DigestFolder(src, nil)
	if err != nil {
		b.Fatal(err)
	}
	tool := &Tool{Dir: src, Binary: filepath.Join(src, "bin"), Digest: d.Sum, Files: d.Files}
	runDir := b.TempDir()
	hc := NewHashCache("", nil)
	if _, err := RunCopy(tool, runDir, hc); err != nil {
		b.Fatal(err)
	}
	per := map[string]time.Duration{}
	for _, c := range []struct {
		name string
		hc   *HashCache
	}{{"stat-cache", hc}, {"read-all", nil}} {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if err := verifyRunCopy(tool, runCopyDir(runDir, d.Sum), c.hc, nil); err != nil {
					b.Fatal(err)
				}
			}
			per[c.name] = time.Since(start) / time.Duration(b.N)
		})
	}
	if per["stat-cache"] > 0 {
		b.Logf("check before launch: stat cache %v, reading every byte %v: %.0fx faster", per["stat-cache"], per["read-all"],
			float64(per["read-all"])/float64(per["stat-cache"]))
	}
}

// BenchmarkStartScan times the scan `host serve` starts with
// (VerifyAtLaunch, a fresh registry, a hash cache that has seen nothing,
// the manifest cache the approval left, read from its file) over 50
// approved plugin folders, each with notes' own manifest (the
// largest shipped) and a 20 MB binary, against the same over one folder,
// and reports the ratio: the share of the start the plugin count adds.
func BenchmarkStartScan(b *testing.B) {
	manifest, err := os.ReadFile(filepath.Join("..", "plugins", "notes", "tool.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	big := make([]byte, 20<<20)
	rand.Read(big)
	per := map[int]time.Duration{}
	for _, n := range []int{1, 50} {
		base := b.TempDir()
		root := filepath.Join(base, "plugins")
		for i := range n {
			dir := filepath.Join(root, fmt.Sprintf("b%02d", i))
			os.MkdirAll(dir, 0o755)
			m := bytes.Replace(manifest, []byte("name: notes"), fmt.Appendf(nil, "name: b%02d", i), 1)
			m = bytes.ReplaceAll(m, []byte("notes://"), fmt.Appendf(nil, "b%02d://", i))
			os.WriteFile(filepath.Join(dir, "tool.yaml"), m, 0o644)
			os.WriteFile(filepath.Join(dir, "notes"), big, 0o755)
		}
		opts := Options{PluginDirs: []string{root}, RequireApproval: true, StateDir: filepath.Join(base, "state"),
			RunDir: filepath.Join(base, "run"), Getenv: func(string) string { return "x" }}
		cache := ManifestCachePath(filepath.Join(base, "cache"))
		opts.Manifests = NewManifestCache(cache, nil)
		if _, err := New(opts).Approve(nil, "bench"); err != nil {
			b.Fatal(err)
		}
		key, err := ReadKey(opts.StateDir)
		if err != nil {
			b.Fatal(err)
		}
		opts.VerifyAtLaunch = true
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				opts.Manifests = NewManifestCache(cache, key)
				if snap := New(opts).Scan(); len(snap.Tools) != n || !snap.Tools[0].Ready || opts.Manifests.decoded != n {
					b.Fatalf("scan: %d tools, want %d ready: %+v %+v", len(snap.Tools), n, snap.Tools, snap.Broken)
				}
			}
			per[n] = time.Since(start) / time.Duration(b.N)
		})
	}
	if per[1] > 0 && per[50] > 0 {
		fmt.Printf("start scan: 50 plugins %v, 1 plugin %v: %.1f× (the load of the machine moves both)\n", per[50], per[1], float64(per[50])/float64(per[1]))
	}
}
