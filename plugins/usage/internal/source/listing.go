package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// listing counts the folders a Discover could not list, so that an
// unreadable folder costs only its own files: the rest is still found, and
// the count with the first reason becomes one Problem.
type listing struct {
	unreadable int
	first      error
}

// fail counts a folder that could not be listed.
func (l *listing) fail(err error) {
	l.unreadable++
	if l.first == nil {
		l.first = unwrapPath(err)
	}
}

// optional lists dir, a folder that need not exist, and adds it to
// dsc.Dirs. A missing folder gives no entries and no problem; any other
// failure is counted.
func (l *listing) optional(dsc *Discovery, dir string) ([]fs.DirEntry, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.fail(err)
		}
		return nil, false
	}
	dsc.Dirs = append(dsc.Dirs, dir)
	return entries, true
}

// list adds dir, a folder that exists, to dsc.Dirs and lists it; a
// failure is counted.
func (l *listing) list(dsc *Discovery, dir string) ([]fs.DirEntry, bool) {
	dsc.Dirs = append(dsc.Dirs, dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		l.fail(err)
		return nil, false
	}
	return entries, true
}

// isDir reports whether e, listed in parent, is a folder (following a
// symbolic link); a link that cannot be followed is counted.
func (l *listing) isDir(parent string, e fs.DirEntry) bool {
	ok, err := isDirEntry(parent, e)
	if err != nil {
		l.fail(err)
	}
	return ok && err == nil
}

// report adds the count, if any, to dsc.Problems: under names the folder
// whose sub-folders failed, lost what their files are.
func (l *listing) report(dsc *Discovery, under, lost string) {
	if l.unreadable > 0 {
		dsc.Problems = append(dsc.Problems, fmt.Errorf(
			"%d folder(s) under %s could not be listed (%w); their %s are not counted: check their permissions (ls -l)",
			l.unreadable, under, l.first, lost))
	}
}
