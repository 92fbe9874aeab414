package brain

import (
	"os"
	"path/filepath"
	"testing"
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
	e.ok("status", nil)
	never("a fake git on PATH")
}
