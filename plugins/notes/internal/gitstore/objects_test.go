package gitstore

import (
	"context"
	"strings"
	"testing"
)

// TestObjectsFollowAttributes: the long-lived object writers serve
// commit after commit, and an attributes file written between two commits
// is honoured by the second, as git add honours it: the blob committed is
// the one git stages, so the index matches HEAD and status is clean.
func TestObjectsFollowAttributes(t *testing.T) {
	ctx := context.Background()
	g := repo(t, map[string]string{"a.md": "a\n", "notes/b.md": "b\n"})
	objs := NewObjects(g.Dir)
	defer objs.Close()
	commit := func(paths ...string) {
		t.Helper()
		pc, err := StartCommit(ctx, g, objs, paths, "commit "+strings.Join(paths, " "))
		if err != nil {
			t.Fatal(err)
		}
		if err := pc.Finish(ctx, paths); err != nil {
			t.Fatal(err)
		}
	}
	write(t, g, "notes/b.md", "b $Id: kept as written $\n")
	commit("notes/b.md")
	first := objs.hashObj
	write(t, g, "notes/c.md", "c\n")
	commit("notes/c.md")
	if objs.hashObj != first {
		t.Fatal("the object writers restarted with nothing changed")
	}
	// ident collapses $Id: …$ to $Id$ on the way in.
	write(t, g, "notes/.gitattributes", "*.md ident\n")
	write(t, g, "notes/b.md", "b $Id: now collapsed $\n")
	commit("notes/b.md")
	tree, err := g.Run(ctx, "ls-tree", "HEAD", "--", "notes/b.md")
	if err != nil {
		t.Fatal(err)
	}
	staged, err := g.Run(ctx, "ls-files", "-s", "--", "notes/b.md")
	if err != nil {
		t.Fatal(err)
	}
	if f, s := strings.Fields(tree), strings.Fields(staged); len(f) < 3 || len(s) < 2 || f[2] != s[1] {
		t.Fatalf("HEAD has %q, the index %q: the commit did not take git's own blob", tree, staged)
	}
	if blob, _ := g.Run(ctx, "cat-file", "blob", "HEAD:notes/b.md"); blob != "b $Id$\n" {
		t.Fatalf("committed %q, want the ident attribute applied", blob)
	}
}
