package brain

import (
	"context"
	"errors"
	"strings"
)

// configHazardKeys are the keys of a repository's own configuration that
// make git run a program and that the -c overrides of every call cannot
// reach, because their names are the brain's to choose: filter, merge and
// diff drivers (a driver named union overrides git's built-in one that
// log.md and index.md merge with), trailer commands, a remote's
// upload-pack or receive-pack, a git:// proxy command (the first value
// wins, so no -c override clears it), the command listing an alternate's
// refs, and includes that could bring any of them.
const configHazardKeys = `^(core\.(gitproxy|alternaterefscommand)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|diff\..+\.(command|textconv)|` +
	`trailer\..+\.(cmd|command)|remote\..+\.(uploadpack|receivepack|vcs)|include\.path|includeif\..+\.path)$`

// configHazards lists the keys of the brain's .git/config (and what it
// includes) that would make git run a program.
func configHazards(ctx context.Context, g gitRunner) ([]string, error) {
	out, err := g.run(ctx, "config", "--local", "--includes", "--name-only", "--get-regexp", configHazardKeys)
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.stderr) == "" {
			return nil, nil // exit 1: no key matched
		}
		return nil, err
	}
	var keys []string
	for _, k := range strings.Split(strings.TrimSpace(out), "\n") {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// checkGitConfig refuses a brain whose .git/config would make git run a
// program: invalid_config naming the keys and how to remove them.
func checkGitConfig(ctx context.Context, root string) error {
	keys, err := configHazards(ctx, gitRunner{dir: root})
	if err != nil {
		return fail(CodeGitFailed, "Check the brain folder with git status.", "read the brain's git configuration: %v", err)
	}
	if len(keys) == 0 {
		return nil
	}
	return fail(CodeInvalidConfig, "Remove them (git -C "+root+" config --unset "+keys[0]+", and likewise for each), then try again; the notes plugin never runs git with them.",
		"the brain's .git/config sets %s, which make git run a program on the brain's files", strings.Join(keys, ", "))
}
