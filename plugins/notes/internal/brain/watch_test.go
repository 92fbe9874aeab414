package brain

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// watched starts the brain's watcher with an OnIndexed signal.
func (e *env) watched() (*Brain, <-chan string) {
	e.t.Helper()
	b := e.brain()
	indexed := make(chan string, 64)
	b.OnIndexed(func(p string) { indexed <- p })
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	if err := b.Watch(ctx); err != nil {
		e.t.Fatal(err)
	}
	return b, indexed
}

// handWrite writes a file as a person does, without git.
func (e *env) handWrite(rel, content string) {
	e.t.Helper()
	if err := writeFileT(filepath.Join(e.root, filepath.FromSlash(rel)), content); err != nil {
		e.t.Fatal(err)
	}
}

// hit returns search's hit for path, nil when it is not found.
func (e *env) hit(query, path string) map[string]any {
	e.t.Helper()
	for _, h := range list(e.ok("search", map[string]any{"query": query}), "hits") {
		if m := h.(map[string]any); str(m, "path") == path {
			return m
		}
	}
	return nil
}

// TestWatcherHandEditsReachSearch: while the watcher runs, a note a person
// creates (in a new folder too), edits or deletes by hand is found by
// search, marked uncommitted until it is committed; a path an open write
// journal holds is left to that write.
func TestWatcherHandEditsReachSearch(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.writeHuman("wiki/concepts/Queues.md", "---\ntype: concept\ntitle: Queues\n---\nWe use SQS for the billing pipeline.\n")
	b, indexed := e.watched()

	// A write in flight holds memory/gotchas/held.md: a hand change to it
	// is not indexed by the watcher (the write indexes it when it ends).
	head := e.head()
	j, err := b.beginJournal("01HELDOP", "remember", head, []string{"memory/gotchas/held.md"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.handWrite("memory/gotchas/held.md", "---\ntype: gotcha\ntitle: Held\n---\nquetzalcoatl mentioned here.\n")
	e.handWrite("wiki/topics/Zanzibar.md", "---\ntype: concept\ntitle: Zanzibar\n---\nThe zanzibar service signs every request.\n")
	for p := range indexed {
		if p == "memory/gotchas/held.md" {
			t.Fatal("the watcher indexed a path an open journal holds")
		}
		if p == "wiki/topics/Zanzibar.md" {
			break
		}
	}
	b.endJournal(j)
	if err := os.Remove(filepath.Join(e.root, "memory/gotchas/held.md")); err != nil {
		t.Fatal(err)
	}

	h := e.hit("zanzibar", "wiki/topics/Zanzibar.md")
	if h == nil || h["uncommitted"] != true {
		t.Fatalf("search zanzibar: got %v, want the hand-written note marked uncommitted", h)
	}
	if e.hit("quetzalcoatl", "memory/gotchas/held.md") != nil {
		t.Fatal("search found the held path")
	}

	// A hand edit of a committed note, searched at once: search itself
	// waits until the watcher has handled every change made before it (a
	// barrier file through the watcher's own queue of events).
	e.handWrite("wiki/concepts/Queues.md", "---\ntype: concept\ntitle: Queues\n---\nWe moved billing from SQS to kafkaesque topics.\n")
	if h := e.hit("kafkaesque", "wiki/concepts/Queues.md"); h == nil || h["uncommitted"] != true {
		t.Fatalf("search kafkaesque: got %v, want the edited note marked uncommitted", h)
	}

	// Committed by hand: no longer uncommitted.
	e.git("add", "-A")
	e.git("commit", "-q", "-m", "by hand")
	if h := e.hit("kafkaesque", "wiki/concepts/Queues.md"); h == nil || h["uncommitted"] == true {
		t.Fatalf("after the commit: got %v, want the note not marked uncommitted", h)
	}

	// Deleted by hand: gone from search.
	if err := os.Remove(filepath.Join(e.root, "wiki/topics/Zanzibar.md")); err != nil {
		t.Fatal(err)
	}
	if h := e.hit("zanzibar", "wiki/topics/Zanzibar.md"); h != nil {
		t.Fatalf("deleted note still found: %v", h)
	}
}

// TestWatcherTakesInEditsMadeWhileStopped: a note written by hand before
// the watcher started is searchable once it starts.
func TestWatcherTakesInEditsMadeWhileStopped(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("status", nil)
	e.handWrite("memory/gotchas/offline.md", "---\ntype: gotcha\ntitle: Offline\n---\nThe xylophone job needs the VPN.\n")
	e.watched()
	if h := e.hit("xylophone", "memory/gotchas/offline.md"); h == nil || h["uncommitted"] != true {
		t.Fatalf("got %v, want the note written before the watcher started, marked uncommitted", h)
	}
}
