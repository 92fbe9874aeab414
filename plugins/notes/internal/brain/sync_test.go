package brain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
	"github.com/toolhost/toolhost/plugins/notes/internal/secrets/secretstest"
)

// bareRemote makes an empty bare repository on disk: the remote two
// machines share.
func bareRemote(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	if _, err := (gitRunner{dir: filepath.Dir(dir)}).run(context.Background(), "init", "-q", "--bare", "-b", "main", dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// machine is a brain on one machine: a fresh one with the remote added
// (first), or a clone of the remote.
func machine(t *testing.T, name, remote string, clone bool) *env {
	t.Helper()
	e := newEnv(t)
	if clone {
		if _, err := (gitRunner{dir: filepath.Dir(e.root)}).run(context.Background(), "clone", "-q", remote, e.root); err != nil {
			t.Fatal(err)
		}
	}
	e.brain().Machine = name
	if !clone {
		e.git("remote", "add", "origin", remote)
	}
	return e
}

func (e *env) sync(want string) map[string]any {
	e.t.Helper()
	t0 := time.Now()
	m := e.ok("sync", nil)
	e.t.Logf("sync %s ms=%v wall=%v", str(m, "status"), m["ms"], time.Since(t0))
	if str(m, "status") != want {
		e.t.Fatalf("sync: status %s, want %s: %v", str(m, "status"), want, m)
	}
	return m
}

// handEdit changes a file as a person would, without committing.
func (e *env) handEdit(rel, content string) {
	e.t.Helper()
	if err := writeFileT(filepath.Join(e.root, filepath.FromSlash(rel)), content); err != nil {
		e.t.Fatal(err)
	}
}

func noHalfMerge(t *testing.T, e *env) {
	t.Helper()
	e.clean()
	if e.exists(".git/MERGE_HEAD") {
		t.Fatal("a merge was left in progress")
	}
	if out, _ := (gitRunner{dir: e.root}).run(context.Background(), "grep", "-l", "-e", "^<<<<<<< ", "HEAD", "--", "."); strings.TrimSpace(out) != "" {
		t.Fatalf("conflict markers committed: %s", out)
	}
}

func TestSyncTwoClonesKeepBothVersions(t *testing.T) {
	requireGit(t)
	remote := bareRemote(t)
	a := machine(t, "laptop", remote, false)
	first := a.sync(notesync.OK)
	if first["pushed"].(float64) < 1 {
		t.Fatalf("the first sync pushed nothing: %v", first)
	}
	a.ok("write-page", map[string]any{"path": "wiki/concepts/Queues.md", "content": "Queues decouple producers from consumers.",
		"frontmatter": map[string]any{"type": "concept"}})
	a.sync(notesync.OK)

	b := machine(t, "desktop", remote, true)
	b.sync(notesync.OK)
	if !strings.Contains(b.file("wiki/concepts/Queues.md"), "decouple") {
		t.Fatal("the clone does not have the note")
	}

	// Both machines change the same note; each also remembers something
	// (both journals and catalogues change) and edits a file by hand.
	a.ok("write-page", map[string]any{"path": "wiki/concepts/Queues.md", "mode": "overwrite", "content": "Laptop: SQS queues retry for 4 days."})
	b.ok("write-page", map[string]any{"path": "wiki/concepts/Queues.md", "mode": "overwrite", "content": "Desktop: RabbitMQ queues need a dead-letter exchange."})
	a.ok("remember", map[string]any{"type": "gotcha", "content": "The laptop's VPN drops SSH sessions after an hour."})
	b.ok("remember", map[string]any{"type": "gotcha", "content": "The desktop's disk fills up with Docker images."})
	a.handEdit("wiki/entities/Laptop.md", "---\ntype: entity\n---\nWritten by hand on the laptop.\n")
	b.handEdit("wiki/entities/Desktop.md", "---\ntype: entity\n---\nWritten by hand on the desktop.\n")

	ra := a.sync(notesync.OK)
	if ra["committed"] == nil {
		t.Fatalf("the hand edits were not committed: %v", ra)
	}
	rb := b.sync(notesync.OK)
	if str(rb, "integration") != "merge" || rb["pulled"].(float64) < 1 {
		t.Fatalf("b did not merge a's commits: %v", rb)
	}
	conflicts := list(rb, "conflicts")
	if len(conflicts) != 1 {
		t.Fatalf("want one conflict (the note; log.md and index.md never conflict-copied), got %v", conflicts)
	}
	cf := conflicts[0].(map[string]any)
	cp := str(cf, "copy")
	if str(cf, "path") != "wiki/concepts/Queues.md" || !strings.HasPrefix(cp, "wiki/concepts/Queues.conflict-desktop-") || !strings.HasSuffix(cp, ".md") {
		t.Fatalf("conflict %v", cf)
	}
	if !strings.Contains(b.file("wiki/concepts/Queues.md"), "Laptop: SQS") || !strings.Contains(b.file(cp), "Desktop: RabbitMQ") {
		t.Fatalf("both versions are not kept:\nnote: %s\ncopy: %s", b.file("wiki/concepts/Queues.md"), b.file(cp))
	}
	if log := b.file(LogFile); !strings.Contains(log, "VPN drops SSH") || !strings.Contains(log, "Docker images") || !strings.Contains(log, "merge origin/main") {
		t.Fatalf("log.md did not merge as a union with the merge journalled:\n%s", log)
	}
	if idx := b.file(IndexFile); !strings.Contains(idx, "VPN drops SSH") || !strings.Contains(idx, "Docker images") ||
		!strings.Contains(idx, "wiki/entities/Laptop.md") || strings.Contains(idx, ".conflict-") {
		t.Fatalf("index.md was not regenerated for the merged tree:\n%s", idx)
	}
	for _, p := range b.brain().conflictCopies() {
		if !strings.HasPrefix(p, "wiki/concepts/Queues.conflict-") {
			t.Fatalf("unexpected conflict copy %s", p)
		}
	}
	noHalfMerge(t, b)

	lint := b.ok("lint", map[string]any{"rules": []any{"conflict_copy"}})
	if got := paths(list(lint, "findings")); len(got) != 1 || got[0] != cp {
		t.Fatalf("lint does not list the copy: %v", lint)
	}
	// The index was refreshed after the merge: the other machine's note is
	// found, the copy is not a second note.
	if hits := b.ok("search", map[string]any{"query": "VPN SSH sessions"}); len(list(hits, "hits")) == 0 {
		t.Fatalf("b does not find a's memory: %v", hits)
	}
	if st := b.ok("status", nil); len(list(st, "conflicts")) != 1 {
		t.Fatalf("status does not list the copy: %v", st["conflicts"])
	}

	if ra := a.sync(notesync.OK); !strings.Contains(str(ra, "next_step"), cp) {
		t.Fatalf("a's sync does not point at the copy waiting to be merged: %v", ra["next_step"])
	}
	noHalfMerge(t, a)
	if got := paths(list(a.ok("lint", map[string]any{"rules": []any{"conflict_copy"}}), "findings")); len(got) != 1 || got[0] != cp {
		t.Fatalf("a's lint does not list the copy: %v", got)
	}
	if hits := a.ok("search", map[string]any{"query": "Docker images disk"}); len(list(hits, "hits")) == 0 {
		t.Fatalf("a does not find b's memory: %v", hits)
	}
	if a.head() != b.head() {
		t.Fatal("the machines did not converge")
	}
}

func TestSyncOfflineLosesNothing(t *testing.T) {
	requireGit(t)
	remote := bareRemote(t)
	a := machine(t, "laptop", remote, false)
	a.sync(notesync.OK)
	away := remote + ".away"
	if err := os.Rename(remote, away); err != nil {
		t.Fatal(err)
	}
	a.ok("remember", map[string]any{"type": "decision", "content": "We moved the queue workers to spot instances to halve the bill."})
	a.handEdit("wiki/entities/Spot.md", "Spot instances, written by hand.\n")
	r := a.sync(notesync.Offline)
	if str(r, "remote_error") == "" || r["committed"] == nil || !strings.Contains(str(r, "next_step"), "Nothing is lost") {
		t.Fatalf("offline answer: %v", r)
	}
	a.clean()
	if err := os.Rename(away, remote); err != nil {
		t.Fatal(err)
	}
	r = a.sync(notesync.OK)
	if r["pushed"].(float64) < 2 {
		t.Fatalf("the offline commits were not sent: %v", r)
	}
	b := machine(t, "desktop", remote, true)
	if !strings.Contains(b.file("wiki/entities/Spot.md"), "written by hand") {
		t.Fatal("the hand edit did not reach the remote")
	}
	if hits := b.ok("search", map[string]any{"query": "spot instances bill"}); len(list(hits, "hits")) == 0 {
		t.Fatalf("the decision did not reach the other machine: %v", hits)
	}
}

func TestSyncRefusals(t *testing.T) {
	requireGit(t)
	fx := secretstest.Fixtures(7)

	t.Run("no remote", func(t *testing.T) {
		e := newEnv(t)
		e.brain()
		e.handEdit("wiki/entities/A.md", "by hand\n")
		r := e.sync(notesync.Blocked)
		if str(r, "config_problem") == "" || !strings.Contains(str(r, "next_step"), "remote add") || r["committed"] == nil {
			t.Fatalf("%v", r)
		}
	})
	t.Run("secret in a hand edit", func(t *testing.T) {
		remote := bareRemote(t)
		e := machine(t, "m", remote, false)
		e.sync(notesync.OK)
		before := e.head()
		e.handEdit("wiki/entities/Deploy.md", "Deploy with token "+fx["github-token"]+"\n")
		r := e.sync(notesync.Blocked)
		s := list(r, "secrets")
		if len(s) != 1 || str(s[0].(map[string]any), "file") != "wiki/entities/Deploy.md" || strings.Contains(testplugin.JSON(t, r), fx["github-token"]) {
			t.Fatalf("%v", r)
		}
		if e.head() != before {
			t.Fatal("a file with a secret was committed")
		}
		// A person's marker lets a false positive through.
		e.handEdit("wiki/entities/Deploy.md", "Deploy with token "+fx["github-token"]+" <!-- "+notesync.AllowSecretMarker+" -->\n")
		e.sync(notesync.OK)
	})
	t.Run("secret in a commit about to be pushed", func(t *testing.T) {
		remote := bareRemote(t)
		e := machine(t, "m", remote, false)
		e.sync(notesync.OK)
		e.writeHuman("wiki/entities/Key.md", "key: "+fx["stripe-key"]+"\n")
		r := e.sync(notesync.Blocked)
		if s := list(r, "secrets"); len(s) == 0 || s[0].(map[string]any)["line"].(float64) != 1 {
			t.Fatalf("%v", r)
		}
		if out, _ := (gitRunner{dir: remote}).run(context.Background(), "log", "--oneline", "main"); strings.Contains(out, "Key.md") {
			t.Fatal("the secret was pushed")
		}
	})
	t.Run("busy", func(t *testing.T) {
		e := newEnv(t)
		e.brain()
		unlock, err := tryLock(filepath.Join(e.root, StateDir, "sync.lock"))
		if err != nil || unlock == nil {
			t.Fatalf("take the sync lock: %v", err)
		}
		defer unlock()
		e.sync(notesync.Busy)
	})
	t.Run("a merge an interrupted sync left is aborted", func(t *testing.T) {
		remote := bareRemote(t)
		a := machine(t, "a", remote, false)
		a.sync(notesync.OK)
		b := machine(t, "b", remote, true)
		a.handEdit("wiki/entities/X.md", "from a\n")
		a.sync(notesync.OK)
		b.handEdit("wiki/entities/X.md", "from b\n")
		b.git("add", "-A")
		b.git("commit", "-q", "-m", "b")
		b.git("fetch", "-q", "origin")
		// What a sync killed mid-merge leaves: MERGE_HEAD, markers, its marker file.
		_, _ = gitRunner{dir: b.root}.run(context.Background(), "merge", "--no-commit", "origin/main")
		if err := os.WriteFile(filepath.Join(b.root, StateDir, notesync.MergeMarker), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := b.sync(notesync.OK)
		if len(list(r, "recovered")) != 1 || len(list(r, "conflicts")) != 1 {
			t.Fatalf("%v", r)
		}
		noHalfMerge(t, b)
	})
}

// TestSyncErrorsCarryTheBrainsCodes: a git failure inside sync is the
// brain's git_failed, not a code of its own.
func TestSyncErrorsCarryTheBrainsCodes(t *testing.T) {
	if notesync.CodeGitFailed != CodeGitFailed {
		t.Fatalf("notesync.CodeGitFailed is %q, want the brain's %q", notesync.CodeGitFailed, CodeGitFailed)
	}
}
