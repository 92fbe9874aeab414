// Package gitstore is the notes brain's storage in git: every git command
// the brain runs goes through a Runner, isolated from the user's and the
// system's configuration, and a commit of some paths is made by git's own
// plumbing (CommitPaths). Nothing here writes an object, an index or a ref
// itself.
package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/sdk"
)

// CrashPoint is called with "git-<command>" once each git child has
// started: the brain's recovery test stops a writer there. It does nothing
// unless set.
var CrashPoint = func(point string) {}

// Runner runs the git command line in a brain, isolated from the user's
// and the system's git configuration, with a fixed identity.
type Runner struct {
	// Dir is the repository's working tree.
	Dir string
	// Env adds variables to git's environment (e.g. GIT_INDEX_FILE).
	Env []string
}

// SystemPath is the only PATH git is looked up on and runs with: the
// inherited PATH may put a fake git (or ssh) first.
const SystemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/homebrew/bin"

// Binary is the git executable, found once on SystemPath and logged.
var Binary = sync.OnceValues(func() (string, error) {
	for _, dir := range filepath.SplitList(SystemPath) {
		p := filepath.Join(dir, "git")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			sdk.Logger().Debug("notes: git", "path", p)
			return p, nil
		}
	}
	return "", fmt.Errorf("git not found in %s (the inherited PATH is never searched): install git", SystemPath)
})

// Hardening are the settings every git call runs with, whatever the
// brain's own .git/config says: a brain may arrive from anywhere (a clone,
// a copied folder), and these keys make git run programs.
var Hardening = []string{
	"-c", "core.quotepath=off", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.sshCommand=ssh",
	"-c", "core.gitProxy=", "-c", "core.pager=cat", "-c", "core.editor=true", "-c", "sequence.editor=true",
	"-c", "credential.helper=", "-c", "protocol.ext.allow=never", "-c", "diff.external=",
	"-c", "gpg.program=false", "-c", "core.askPass=",
}

// Env is the environment every git child runs with: the system PATH, no
// user or system configuration, a fixed identity, no prompts.
func Env() []string {
	keep := []string{"TMPDIR", "LANG", "LC_ALL", "SYSTEMROOT"}
	env := []string{"PATH=" + SystemPath}
	for _, k := range keep {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"HOME=/nonexistent",
		"XDG_CONFIG_HOME=/nonexistent",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=notes",
		"GIT_AUTHOR_EMAIL=notes@toolhost.local",
		"GIT_COMMITTER_NAME=notes",
		"GIT_COMMITTER_EMAIL=notes@toolhost.local",
		"GIT_OPTIONAL_LOCKS=0",
	)
}

// run runs git with args and returns stdout. A failure is git_failed with
// git's stderr in the message.
func (g Runner) Run(ctx context.Context, args ...string) (string, error) {
	return g.RunInput(ctx, "", args...)
}

// runInput is run with stdin holding input.
func (g Runner) RunInput(ctx context.Context, input string, args ...string) (string, error) {
	bin, err := Binary()
	if err != nil {
		return "", &Error{Args: args, Err: err}
	}
	full := append(append([]string{}, Hardening...), args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = g.Dir
	cmd.Env = append(Env(), g.Env...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if input != "" {
		cmd.Stdin = strings.NewReader(input)
	}
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return "", &Error{Args: args, Err: err}
	}
	if len(args) > 0 {
		CrashPoint("git-" + args[0])
	}
	if err := cmd.Wait(); err != nil {
		return out.String(), &Error{Args: args, Stderr: strings.TrimSpace(errb.String() + "\n" + out.String()), Err: err}
	}
	return out.String(), nil
}

// Error is a git command's failure: its arguments, what it wrote to
// stderr, and how it ended.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, e.Stderr)
}

func (e *Error) Unwrap() error { return e.Err }

// HeadFast reads HEAD's commit from .git without starting git: HEAD names
// a branch whose ref file holds the commit, or the ref is in packed-refs.
// Anything unusual (a worktree, a detached HEAD being written) falls back to
// git rev-parse.
func (g Runner) HeadFast(ctx context.Context) (string, error) {
	raw, err := os.ReadFile(filepath.Join(g.Dir, ".git", "HEAD"))
	if err != nil {
		return g.Head(ctx)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return g.Head(ctx)
	}
	if raw, err := os.ReadFile(filepath.Join(g.Dir, ".git", filepath.FromSlash(ref))); err == nil {
		if h := strings.TrimSpace(string(raw)); isHex40(h) {
			return h, nil
		}
		return g.Head(ctx)
	}
	if packed, err := os.ReadFile(filepath.Join(g.Dir, ".git", "packed-refs")); err == nil {
		for _, line := range strings.Split(string(packed), "\n") {
			if h, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && name == ref && isHex40(h) {
				return h, nil
			}
		}
	}
	return g.Head(ctx)
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Head is HEAD's commit, from git rev-parse.
func (g Runner) Head(ctx context.Context) (string, error) {
	out, err := g.Run(ctx, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// ChangedPaths lists the paths that differ between two commits.
func (g Runner) ChangedPaths(ctx context.Context, from, to string) ([]string, error) {
	out, err := g.Run(ctx, "diff", "--name-only", "--no-renames", "-z", from, to)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, nil
}
