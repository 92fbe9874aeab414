//go:build !unix

package main

import (
	"os"

	"github.com/toolhost/toolhost/sdk"
)

// pendingOutput is dump's save target; saving needs the Unix calls that
// open each folder without following a symlink, so it is refused here.
type pendingOutput struct {
	*os.File
	target string
}

func createPending(string) (*pendingOutput, error) {
	return nil, sdk.Errorf(sdk.CodeInvalidArgs, "save is supported on Unix systems only; dump without save returns the text")
}

func (po *pendingOutput) commit() error { return nil }
func (po *pendingOutput) abort()        {}
