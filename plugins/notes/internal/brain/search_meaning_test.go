package brain

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
)

// installedModel is where `make notes-model` puts the model, from this
// package's folder.
var installedModel = filepath.Join("..", "..", "model", filepath.FromSlash(embed.PackagePath))

// useModel lets e's brain load the sentence model `make notes-model`
// installs (isolate turns it off for every other test).
func useModel(t *testing.T) {
	t.Helper()
	if raceDetector {
		// The model's forward pass is ~10x slower under -race; make test
		// runs these without it, with the retrieval evaluation.
		t.Skip("search by meaning runs without -race (make test runs it so)")
	}
	t.Setenv(embed.EnvModelDir, installedModel)
	if _, err := embed.Locate(); err != nil {
		t.Fatalf("%v", err)
	}
}

// kinds keeps the brain's own AGENTS.md out of these searches.
var kinds = []string{"source", "concept"}

func meaningNotes(e *env) {
	e.writeHuman("wiki/sources/git-stash.md", "---\ntype: source\ntitle: git-stash\n---\n\nStash the changes in a dirty working directory away. Use git stash when you want to record the current state of the working directory and the index, but want to go back to a clean working directory.\n")
	e.writeHuman("wiki/sources/git-clean.md", "---\ntype: source\ntitle: git-clean\n---\n\nRemove untracked files from the working tree, recursively, starting from the current directory. Only files unknown to Git are removed.\n")
	e.writeHuman("wiki/sources/git-bisect.md", "---\ntype: source\ntitle: git-bisect\n---\n\nUse binary search to find the commit that introduced a bug.\n")
	e.writeHuman("wiki/concepts/espresso.md", "---\ntype: concept\ntitle: Espresso machine\n---\n\nThe espresso machine on the third floor needs descaling every month.\n")
}

// TestSearchByMeaning: with the model, auto search is hybrid and finds
// notes that share no word with the question; semantic search uses the
// vectors alone; a question like no note adds nothing by meaning.
func TestSearchByMeaning(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	useModel(t)
	meaningNotes(e)
	tests := []struct {
		name, query, mode, wantMode, first string
	}{
		{"hybrid bridges a vocabulary gap", "coffee maker maintenance", "auto", "hybrid", "wiki/concepts/espresso.md"},
		{"semantic alone", "searching history for the commit that broke things", "semantic", "semantic", "wiki/sources/git-bisect.md"},
		{"hybrid keeps keyword matches", "descaling", "hybrid", "hybrid", "wiki/concepts/espresso.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.ok("search", map[string]any{"query": tt.query, "mode": tt.mode, "types": kinds})
			if got := str(res, "mode_used"); got != tt.wantMode {
				t.Fatalf("mode_used %q, want %q (%v)", got, tt.wantMode, res["warnings"])
			}
			hits := paths(list(res, "hits"))
			if len(hits) == 0 || hits[0] != tt.first {
				t.Fatalf("hits %v, want %s first", hits, tt.first)
			}
		})
	}
	t.Run("nothing like the question", func(t *testing.T) {
		res := e.ok("search", map[string]any{"query": "zorblat quuxification", "types": kinds})
		if hits := paths(list(res, "hits")); len(hits) != 0 {
			t.Fatalf("hits %v for a question like no note, want none", hits)
		}
	})
}

// TestSearchByMeaningFollowsEdits: a changed note is found by its new
// meaning, not its old one, and a removed note is not found at all.
func TestSearchByMeaningFollowsEdits(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	useModel(t)
	meaningNotes(e)
	q := map[string]any{"query": "searching history for the commit that broke things", "mode": "semantic", "types": kinds}
	if hits := paths(list(e.ok("search", q), "hits")); len(hits) == 0 || hits[0] != "wiki/sources/git-bisect.md" {
		t.Fatalf("before the edit: hits %v, want git-bisect first", hits)
	}
	e.writeHuman("wiki/sources/git-bisect.md", "---\ntype: source\ntitle: git-bisect\n---\n\nA recipe for lemon cake with poppy seeds.\n")
	if hits := paths(list(e.ok("search", q), "hits")); len(hits) > 0 && hits[0] == "wiki/sources/git-bisect.md" {
		t.Fatalf("after the edit: hits %v still rank the old meaning first", hits)
	}
	cake := map[string]any{"query": "baking a dessert", "mode": "semantic", "types": kinds}
	if hits := paths(list(e.ok("search", cake), "hits")); len(hits) == 0 || hits[0] != "wiki/sources/git-bisect.md" {
		t.Fatalf("after the edit: hits %v, want the note's new meaning first", hits)
	}
	e.git("rm", "-q", "wiki/sources/git-bisect.md")
	e.git("commit", "-q", "-m", "by hand: remove git-bisect")
	if hits := paths(list(e.ok("search", cake), "hits")); slices.Contains(hits, "wiki/sources/git-bisect.md") {
		t.Fatalf("after removing it: hits %v still have the note", hits)
	}
}

// TestSearchByMeaningPending: a search embeds a bounded number of sections
// and says how many still wait; later searches finish the job.
func TestSearchByMeaningPending(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	useModel(t)
	meaningNotes(e)
	e.brain().vec.perSearch = 2
	warned := func(res map[string]any) bool {
		for _, w := range list(res, "warnings") {
			if w.(map[string]any)["code"] == "vectors_pending" {
				return true
			}
		}
		return false
	}
	res := e.ok("search", map[string]any{"query": "espresso"})
	if !warned(res) {
		t.Fatalf("first search embedding 2 sections: warnings %v, want vectors_pending", res["warnings"])
	}
	// The brain holds 4 notes and AGENTS.md's sections: a few more
	// searches finish them.
	for i := 0; warned(res); i++ {
		if i == 10 {
			t.Fatalf("after 10 more searches: still %v", res["warnings"])
		}
		res = e.ok("search", map[string]any{"query": "espresso"})
	}
	if hits := paths(list(e.ok("search", map[string]any{"query": "coffee maker maintenance", "types": kinds}), "hits")); len(hits) == 0 || hits[0] != "wiki/concepts/espresso.md" {
		t.Fatalf("once every section has its vector: hits %v, want the espresso note", hits)
	}
}

// TestSearchWithoutModel: without the model, auto and semantic search
// fall back to keywords and say why.
func TestSearchWithoutModel(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	t.Setenv(embed.EnvModelDir, filepath.Join(t.TempDir(), "no-model"))
	meaningNotes(e)
	for _, mode := range []string{"auto", "semantic", "hybrid"} {
		res := e.ok("search", map[string]any{"query": "espresso machine", "mode": mode})
		if got := str(res, "mode_used"); got != "keyword" {
			t.Fatalf("%s: mode_used %q, want keyword", mode, got)
		}
		var found bool
		for _, w := range list(res, "warnings") {
			found = found || w.(map[string]any)["code"] == "mode_unavailable"
		}
		if !found {
			t.Fatalf("%s: warnings %v, want mode_unavailable", mode, res["warnings"])
		}
		if hits := paths(list(res, "hits")); len(hits) == 0 || hits[0] != "wiki/concepts/espresso.md" {
			t.Fatalf("%s: hits %v, want the espresso note", mode, hits)
		}
	}
}
