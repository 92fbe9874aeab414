package brain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
)

// marker returns a path a hostile program would create, and a check that
// it never was.
func marker(t *testing.T) (string, func(what string)) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pwned")
	return p, func(what string) {
		t.Helper()
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s ran a program it was given", what)
		}
	}
}

// TestGitIsNotTakenFromTheInheritedPath: a fake git earlier on the
// plugin's PATH never runs; git is the one found on the fixed system path.
func TestGitIsNotTakenFromTheInheritedPath(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	p, never := marker(t)
	bin := t.TempDir()
	real, err := gitBinary()
	if err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\ntouch '" + p + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	e.ok("remember", map[string]any{"content": "The billing consumer reads from SQS.", "type": "fact", "subject": "billing", "predicate": "reads-from", "object": "SQS"})
	st := e.ok("status", nil)
	never("a fake git on PATH")
	if g := str(st, "git"); g != real || strings.HasPrefix(g, bin) {
		t.Fatalf("status names git %q, want the system's %s", g, real)
	}
}

// TestHostileGitConfigRunsNothing: a brain whose .git/config sets
// core.fsmonitor to a program, and whose only remote is named like an
// option (--upload-pack=<program>), runs neither on writes, status or
// sync.
func TestHostileGitConfigRunsNothing(t *testing.T) {
	requireGit(t)
	remote := bareRemote(t)
	e := newEnv(t)
	e.brain()
	p, never := marker(t)
	script := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch '"+p+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.git("config", "core.fsmonitor", script)
	evil := "--upload-pack=touch " + p + ";git-upload-pack"
	e.git("config", "remote."+evil+".url", remote)
	e.git("config", "remote."+evil+".fetch", "+refs/heads/*:refs/remotes/x/*")
	e.ok("remember", map[string]any{"content": "The billing consumer reads from SQS.", "type": "fact", "subject": "billing", "predicate": "reads-from", "object": "SQS"})
	e.ok("status", nil)
	e.handEdit("memory/facts/by-hand.md", "---\ntype: fact\ntitle: By hand\n---\nwritten by a person\n")
	m := e.ok("sync", nil)
	never("core.fsmonitor or a remote named --upload-pack")
	if str(m, "status") != notesync.Blocked || !strings.Contains(str(m, "config_problem"), "not a plain name") {
		t.Fatalf("sync with a remote named like an option: %v", m)
	}
}

// TestGitConfigDriversAreRefused: a brain whose .git/config names a
// program git would run on its files (a merge driver named union, which
// overrides the built-in one log.md merges with, a smudge filter) is
// refused at open and at sync with invalid_config naming the key, and the
// program never runs.
func TestGitConfigDriversAreRefused(t *testing.T) {
	requireGit(t)
	for _, key := range []string{"merge.union.driver", "filter.notes.smudge", "remote.origin.uploadpack", "core.gitproxy", "core.alternaterefscommand"} {
		t.Run(key, func(t *testing.T) {
			remote := bareRemote(t)
			a := machine(t, "laptop", remote, false)
			a.ok("remember", map[string]any{"content": "The billing consumer reads from SQS.", "type": "fact", "subject": "billing", "predicate": "reads-from", "object": "SQS"})
			a.sync(notesync.OK)
			b := machine(t, "desk", remote, true)
			b.ok("remember", map[string]any{"content": "Deploys go out on Tuesdays.", "type": "fact", "subject": "deploys", "predicate": "day", "object": "Tuesday"})
			a.ok("remember", map[string]any{"content": "Invoices close on the 25th.", "type": "fact", "subject": "invoices", "predicate": "close", "object": "25th"})
			a.sync(notesync.OK)
			p, never := marker(t)
			b.git("config", key, "touch "+p+"; false")
			err := b.fails(CodeInvalidConfig, "sync", nil)
			if !strings.Contains(err.Message, key) {
				t.Fatalf("sync refused without naming %s: %s", key, err.Message)
			}
			never(key)
			b.s.Close()
			b.s = &Service{Root: b.root}
			b.fails(CodeInvalidConfig, "status", nil)
			never(key)
		})
	}
}
