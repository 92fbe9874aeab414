//go:build !unix

package brain

import (
	"os"
	"path/filepath"
)

// openBrainFile opens rel under root after checking, with Lstat, that no
// segment is a symbolic link (without openat, a race between the check
// and the open remains on these systems).
func openBrainFile(root, rel string) (*os.File, error) {
	parts, err := splitRel(rel)
	if err != nil {
		return nil, err
	}
	cur := root
	for _, seg := range parts {
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if os.IsNotExist(err) {
			return nil, notExist(rel)
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, &unsafeFileError{Rel: rel, Why: "a symbolic link"}
		}
	}
	fi, err := os.Lstat(cur)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &unsafeFileError{Rel: rel, Why: "not a regular file"}
	}
	return os.Open(cur)
}
