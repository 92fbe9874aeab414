//go:build linux || darwin

package registry

import (
	"io/fs"
	"syscall"
)

// statKey is what a cached hash is checked against: a file whose device,
// inode, size, mtime or ctime differ is hashed again.
type statKey struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
	Mode  uint32 `json:"mode"`
}

// statKeyOf returns st's key; ok is false when the system did not say.
func statKeyOf(st fs.FileInfo) (statKey, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	mtime, ctime := statTimes(s)
	return statKey{Dev: uint64(s.Dev), Ino: s.Ino, Size: s.Size, Mtime: mtime, Ctime: ctime, Mode: uint32(s.Mode)}, true
}
