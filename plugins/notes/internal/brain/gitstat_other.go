//go:build !linux

package brain

import (
	"fmt"
	"os"
)

// fileStat is the stat data git keeps in an index entry; off Linux only
// the modification time and size are filled (git then re-reads the file
// once to confirm it is clean).
type fileStat struct {
	ctimeS, ctimeNS, mtimeS, mtimeNS, dev, ino, uid, gid, size uint32
}

// readForCommit reads a regular file with the index mode git gives it; a
// symlink or anything else not a regular file is errSlowPath.
func readForCommit(abs string) ([]byte, fileStat, uint32, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fileStat{}, 0, fmt.Errorf("brain: read %s: %w", abs, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fileStat{}, 0, slowPath("not a regular file: " + abs)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fileStat{}, 0, fmt.Errorf("brain: read %s: %w", abs, err)
	}
	mode := uint32(0o100644)
	if fi.Mode()&0o100 != 0 {
		mode = 0o100755
	}
	mt := fi.ModTime()
	return data, fileStat{mtimeS: uint32(mt.Unix()), mtimeNS: uint32(mt.Nanosecond()), size: uint32(len(data))}, mode, nil
}
