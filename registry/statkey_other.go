//go:build !linux && !darwin

package registry

import "io/fs"

// statKey is what a cached hash is checked against. Outside Linux and
// macOS (Windows) the change time is not read here, so nothing is cached
// and every file is hashed every time.
type statKey struct{}

// statKeyOf never keys a file outside Linux and macOS.
func statKeyOf(fs.FileInfo) (statKey, bool) { return statKey{}, false }
