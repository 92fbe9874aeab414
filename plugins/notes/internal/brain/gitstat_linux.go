package brain

import (
	"fmt"
	"os"
	"syscall"
)

// fileStat is the stat data git keeps in an index entry.
type fileStat struct {
	ctimeS, ctimeNS, mtimeS, mtimeNS, dev, ino, uid, gid, size uint32
}

// readForCommit reads a regular file and its stat data from one open file,
// with the index mode git gives it; a symlink or anything else not a
// regular file is errSlowPath.
func readForCommit(abs string) ([]byte, fileStat, uint32, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(abs, &st); err != nil {
		if os.IsNotExist(err) {
			return nil, fileStat{}, 0, fmt.Errorf("brain: read %s: %w", abs, os.ErrNotExist)
		}
		return nil, fileStat{}, 0, fmt.Errorf("brain: read %s: %w", abs, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fileStat{}, 0, slowPath("not a regular file: " + abs)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fileStat{}, 0, fmt.Errorf("brain: read %s: %w", abs, err)
	}
	mode := uint32(0o100644)
	if st.Mode&0o100 != 0 {
		mode = 0o100755
	}
	return data, fileStat{
		ctimeS: uint32(st.Ctim.Sec), ctimeNS: uint32(st.Ctim.Nsec),
		mtimeS: uint32(st.Mtim.Sec), mtimeNS: uint32(st.Mtim.Nsec),
		dev: uint32(st.Dev), ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid, size: uint32(len(data)),
	}, mode, nil
}
