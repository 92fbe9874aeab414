package brain

import (
	"context"
	"crypto/sha1"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitT runs git in dir for a test, with the brain's isolated environment.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRunner{dir: dir}.run(context.Background(), args...)
	if err != nil {
		t.Fatalf("git %v in %s: %v", args, dir, err)
	}
	return out
}

// commitStep is one write of the differential test: files to write
// (content) or remove (""), the message, and what a person does by hand
// before it.
type commitStep struct {
	files map[string]string
	msg   string
	hand  func(t *testing.T, dir string)
}

// plainGit runs git as a person would at a terminal: the system's git on
// the inherited PATH, none of the brain's -c settings, only a throwaway
// HOME and a fixed identity.
func plainGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@x",
		"GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// TestCommitPathsMatchesGit is the differential test of the brain's
// commit: the same writes go to two clones of one repository, one through
// gitCommitPaths (git add + git commit -- PATHS with the brain's hardened
// settings) and one through a person's plain git add + git commit --
// PATHS. Both must end with the same trees, messages, index (git ls-files
// -s), status and staged changes, and the brain's must pass git fsck
// --strict — for new folders, edits, removals that empty a folder, a
// person's staged change that must stay staged and uncommitted, messages
// git cleans up, and a repository whose objects and refs git gc packed.
func TestCommitPathsMatchesGit(t *testing.T) {
	requireGit(t)
	isolate(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // on the origin before cloning
		steps []commitStep
	}{
		{
			name: "new folders, edits, removals",
			steps: []commitStep{
				{files: map[string]string{"memory/gotchas/a.md": "# A\n\nfirst\n", "index.md": "# Index\n- a\n"}, msg: "remember: a\n\n- add a\n\nNotes-Op: 1\n"},
				{files: map[string]string{"wiki/deep/er/b.md": "# B\n", "index.md": "# Index\n- a\n- b\n"}, msg: "write-page: b"},
				{files: map[string]string{"memory/gotchas/a.md": "# A\n\nsecond\n"}, msg: "patch-page: a  \n\n\n\nbody line with trailing space   \n\n"},
				{files: map[string]string{"wiki/deep/er/b.md": "", "wiki/b.md": "# B\n"}, msg: "move: b"},
				{files: map[string]string{"memory/gotchas/a.md": "", "index.md": "# Index\n- b\n"}, msg: "forget: a"},
			},
		},
		{
			name: "a person's staged change stays staged",
			steps: []commitStep{
				{
					hand: func(t *testing.T, dir string) {
						writeFileT(filepath.Join(dir, "raw", "mine.txt"), "staged by hand\n")
						writeFileT(filepath.Join(dir, "README.md"), "edited, not staged\n")
						gitT(t, dir, "add", "raw/mine.txt")
					},
					files: map[string]string{"memory/x.md": "x\n"},
					msg:   "remember: x",
				},
				{files: map[string]string{"memory/x.md": "x2\n", "raw/y.txt": "y\n"}, msg: "remember: y"},
			},
		},
		{
			name: "an executable file rewritten",
			setup: func(t *testing.T, dir string) {
				writeFileT(filepath.Join(dir, "tools", "run.sh"), "echo 1\n")
				if err := os.Chmod(filepath.Join(dir, "tools", "run.sh"), 0o755); err != nil {
					t.Fatal(err)
				}
				gitT(t, dir, "add", "-A")
				gitT(t, dir, "commit", "-q", "-m", "tools")
			},
			steps: []commitStep{
				// Where git does not trust the file's mode, it keeps the
				// entry's: run.sh stays executable.
				{hand: func(t *testing.T, dir string) { gitT(t, dir, "config", "core.filemode", "false") },
					files: map[string]string{"tools/run.sh": "echo 2\n", "tools/new.sh": "echo 3\n"}, msg: "write-page: tools"},
			},
		},
		{
			name: "packed objects and refs",
			setup: func(t *testing.T, dir string) {
				for i := range 30 {
					writeFileT(filepath.Join(dir, "memory", "facts", fmt.Sprintf("f%02d.md", i)), fmt.Sprintf("fact %d\n", i))
				}
				gitT(t, dir, "add", "-A")
				gitT(t, dir, "commit", "-q", "-m", "facts")
				gitT(t, dir, "gc", "-q")
			},
			steps: []commitStep{
				{hand: func(t *testing.T, dir string) { gitT(t, dir, "gc", "-q") }, files: map[string]string{"memory/facts/f07.md": "fact 7, amended\n"}, msg: "patch-page: f07"},
				{files: map[string]string{"memory/facts/f08.md": ""}, msg: "forget: f08"},
			},
		},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin := filepath.Join(t.TempDir(), "origin")
			writeFileT(filepath.Join(origin, "README.md"), "brain\n")
			writeFileT(filepath.Join(origin, "memory", "gotchas", ".gitkeep"), "")
			gitT(t, origin, "init", "-q", "-b", "main")
			gitT(t, origin, "add", "-A")
			gitT(t, origin, "commit", "-q", "-m", "init")
			if tt.setup != nil {
				tt.setup(t, origin)
			}
			fast, slow := filepath.Join(t.TempDir(), "fast"), filepath.Join(t.TempDir(), "slow")
			for _, d := range []string{fast, slow} {
				gitT(t, filepath.Dir(d), "clone", "-q", origin, d)
				if tt.setup != nil {
					gitT(t, d, "gc", "-q")
				}
			}
			for i, st := range tt.steps {
				for _, dir := range []string{fast, slow} {
					if st.hand != nil {
						st.hand(t, dir)
					}
					var paths []string
					for p, content := range st.files {
						paths = append(paths, p)
						abs := filepath.Join(dir, filepath.FromSlash(p))
						if content == "" {
							if err := os.Remove(abs); err != nil {
								t.Fatal(err)
							}
							continue
						}
						if err := writeAtomic(abs, []byte(content)); err != nil {
							t.Fatal(err)
						}
					}
					old := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
					if dir == fast {
						if err := gitCommitPaths(ctx, gitRunner{dir: dir}, paths, st.msg); err != nil {
							t.Fatalf("step %d: the brain's commit: %v", i, err)
						}
						if head := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD")); head == old {
							t.Fatalf("step %d: HEAD did not move", i)
						}
					} else {
						plainGit(t, dir, append([]string{"add", "-A", "--"}, paths...)...)
						plainGit(t, dir, append([]string{"commit", "-q", "-m", st.msg, "--"}, paths...)...)
					}
				}
				for _, args := range [][]string{
					{"log", "--format=%T%n%B", "-1"}, // commit ids differ (times); trees and messages must not
					{"ls-files", "-s"},
					{"status", "--porcelain", "--untracked-files=all"},
					{"diff", "--cached", "--name-status"},
				} {
					got, want := gitT(t, fast, args...), gitT(t, slow, args...)
					if got != want {
						t.Fatalf("step %d: git %s differs:\nthe brain:\n%s\nplain git:\n%s", i, strings.Join(args, " "), got, want)
					}
				}
			}
			if out, err := (gitRunner{dir: fast}).run(ctx, "fsck", "--strict", "--no-dangling"); err != nil || strings.TrimSpace(out) != "" {
				t.Fatalf("git fsck --strict: %v\n%s", err, out)
			}
			if got, want := gitT(t, fast, "log", "--format=%T %s"), gitT(t, slow, "log", "--format=%T %s"); got != want {
				t.Fatalf("histories differ:\nthe brain:\n%s\nplain git:\n%s", got, want)
			}
			if got := gitT(t, fast, "reflog", "-1", "--format=%gs"); !strings.HasPrefix(got, "commit: ") {
				t.Fatalf("reflog says %q, want the commit's subject as git writes it", got)
			}
		})
	}
}

// TestCommitPathsWhereTheOldWriterSteppedAside: the repository states the
// plugin's own object and index writer could not handle (attributes that
// change content, index version 4, a split index, a detached HEAD) are
// git's to handle now, so a write simply commits; a lock someone else
// holds fails with nothing changed; an unchanged path is "nothing to
// commit" as git says.
func TestCommitPathsWhereTheOldWriterSteppedAside(t *testing.T) {
	requireGit(t)
	isolate(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		commits bool
	}{
		{"gitattributes", func(t *testing.T, dir string) {
			writeFileT(filepath.Join(dir, ".gitattributes"), "*.md text eol=crlf\n")
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "attrs")
		}, true},
		{"index version 4", func(t *testing.T, dir string) { gitT(t, dir, "update-index", "--index-version", "4") }, true},
		{"detached HEAD", func(t *testing.T, dir string) { gitT(t, dir, "checkout", "-q", "--detach") }, true},
		{"split index", func(t *testing.T, dir string) { gitT(t, dir, "update-index", "--split-index") }, true},
		{"index locked by someone else", func(t *testing.T, dir string) { writeFileT(filepath.Join(dir, ".git", "index.lock"), "") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			writeFileT(filepath.Join(dir, "a.md"), "a\n")
			gitT(t, dir, "init", "-q", "-b", "main")
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "init")
			tt.setup(t, dir)
			writeFileT(filepath.Join(dir, "b.md"), "b\n")
			head := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
			err := gitCommitPaths(ctx, gitRunner{dir: dir}, []string{"b.md"}, "remember: b")
			now := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
			if tt.commits {
				if err != nil || now == head {
					t.Fatalf("commit: %v (HEAD %s → %s)", err, head, now)
				}
				if out := gitT(t, dir, "fsck", "--strict", "--no-dangling"); strings.TrimSpace(out) != "" {
					t.Fatalf("git fsck: %s", out)
				}
				return
			}
			if err == nil || now != head {
				t.Fatalf("got %v, HEAD %s → %s; want a failure with nothing committed", err, head, now)
			}
		})
	}
	t.Run("nothing to commit", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "b")
		writeFileT(filepath.Join(dir, "a.md"), "a\n")
		gitT(t, dir, "init", "-q", "-b", "main")
		gitT(t, dir, "add", "-A")
		gitT(t, dir, "commit", "-q", "-m", "init")
		err := gitCommitPaths(ctx, gitRunner{dir: dir}, []string{"a.md"}, "remember: a")
		if err == nil || !strings.Contains(err.Error(), "nothing") {
			t.Fatalf("got %v, want nothing to commit", err)
		}
	})
}

// TestRememberLeavesGitHappy: a run of remembers through the plugin leaves a repository git fsck --strict
// accepts, a clean status, one commit per write with its trailers, and a
// git commit by hand afterwards that works as usual.
func TestRememberLeavesGitHappy(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	before := e.head()
	for _, c := range []string{
		"The billing queue drains slowly when the consumer batches too much",
		"Postgres vacuum must run before the nightly migration",
		"Kafka partitions rebalance when a follower restarts",
		"Terraform state lives in the shared bucket with locking",
		"Redis sessions expire after thirty minutes of idle time",
		"Nginx retries upstream timeouts once before failing",
	} {
		if r := e.ok("remember", map[string]any{"type": "gotcha", "content": c}); r["commit"] == nil {
			t.Fatalf("remember %q committed nothing: %v", c, r)
		}
	}
	e.clean()
	if out := e.git("fsck", "--strict", "--no-dangling"); strings.TrimSpace(out) != "" {
		t.Fatalf("git fsck: %s", out)
	}
	log := e.git("log", "--format=%(trailers:key=Notes-Action,valueonly)", before+"..HEAD")
	if got := strings.Count(log, "remember"); got != 6 {
		t.Fatalf("%d remember commits, want 6:\n%s", got, log)
	}
	e.writeHuman("wiki/concepts/by-hand.md", "---\ntype: concept\n---\nby hand\n")
	e.clean()
	e.ok("remember", map[string]any{"type": "gotcha", "content": "After a commit by hand the next write reloads the tree"})
	e.clean()
	if !strings.Contains(e.git("show", "--name-only", "--format=", "HEAD~1"), "wiki/concepts/by-hand.md") {
		t.Fatal("the hand commit is not below the last write")
	}
}

// TestCommitPathsRunsAutoGC: the brain's commit is git commit, which runs
// git gc --auto once git's estimate of loose objects (folder 17) passes
// gc.auto's default, so a brain written only by the plugin still gets
// packed (no -c setting of the brain turns that off).
func TestCommitPathsRunsAutoGC(t *testing.T) {
	requireGit(t)
	isolate(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "b")
	writeFileT(filepath.Join(dir, "a.md"), "a\n")
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "config", "gc.autoDetach", "false") // so the pack is there when the commit returns
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "init")
	write := func(name string) {
		writeFileT(filepath.Join(dir, name), name+"\n")
		if err := gitCommitPaths(ctx, gitRunner{dir: dir}, []string{name}, "remember: "+name); err != nil {
			t.Fatal(err)
		}
	}
	packs := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
		return m
	}
	write("b.md")
	if p := packs(); len(p) != 0 {
		t.Fatalf("packed with few loose objects: %v", p)
	}
	// 28 loose objects in folder 17: git's estimate is then over 6,700.
	for i, n := 0, 0; n < 28; i++ {
		data := fmt.Sprintf("loose %d\n", i)
		if id := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(data), data))); id[0] == 0x17 {
			f := filepath.Join(t.TempDir(), "loose")
			writeFileT(f, data)
			gitT(t, dir, "hash-object", "-w", f)
			n++
		}
	}
	write("c.md")
	if len(packs()) == 0 {
		t.Fatal("no git gc --auto after a commit with too many loose objects")
	}
	if out := gitT(t, dir, "fsck", "--strict", "--no-dangling"); strings.TrimSpace(out) != "" {
		t.Fatalf("git fsck: %s", out)
	}
}
