package brain

import (
	"context"
	"github.com/toolhost/toolhost/plugins/notes/internal/gitstore"
	"strings"
)

// checkGitConfig refuses a brain whose .git/config would make git run a
// program: invalid_config naming the keys and how to remove them.
func checkGitConfig(ctx context.Context, root string) error {
	keys, err := gitstore.ConfigHazards(ctx, gitstore.Runner{Dir: root})
	if err != nil {
		return fail(CodeGitFailed, "Check the brain folder with git status.", "read the brain's git configuration: %v", err)
	}
	if len(keys) == 0 {
		return nil
	}
	return fail(CodeInvalidConfig, "Remove them (git -C "+root+" config --unset "+keys[0]+", and likewise for each), then try again; the notes plugin never runs git with them.",
		"the brain's .git/config sets %s, which make git run a program on the brain's files", strings.Join(keys, ", "))
}
