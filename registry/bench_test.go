package registry

import (
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
