package brain

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path"
	"sort"
	"strings"
)

// gitCommitPaths commits paths, each as the working tree holds it (or
// removed when the working tree has no file there), as one commit on top of
// HEAD, with git's own commands writing every object, index entry and ref:
//
//   - git update-index stages the paths in the person's index as git add
//     would (filters, modes, stat data), and only those paths: whatever else
//     a person staged stays staged and out of the commit;
//   - git ls-files -s reads back what it staged, git ls-tree lists HEAD's
//     folders on the paths' way, and git mktree writes those folders anew
//     with the staged entries in place (a folder left empty goes, as a
//     commit by git add and git commit drops it);
//   - git commit-tree writes the commit and git update-ref moves HEAD from
//     the commit the tree was built on, or fails when HEAD moved meanwhile;
//   - git maintenance run --auto, as git commit runs it.
//
// No index is rebuilt from HEAD and no other path is hashed or refreshed,
// which is what makes it cheaper than git add + git commit -- PATHS. The
// message is cleaned up as git commit -m cleans it. An unchanged tree is
// "nothing to commit"; on a failure before update-ref HEAD is untouched
// (the caller unstages the paths).
func gitCommitPaths(ctx context.Context, g gitRunner, paths []string, msg string) error {
	msg = cleanMessage(msg)
	if msg == "" {
		return fail(CodeGitFailed, "Nothing was changed. Give the commit a message.", "the commit message is empty")
	}
	old, err := g.headFast(ctx)
	if err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	lit := gitRunner{dir: g.dir, env: append(append([]string{}, g.env...), "GIT_LITERAL_PATHSPECS=1")}
	nul := strings.Join(paths, "\x00") + "\x00"
	if _, err := lit.runInput(ctx, nul, "update-index", "--add", "--remove", "-z", "--stdin"); err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	staged, err := lit.run(ctx, append([]string{"ls-files", "-s", "-z", "--"}, paths...)...)
	if err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	// Every folder on the paths' way, root ("") included.
	dirs := map[string]map[string]treeEntry{"": {}}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = map[string]treeEntry{}
		}
	}
	spec := []string{"ls-tree", "-z", "--full-tree", old, "--", "./"}
	for d := range dirs {
		if d != "" {
			spec = append(spec, d+"/")
		}
	}
	listed, err := lit.run(ctx, spec...)
	if err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	for _, rec := range splitNul(listed) {
		e, p, err := parseTreeRecord(rec)
		if err != nil {
			return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "git ls-tree: %v", err)
		}
		if entries, ok := dirs[parentDir(p)]; ok {
			entries[path.Base(p)] = e
		}
	}
	// The staged entries replace HEAD's; a path git did not stage is gone.
	want := map[string]*treeEntry{}
	for _, p := range paths {
		want[p] = nil
	}
	for _, rec := range splitNul(staged) {
		e, p, err := parseStageRecord(rec)
		if err != nil {
			return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "git ls-files: %v", err)
		}
		if _, ok := want[p]; ok {
			want[p] = &e
		}
	}
	changed := false
	for p, e := range want {
		entries := dirs[parentDir(p)]
		before, had := entries[path.Base(p)]
		switch {
		case e == nil && had:
			delete(entries, path.Base(p))
			changed = true
		case e != nil && (!had || before != *e):
			if had && before.typ == "tree" {
				return fail(CodeConflict, "Nothing was changed. Move the folder "+p+" aside, or commit its removal, first.",
					"%s is a folder in HEAD and a file in the working tree", p)
			}
			entries[path.Base(p)] = *e
			changed = true
		}
	}
	if !changed {
		return fail(CodeGitFailed, "Nothing was changed: the files already hold what HEAD holds.", "nothing to commit: %s unchanged", strings.Join(paths, ", "))
	}
	tree, err := writeTrees(ctx, lit, dirs)
	if err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	out, err := g.runInput(ctx, msg, "commit-tree", tree, "-p", old)
	if err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	commit := strings.TrimSpace(out)
	subject, _, _ := strings.Cut(msg, "\n")
	if _, err := g.run(ctx, "update-ref", "-m", "commit: "+subject, "HEAD", commit, old); err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	// As git commit does after every commit: git packs what needs it.
	if _, err := g.run(ctx, "maintenance", "run", "--auto", "--quiet"); err != nil {
		return fail(CodeGitFailed, "The write is committed; run git gc in the brain.", "%v", err)
	}
	return nil
}

// treeEntry is one entry of a git tree as git ls-tree and git mktree write
// it.
type treeEntry struct {
	mode, typ, oid string
}

// writeTrees has git mktree write every folder of dirs, deepest first, each
// with its new sub-folders in place; a folder left empty is dropped from
// its parent. It returns the root tree.
func writeTrees(ctx context.Context, g gitRunner, dirs map[string]map[string]treeEntry) (string, error) {
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		if di, dj := depth(order[i]), depth(order[j]); di != dj {
			return di > dj
		}
		return order[i] < order[j]
	})
	bin, err := gitBinary()
	if err != nil {
		return "", err
	}
	args := append(append([]string{}, gitHardening...), "mktree", "--batch", "-z")
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = g.dir
	cmd.Env = append(gitEnv(), g.env...)
	cmd.SysProcAttr = gitProcAttr()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", fmt.Errorf("git mktree: %w", err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return "", fmt.Errorf("git mktree: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("git mktree: %w", err)
	}
	crashPoint("git-mktree")
	out := bufio.NewReader(outPipe)
	failed := func(err error) (string, error) {
		in.Close()
		_ = cmd.Wait()
		return "", fmt.Errorf("git mktree: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	root := ""
	for _, d := range order {
		entries := dirs[d]
		if len(entries) == 0 && d != "" {
			delete(dirs[parentDir(d)], path.Base(d))
			continue
		}
		var batch bytes.Buffer
		for name, e := range entries {
			fmt.Fprintf(&batch, "%s %s %s\t%s\x00", e.mode, e.typ, e.oid, name)
		}
		batch.WriteByte(0)
		if _, err := in.Write(batch.Bytes()); err != nil {
			return failed(err)
		}
		line, err := out.ReadString('\n')
		if err != nil {
			return failed(err)
		}
		id := strings.TrimSpace(line)
		if d == "" {
			root = id
			continue
		}
		dirs[parentDir(d)][path.Base(d)] = treeEntry{mode: "040000", typ: "tree", oid: id}
	}
	if err := in.Close(); err != nil {
		return failed(err)
	}
	if _, err := io.Copy(io.Discard, out); err != nil {
		return failed(err)
	}
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("git mktree: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	return root, nil
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// parentDir is the folder holding p, "" for the root.
func parentDir(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

func splitNul(s string) []string {
	var out []string
	for _, r := range strings.Split(s, "\x00") {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// parseTreeRecord reads one record of git ls-tree -z: "mode type oid\tpath".
func parseTreeRecord(rec string) (treeEntry, string, error) {
	meta, p, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 3 {
		return treeEntry{}, "", fmt.Errorf("unexpected record %q", rec)
	}
	return treeEntry{mode: f[0], typ: f[1], oid: f[2]}, p, nil
}

// parseStageRecord reads one record of git ls-files -s -z: "mode oid
// stage\tpath"; the type follows from the mode, as git mktree checks.
func parseStageRecord(rec string) (treeEntry, string, error) {
	meta, p, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 3 {
		return treeEntry{}, "", fmt.Errorf("unexpected record %q", rec)
	}
	if f[2] != "0" {
		return treeEntry{}, "", fmt.Errorf("%s is still unmerged (stage %s)", p, f[2])
	}
	typ := "blob"
	switch f[0] {
	case "160000":
		typ = "commit"
	case "040000":
		typ = "tree"
	}
	return treeEntry{mode: f[0], typ: typ, oid: f[1]}, p, nil
}

// cleanMessage cleans a commit message as git commit -m does (its
// "whitespace" clean-up): trailing white space off every line, runs of
// empty lines folded to one, none at the start or end, and a final line
// break.
func cleanMessage(msg string) string {
	var out strings.Builder
	empties := 0
	for _, line := range strings.SplitAfter(msg, "\n") {
		line = strings.TrimRight(line, " \t\n\r")
		if line == "" {
			empties++
			continue
		}
		if empties > 0 && out.Len() > 0 {
			out.WriteByte('\n')
		}
		empties = 0
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.String()
}
