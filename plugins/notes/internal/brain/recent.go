package brain

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"
)

// RecentArgs are recent's args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type RecentArgs struct {
	Since string `json:"since"`
	Limit int    `json:"limit"`
}

// RecentOp is one operation recent lists.
type RecentOp struct {
	Op      string   `json:"op"`
	Action  string   `json:"action"`
	Commit  string   `json:"commit"`
	Date    string   `json:"date"`
	Session string   `json:"session"`
	Client  string   `json:"client"`
	Changes []string `json:"changes"`
	Paths   []string `json:"paths"`
}

// RecentResult is recent's answer.
type RecentResult struct {
	DataNotice string     `json:"data_notice"`
	Since      string     `json:"since"`
	Ops        []RecentOp `json:"ops"`
	// Uncommitted lists the notes a person changed by hand and has not
	// committed (known while the plugin watches the brain).
	Uncommitted []string `json:"uncommitted"`
	Truncated   bool     `json:"truncated"`
	NextStep    string   `json:"next_step"`
}

// Recent lists what changed since a date, newest first, from git: every
// commit (the tool's operations and a person's own commits) with the notes
// it touched.
func (b *Brain) Recent(ctx context.Context, c Call, a RecentArgs) (*RecentResult, error) {
	since, err := time.Parse("2006-01-02", a.Since)
	if err != nil {
		if since, err = time.Parse(time.RFC3339, a.Since); err != nil {
			return nil, fail(CodeInvalidArgument, "Pass since as YYYY-MM-DD or an RFC 3339 time.", "since %q is not a date", a.Since)
		}
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	g := gitRunner{dir: b.Root}
	window := []string{"--since=" + since.UTC().Format(time.RFC3339), "-n", strconv.Itoa(a.Limit + 1)}
	entries, err := g.log(ctx, window...)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	out, err := g.run(ctx, append([]string{"log", "--format=%x1e%H %cI", "--name-only", "--no-renames"}, window...)...)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	type meta struct {
		date  string
		paths []string
	}
	byCommit := map[string]meta{}
	for _, rec := range strings.Split(out, "\x1e") {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		hash, date, ok := strings.Cut(lines[0], " ")
		if !ok {
			continue
		}
		m := meta{date: date, paths: []string{}}
		for _, p := range lines[1:] {
			if p = strings.TrimSpace(p); p != "" && !isDerived(p) {
				m.paths = append(m.paths, p)
			}
		}
		byCommit[hash] = m
	}
	res := &RecentResult{DataNotice: DataNotice, Since: a.Since, Ops: []RecentOp{}, Uncommitted: []string{}}
	for _, e := range entries {
		if len(res.Ops) == a.Limit {
			res.Truncated = true
			break
		}
		m := byCommit[e.Commit]
		// git reads some dates loosely (far-future ones are ignored):
		// the commit's own date decides.
		if d, err := time.Parse(time.RFC3339, m.date); err == nil && d.Before(since) {
			continue
		}
		action := e.Trailer.Action
		if action == "" {
			action = "commit"
		}
		changes := nonNil(e.Changes)
		if e.Trailer.Op == "" && len(changes) == 0 {
			changes = []string{e.Subject}
		}
		res.Ops = append(res.Ops, RecentOp{Op: e.Trailer.Op, Action: action, Commit: e.Commit, Date: m.date, Session: e.Trailer.Session,
			Client: e.Trailer.Client, Changes: changes, Paths: nonNil(m.paths)})
	}
	st, err := b.gitStatus(ctx)
	if err != nil {
		return nil, err
	}
	for p := range st {
		res.Uncommitted = append(res.Uncommitted, p)
	}
	sort.Strings(res.Uncommitted)
	res.NextStep = "Read a note with read; undo({ op }) reverts one of these operations."
	if res.Truncated {
		res.NextStep = "More operations happened since then: raise limit or pass a later since."
	}
	return res, nil
}
