package gitstore

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

// ConfigHazards lists the keys of the repository's .git/config (and what
// it includes) that would make git run a program.
func ConfigHazards(ctx context.Context, g Runner) ([]string, error) {
	out, err := g.Run(ctx, "config", "--local", "--includes", "--name-only", "--get-regexp", configHazardKeys)
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
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
