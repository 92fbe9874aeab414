package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNothingToCommit is CommitPaths' error when the paths hold what HEAD
// holds.
var ErrNothingToCommit = errors.New("nothing to commit")

// FolderError says a path to commit is a folder in HEAD.
type FolderError struct{ Path string }

func (e *FolderError) Error() string {
	return e.Path + " is a folder in HEAD and a file in the working tree"
}

// CommitPaths commits paths, each as the working tree holds it (or removed
// when the working tree has no file there), as one commit on top of HEAD,
// with git's own commands writing every object, index entry and ref; see
// StartCommit and PendingCommit.Finish. Then it runs git's upkeep
// (Maintain) and waits for it. Its object writers serve this commit only.
func CommitPaths(ctx context.Context, g Runner, paths []string, msg string) error {
	objs := NewObjects(g.Dir)
	defer objs.Close()
	pc, err := StartCommit(ctx, g, objs, paths, msg)
	if err != nil {
		return err
	}
	if err := pc.Finish(ctx, paths); err != nil {
		return err
	}
	if _, err := pc.Maintain(ctx).Wait(); err != nil {
		return fmt.Errorf("git maintenance after the commit: %w", err)
	}
	return nil
}

// PendingCommit is a commit made ready ahead of the files it commits:
// HEAD's folders on the paths' way are known (from earlier commits, or git
// ls-tree lists them meanwhile), git update-ref --stdin waits for its
// input, and the repository's object writers (Objects) are held for it,
// so that process start-up overlaps the caller's own work (the hand-edit
// check, the journal, the files) instead of adding to the write's time.
type PendingCommit struct {
	g       Runner
	msg     string
	old     string
	dirs    map[string]map[string]treeEntry
	lsTree  *Proc
	updRef  *Proc
	objs    *Objects
	hashObj *server
	mktree  *server
	// talking is true while a conversation with the object writers is
	// under way: one cut short leaves them unusable.
	talking bool
	settled bool
}

// StartCommit resolves HEAD and makes ready a commit of paths (more paths
// at the root may join in Finish) with msg, cleaned up as git commit -m
// cleans it, holding objs until Abort or Finish.
func StartCommit(ctx context.Context, g Runner, objs *Objects, paths []string, msg string) (*PendingCommit, error) {
	msg = cleanMessage(msg)
	if msg == "" {
		return nil, errors.New("the commit message is empty")
	}
	old, err := g.HeadFast(ctx)
	if err != nil {
		return nil, err
	}
	pc := &PendingCommit{g: g.Literal(), msg: msg, old: old, dirs: map[string]map[string]treeEntry{"": {}}, objs: objs}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			pc.dirs[d] = map[string]treeEntry{}
		}
	}
	if listed, ok := knownTrees.listing(old, pc.dirs); ok {
		pc.dirs = listed
	} else {
		spec := []string{"ls-tree", "-z", "--full-tree", old, "--", "./"}
		for d := range pc.dirs {
			if d != "" {
				spec = append(spec, d+"/")
			}
		}
		if pc.lsTree, err = pc.g.start(ctx, spec...); err != nil {
			return nil, err
		}
	}
	subject, _, _ := strings.Cut(msg, "\n")
	if pc.updRef, err = pc.g.start(ctx, "update-ref", "-m", "commit: "+subject, "--stdin", "-z"); err != nil {
		pc.Abort()
		return nil, err
	}
	dirs := make([]string, 0, len(pc.dirs))
	for d := range pc.dirs {
		dirs = append(dirs, d)
	}
	if pc.hashObj, pc.mktree, err = objs.acquire(ctx, pc.g, dirs); err != nil {
		pc.objs = nil
		pc.Abort()
		return nil, err
	}
	return pc, nil
}

// Abort ends the processes of a commit that will not be made and gives
// the object writers back.
func (pc *PendingCommit) Abort() {
	if pc.settled {
		return
	}
	pc.settled = true
	for _, p := range []*Proc{pc.lsTree, pc.updRef} {
		if p != nil {
			_, _ = p.Wait()
		}
	}
	if pc.objs != nil {
		pc.objs.release(pc.talking)
	}
}

// Finish commits paths as the working tree now holds them:
//
//   - git hash-object, waiting since StartCommit, writes the files' blobs
//     (with the repository's filters, as git add does);
//   - git update-index then stages the paths in the person's index as git
//     add would (filters, modes, stat data), and only those paths: whatever
//     else a person staged stays staged and out of the commit. The blobs
//     are in already, so it hashes the files but writes no object;
//   - meanwhile git mktree writes the folders git ls-tree listed anew with
//     those blobs in place (a folder left empty goes, as a commit by git add
//     and git commit drops it), and git commit-tree writes the commit; when
//     a mode is not a plain file's, git ls-files -s reads back what was
//     staged first;
//   - once the index took the paths, git update-ref moves HEAD from the
//     commit the tree was built on, or fails when HEAD moved meanwhile.
//
// No index is rebuilt from HEAD and no other path is hashed or refreshed,
// which is what makes it cheaper than git add + git commit -- PATHS. An
// unchanged tree is "nothing to commit"; on a failure HEAD is untouched
// (the caller unstages the paths).
func (pc *PendingCommit) Finish(ctx context.Context, paths []string) error {
	defer pc.Abort()
	for _, p := range paths {
		if _, ok := pc.dirs[parentDir(p)]; !ok {
			return fmt.Errorf("%s was not among the paths the commit started with", p)
		}
	}
	present := map[string]bool{}
	simple := true
	var feed strings.Builder
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(pc.g.Dir, filepath.FromSlash(p)))
		switch {
		case err == nil && fi.Mode().IsRegular() && !strings.ContainsAny(p, "\n") && !strings.HasPrefix(p, `"`):
			present[p] = true
			feed.WriteString(p + "\n")
		case err == nil:
			simple = false
		}
	}
	pc.talking = true
	answers, err := pc.hashObj.ask([]byte(feed.String()), len(present))
	if err != nil {
		return err
	}
	pc.talking = false
	ids := map[string]string{}
	for _, p := range paths {
		if present[p] {
			ids[p], answers = answers[0], answers[1:]
		}
	}
	updIdx, err := pc.g.start(ctx, "update-index", "--add", "--remove", "-z", "--stdin")
	if err != nil {
		return err
	}
	defer updIdx.Wait()
	if _, err := io.WriteString(updIdx.in, strings.Join(paths, "\x00")+"\x00"); err != nil {
		_, werr := updIdx.Wait()
		return fmt.Errorf("git update-index: %w (%v)", err, werr)
	}
	updIdx.closeInput()
	CrashPoint("git-update-index")
	if err := pc.readListing(); err != nil {
		return err
	}
	// The staged entries replace HEAD's; a path git did not stage is gone.
	// A regular file staged where HEAD has none or a regular, non-executable
	// one is a 100644 blob of the id git hash-object gave (git add takes
	// the mode from the file, which the brain writes 0644, or keeps the
	// entry's); anything else (an executable bit, a link, a submodule, a
	// folder) is read back from the index, as git staged it.
	want := map[string]*treeEntry{}
	for _, p := range paths {
		want[p] = nil
		if e, had := pc.dirs[parentDir(p)][path.Base(p)]; had && e.mode != "100644" {
			simple = false
		}
	}
	if simple {
		for p, id := range ids {
			want[p] = &treeEntry{mode: "100644", typ: "blob", oid: id}
		}
	} else {
		if _, err := updIdx.Wait(); err != nil {
			return err
		}
		staged, err := pc.g.Run(ctx, append([]string{"ls-files", "-s", "-z", "--"}, paths...)...)
		if err != nil {
			return err
		}
		for _, rec := range splitNul(staged) {
			e, p, err := parseStageRecord(rec)
			if err != nil {
				return fmt.Errorf("git ls-files: %w", err)
			}
			if _, ok := want[p]; ok {
				want[p] = &e
			}
		}
	}
	changed := false
	for p, e := range want {
		entries := pc.dirs[parentDir(p)]
		before, had := entries[path.Base(p)]
		switch {
		case e == nil && had:
			delete(entries, path.Base(p))
			changed = true
		case e != nil && (!had || before != *e):
			if had && before.typ == "tree" {
				return &FolderError{Path: p}
			}
			entries[path.Base(p)] = *e
			changed = true
		}
	}
	if !changed {
		return fmt.Errorf("%w: %s unchanged", ErrNothingToCommit, strings.Join(paths, ", "))
	}
	tree, err := pc.writeTrees()
	if err != nil {
		return err
	}
	out, err := pc.g.RunInput(ctx, pc.msg, "commit-tree", tree, "-p", pc.old)
	if err != nil {
		return err
	}
	commit := strings.TrimSpace(out)
	// HEAD moves only once the index holds what the commit holds.
	if _, err := updIdx.Wait(); err != nil {
		return err
	}
	if _, err := io.WriteString(pc.updRef.in, "update HEAD\x00"+commit+"\x00"+pc.old+"\x00"); err != nil {
		return fmt.Errorf("git update-ref: %w", err)
	}
	CrashPoint("git-update-ref")
	if _, err := pc.updRef.Wait(); err != nil {
		return err
	}
	knownTrees.addCommit(commit, tree)
	return nil
}

// readListing fills pc.dirs with what git ls-tree listed, when the folders
// were not known already, and keeps each listed folder's entries by its id.
func (pc *PendingCommit) readListing() error {
	if pc.lsTree == nil {
		return nil
	}
	listed, err := pc.lsTree.Wait()
	if err != nil {
		return err
	}
	for _, rec := range splitNul(listed) {
		e, p, err := parseTreeRecord(rec)
		if err != nil {
			return fmt.Errorf("git ls-tree: %w", err)
		}
		if entries, ok := pc.dirs[parentDir(p)]; ok {
			entries[path.Base(p)] = e
		}
	}
	for d, entries := range pc.dirs {
		if d == "" {
			continue
		}
		if e, ok := pc.dirs[parentDir(d)][path.Base(d)]; ok && e.typ == "tree" {
			knownTrees.addTree(e.oid, entries)
		}
	}
	return nil
}

// treeEntry is one entry of a git tree as git ls-tree and git mktree write
// it.
type treeEntry struct {
	mode, typ, oid string
}

// writeTrees has git mktree write every folder of pc.dirs, deepest first,
// each with its new sub-folders in place; a folder left empty is dropped
// from its parent. It returns the root tree.
func (pc *PendingCommit) writeTrees() (string, error) {
	order := make([]string, 0, len(pc.dirs))
	for d := range pc.dirs {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		if di, dj := depth(order[i]), depth(order[j]); di != dj {
			return di > dj
		}
		return order[i] < order[j]
	})
	CrashPoint("git-mktree")
	root := ""
	for _, d := range order {
		entries := pc.dirs[d]
		if len(entries) == 0 && d != "" {
			delete(pc.dirs[parentDir(d)], path.Base(d))
			continue
		}
		var batch bytes.Buffer
		for name, e := range entries {
			fmt.Fprintf(&batch, "%s %s %s\t%s\x00", e.mode, e.typ, e.oid, name)
		}
		batch.WriteByte(0)
		pc.talking = true
		answer, err := pc.mktree.ask(batch.Bytes(), 1)
		if err != nil {
			return "", err
		}
		pc.talking = false
		id := answer[0]
		knownTrees.addTree(id, entries)
		if d == "" {
			root = id
			continue
		}
		pc.dirs[parentDir(d)][path.Base(d)] = treeEntry{mode: "040000", typ: "tree", oid: id}
	}
	return root, nil
}

// Proc is a git process started ahead of its input, its output gathered
// for Wait.
type Proc struct {
	cmd     *exec.Cmd
	args    []string
	in      io.WriteCloser
	buf     bytes.Buffer
	errb    bytes.Buffer
	err     error
	waited  bool
	waitOut string
}

// start starts git with args, its stdin open for the caller to write.
func (g Runner) start(ctx context.Context, args ...string) (*Proc, error) {
	bin, err := Binary()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	cmd := exec.CommandContext(ctx, bin, append(append([]string{}, Hardening...), args...)...)
	cmd.Dir = g.Dir
	cmd.Env = append(Env(), g.Env...)
	cmd.SysProcAttr = procAttr()
	p := &Proc{cmd: cmd, args: args}
	cmd.Stderr = &p.errb
	cmd.Stdout = &p.buf
	if p.in, err = cmd.StdinPipe(); err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	if err := cmd.Start(); err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	return p, nil
}

func (p *Proc) closeInput() {
	if p.in != nil {
		_ = p.in.Close()
	}
}

// Wait closes the process's input and waits for it to end: its output,
// or a git_failed error with its stderr.
func (p *Proc) Wait() (string, error) {
	if p.waited || p.cmd == nil {
		if p.err != nil {
			return p.waitOut, &Error{Args: p.args, Stderr: strings.TrimSpace(p.errb.String()), Err: p.err}
		}
		return p.waitOut, nil
	}
	p.waited = true
	p.closeInput()
	if err := p.cmd.Wait(); err != nil {
		p.err = err
	}
	p.waitOut = p.buf.String()
	if p.err != nil {
		return p.waitOut, &Error{Args: p.args, Stderr: strings.TrimSpace(p.errb.String()), Err: p.err}
	}
	return p.waitOut, nil
}

// Literal is g with pathspecs taken literally: a path's * or ? is its own
// character.
func (g Runner) Literal() Runner {
	return Runner{Dir: g.Dir, Env: append(append([]string{}, g.Env...), "GIT_LITERAL_PATHSPECS=1")}
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
