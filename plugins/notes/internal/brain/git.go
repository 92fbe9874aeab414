package brain

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
	"unicode"

	"github.com/toolhost/toolhost/sdk"
)

// gitRunner runs the git command line in a brain, isolated from the user's
// and the system's git configuration, with a fixed identity.
type gitRunner struct {
	dir string
	// env adds variables to git's environment (e.g. GIT_INDEX_FILE).
	env []string
}

// systemPath is the only PATH git is looked up on and runs with: the
// inherited PATH may put a fake git (or ssh) first.
const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/homebrew/bin"

// gitBinary is the git executable, found once on systemPath and logged.
var gitBinary = sync.OnceValues(func() (string, error) {
	for _, dir := range filepath.SplitList(systemPath) {
		p := filepath.Join(dir, "git")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			sdk.Logger().Debug("notes: git", "path", p)
			return p, nil
		}
	}
	return "", fmt.Errorf("git not found in %s (the inherited PATH is never searched): install git", systemPath)
})

// gitHardening are the settings every git call runs with, whatever the
// brain's own .git/config says: a brain may arrive from anywhere (a clone,
// a copied folder), and these keys make git run programs.
var gitHardening = []string{
	"-c", "core.quotepath=off", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.sshCommand=ssh",
	"-c", "core.gitProxy=", "-c", "core.pager=cat", "-c", "core.editor=true", "-c", "sequence.editor=true",
	"-c", "credential.helper=", "-c", "protocol.ext.allow=never", "-c", "diff.external=",
	"-c", "gpg.program=false", "-c", "core.askPass=",
}

func gitEnv() []string {
	keep := []string{"TMPDIR", "LANG", "LC_ALL", "SYSTEMROOT"}
	env := []string{"PATH=" + systemPath}
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
func (g gitRunner) run(ctx context.Context, args ...string) (string, error) {
	return g.runInput(ctx, "", args...)
}

// runInput is run with stdin holding input.
func (g gitRunner) runInput(ctx context.Context, input string, args ...string) (string, error) {
	bin, err := gitBinary()
	if err != nil {
		return "", &gitError{args: args, err: err}
	}
	full := append(append([]string{}, gitHardening...), args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = g.dir
	cmd.Env = append(gitEnv(), g.env...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if input != "" {
		cmd.Stdin = strings.NewReader(input)
	}
	cmd.SysProcAttr = gitProcAttr()
	if err := cmd.Start(); err != nil {
		return "", &gitError{args: args, err: err}
	}
	if len(args) > 0 {
		crashPoint("git-" + args[0])
	}
	if err := cmd.Wait(); err != nil {
		return out.String(), &gitError{args: args, stderr: strings.TrimSpace(errb.String() + "\n" + out.String()), err: err}
	}
	return out.String(), nil
}

type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.args, " "), e.err, e.stderr)
}

func (e *gitError) Unwrap() error { return e.err }

// trailers are the provenance lines of every commit.
type trailers struct {
	Op       string
	Action   string
	Session  string
	Client   string
	Request  string
	Approved bool
	Undoes   []string
	// Channel is the host-set channel of the call: terminal or mcp.
	Channel string
}

// commitMessage builds a commit message: the subject and body lines
// folded to one line each (a note's title may be a person's multi-line
// YAML), then a blank line and the trailers, as git interpret-trailers
// --where end --if-exists add --if-missing add writes them after such a
// message (TestCommitMessageMatchesInterpretTrailers holds it to git's
// output; git's %(trailers) reads them back). A trailer value with a line
// break or control character is refused: only the brain's own trailers
// ever reach the trailer block.
func commitMessage(subject string, body []string, t trailers) (string, error) {
	var b strings.Builder
	b.WriteString(oneLine(subject))
	b.WriteString("\n")
	if len(body) > 0 {
		b.WriteString("\n")
		for _, l := range body {
			b.WriteString(oneLine(l))
			b.WriteString("\n")
		}
	}
	var block strings.Builder
	add := func(k, v string) error {
		if v == "" {
			return nil
		}
		if strings.IndexFunc(v, isControlRune) >= 0 || strings.TrimSpace(v) != v {
			return fail(CodeInvalidArgument, "Pass "+trailerArg[k]+" as one line of printable text.",
				"%s %q cannot be recorded in the commit: it has a line break or control character, or spaces at its ends", trailerArg[k], v)
		}
		block.WriteString(k + ": " + v + "\n")
		return nil
	}
	for _, f := range t.text() {
		if f.always || *f.v != "" {
			if err := add(f.key, *f.v); err != nil {
				return "", err
			}
		}
	}
	if t.Approved {
		block.WriteString(trailerApproved + ": user\n")
	}
	for _, u := range t.Undoes {
		if err := add(trailerUndoes, u); err != nil {
			return "", err
		}
	}
	if block.Len() > 0 {
		b.WriteString("\n")
		b.WriteString(block.String())
	}
	return b.String(), nil
}

// trailerArg names, for an error, what a trailer's value came from.
var trailerArg = map[string]string{"Notes-Op": "op", "Notes-Action": "action", "Notes-Session": "session-handle",
	"Notes-Client": "the client's name", "Notes-Request": "the request id", "Notes-Channel": "the channel", trailerUndoes: "op"}

func isControlRune(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// oneLine folds line breaks and other control characters to spaces.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, isControlRune), " ")
}

// The trailers that are not one string.
const (
	trailerApproved = "Notes-Approved"
	trailerUndoes   = "Notes-Undoes"
)

// trailerField is one string trailer: its key and the field that holds it;
// always says it is written even when empty.
type trailerField struct {
	key    string
	v      *string
	always bool
}

// text lists t's string trailers in the order a commit message gives them,
// for commitMessage to write and parseTrailer to read.
func (t *trailers) text() []trailerField {
	return []trailerField{{"Notes-Op", &t.Op, true}, {"Notes-Action", &t.Action, true}, {"Notes-Session", &t.Session, true},
		{"Notes-Client", &t.Client, true}, {"Notes-Request", &t.Request, false}, {"Notes-Channel", &t.Channel, false}}
}

// parseTrailer sets the field of one commit message line when it is a
// trailer.
func (t *trailers) parseTrailer(line string) {
	k, v, ok := strings.Cut(line, ": ")
	if !ok {
		return
	}
	switch k {
	case trailerApproved:
		t.Approved = true
	case trailerUndoes:
		t.Undoes = append(t.Undoes, v)
	default:
		for _, f := range t.text() {
			if f.key == k {
				*f.v = v
			}
		}
	}
}

// logEntry is one commit with its trailers.
type logEntry struct {
	Commit  string
	Subject string
	Body    string
	Trailer trailers
	Changes []string
}

// log returns commits newest first, with parsed trailers.
func (g gitRunner) log(ctx context.Context, extra ...string) ([]logEntry, error) {
	// Trailers are read by git's own parser (%(trailers)), never from
	// body lines: a line in a body is not a trailer.
	out, err := g.run(ctx, append([]string{"-c", "trailer.separators=:", "log", "--format=%H%x1f%s%x1f%B%x1f%(trailers:only,unfold)%x1e"}, extra...)...)
	if err != nil {
		if strings.Contains(err.Error(), "does not have any commits") {
			return nil, nil
		}
		return nil, err
	}
	var entries []logEntry
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		parts := strings.SplitN(rec, "\x1f", 4)
		if len(parts) < 4 {
			continue
		}
		e := logEntry{Commit: parts[0], Subject: parts[1], Body: parts[2]}
		for _, line := range strings.Split(parts[2], "\n") {
			if change, ok := strings.CutPrefix(line, "- "); ok {
				e.Changes = append(e.Changes, change)
			}
		}
		for _, line := range strings.Split(parts[3], "\n") {
			e.Trailer.parseTrailer(line)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// headFast reads HEAD's commit from .git without starting git: HEAD names
// a branch whose ref file holds the commit, or the ref is in packed-refs.
// Anything unusual (a worktree, a detached HEAD being written) falls back to
// git rev-parse.
func (g gitRunner) headFast(ctx context.Context) (string, error) {
	raw, err := os.ReadFile(filepath.Join(g.dir, ".git", "HEAD"))
	if err != nil {
		return g.head(ctx)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return g.head(ctx)
	}
	if raw, err := os.ReadFile(filepath.Join(g.dir, ".git", filepath.FromSlash(ref))); err == nil {
		if h := strings.TrimSpace(string(raw)); isHex40(h) {
			return h, nil
		}
		return g.head(ctx)
	}
	if packed, err := os.ReadFile(filepath.Join(g.dir, ".git", "packed-refs")); err == nil {
		for _, line := range strings.Split(string(packed), "\n") {
			if h, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && name == ref && isHex40(h) {
				return h, nil
			}
		}
	}
	return g.head(ctx)
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

func (g gitRunner) head(ctx context.Context) (string, error) {
	out, err := g.run(ctx, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// changedPaths lists the paths that differ between two commits.
func (g gitRunner) changedPaths(ctx context.Context, from, to string) ([]string, error) {
	out, err := g.run(ctx, "diff", "--name-only", "--no-renames", "-z", from, to)
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
