//go:build unix && !linux

package main

import (
	"errors"
	"os"
)

var errNoUnnamed = errors.New("no unnamed files on this system")

// createUnnamed is Linux's O_TMPFILE; elsewhere the pending file is named.
func createUnnamed(*os.File) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(_, _ *os.File, _ string) error { return errNoUnnamed }
