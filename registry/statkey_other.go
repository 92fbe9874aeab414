//go:build !linux

package registry

import "io/fs"

// statKey is what a cached hash is checked against. Outside Linux the
// change time is not read here, so nothing is cached and every file is
// hashed every time.
type statKey struct{}

// statKeyOf never keys a file outside Linux.
func statKeyOf(fs.FileInfo) (statKey, bool) { return statKey{}, false }
