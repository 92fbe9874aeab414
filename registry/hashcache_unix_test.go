//go:build linux || darwin

package registry

import (
	"path/filepath"
	"testing"
)

// The hash cache needs a change time (it caches nothing without one).

// A nil *HashCache hashes every time, as its doc says: every method works
// on it. A cache reads a file once until Forget drops the folder holding
// it, and only that folder.
func TestHashCacheForgetsAFolder(t *testing.T) {
	var none *HashCache
	base := t.TempDir()
	run, runner := filepath.Join(base, "run"), filepath.Join(base, "runner")
	inRun, inRunner := filepath.Join(run, "bin"), filepath.Join(runner, "bin")
	writeFile(t, inRun, "#!/bin/sh\n", 0o755)
	writeFile(t, inRunner, "#!/bin/sh\necho other\n", 0o755)
	if _, _, err := none.Sum(inRun); err != nil {
		t.Fatal(err)
	}
	none.Forget(run)
	none.useKey([]byte("0123456789abcdef"))
	if err := none.Save(); err != nil {
		t.Fatalf("a nil cache's Save: %v", err)
	}

	hc := NewHashCache("", nil)
	read := func(wantRead int) {
		t.Helper()
		for _, p := range []string{inRun, inRunner} {
			if _, _, err := hc.Sum(p); err != nil {
				t.Fatal(err)
			}
		}
		if hc.hashed != wantRead {
			t.Fatalf("%d files read in all, want %d", hc.hashed, wantRead)
		}
	}
	read(2)
	read(2) // both cached
	hc.Forget(run)
	read(3) // run/bin again, runner/bin (not under run/) still cached
}
