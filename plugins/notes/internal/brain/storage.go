package brain

import (
	"context"
	"errors"

	"github.com/toolhost/toolhost/plugins/notes/internal/gitstore"
)

// gitRunner runs git in a brain through package gitstore (isolated
// configuration, a fixed identity, children that die with the plugin).
type gitRunner struct {
	dir string
	// env adds variables to git's environment (e.g. GIT_INDEX_FILE).
	env []string
}

func (g gitRunner) store() gitstore.Runner { return gitstore.Runner{Dir: g.dir, Env: g.env} }

// run runs git with args and returns stdout; a failure is a
// *gitstore.Error with git's stderr.
func (g gitRunner) run(ctx context.Context, args ...string) (string, error) {
	return g.store().Run(ctx, args...)
}

// runInput is run with stdin holding input.
func (g gitRunner) runInput(ctx context.Context, input string, args ...string) (string, error) {
	return g.store().RunInput(ctx, input, args...)
}

// headFast is HEAD's commit, read from .git when it can be.
func (g gitRunner) headFast(ctx context.Context) (string, error) { return g.store().HeadFast(ctx) }

func (g gitRunner) head(ctx context.Context) (string, error) { return g.store().Head(ctx) }

// changedPaths lists the paths that differ between two commits.
func (g gitRunner) changedPaths(ctx context.Context, from, to string) ([]string, error) {
	return g.store().ChangedPaths(ctx, from, to)
}

// gitBinary is the git executable gitstore runs.
var gitBinary = gitstore.Binary

func init() { gitstore.CrashPoint = crashPoint }

// commitFail is a failed commit as the brain reports it: nothing to commit,
// a path that is a folder in HEAD, or git_failed.
func commitFail(err error) error {
	var fe *gitstore.FolderError
	switch {
	case errors.As(err, &fe):
		return fail(CodeConflict, "Nothing was changed. Move the folder "+fe.Path+" aside, or commit its removal, first.", "%v", err)
	case errors.Is(err, gitstore.ErrNothingToCommit):
		return fail(CodeGitFailed, "Nothing was changed: the files already hold what HEAD holds.", "%v", err)
	}
	return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
}

// gitCommitPaths commits paths as the working tree holds them with git's
// plumbing (gitstore.CommitPaths).
func gitCommitPaths(ctx context.Context, g gitRunner, paths []string, msg string) error {
	if err := gitstore.CommitPaths(ctx, g.store(), paths, msg); err != nil {
		return commitFail(err)
	}
	return nil
}
