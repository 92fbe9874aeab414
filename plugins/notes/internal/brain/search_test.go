package brain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/wordnet"
)

// TestSearchCurrentFactFirst: for an as-of-today query, a fact that
// expired or was superseded never ranks above the one current now, even
// when its text matches the query better.
func TestSearchCurrentFactFirst(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	// Through remember: the second fact supersedes the first.
	old := e.ok("remember", map[string]any{"type": "fact", "content": "The billing service deploys to the alpha cluster; billing deploys go to alpha.",
		"subject": "Billing service", "predicate": "deploys_to", "object": "alpha cluster", "valid-from": "2026-01-10"})
	cur := e.ok("remember", map[string]any{"type": "fact", "content": "Billing now deploys to the beta cluster.",
		"subject": "Billing service", "predicate": "deploys_to", "object": "beta cluster"})
	if str(cur, "decision") != "superseded" {
		t.Fatalf("second fact: got %v, want superseded", cur)
	}
	// By hand: an old note that says it was superseded but carries no end
	// date, and one that expired yesterday; both repeat the query's words
	// more than the current note does.
	e.writeHuman("memory/facts/queue-broker-old.md", "---\ntype: fact\ntitle: Queue broker is RabbitMQ\nsubject: Queue broker\npredicate: is\nobject: RabbitMQ\n"+
		"superseded_by:\n  - \"[[queue-broker-new]]\"\n---\n\nQueue broker: RabbitMQ. The queue broker for every queue is RabbitMQ.\n")
	e.writeHuman("memory/facts/queue-broker-new.md", "---\ntype: fact\ntitle: Queue broker is Kafka\nsubject: Queue broker\npredicate: is\nobject: Kafka\n"+
		"supersedes:\n  - \"[[queue-broker-old]]\"\n---\n\nThe broker is Kafka since March.\n")
	e.writeHuman("memory/facts/oncall-old.md", "---\ntype: fact\ntitle: On-call pager rotation weekly\nexpires_at: \"2026-11-12\"\n---\n\nOn-call pager rotation: the on-call pager rotation is weekly.\n")
	e.writeHuman("memory/facts/oncall-new.md", "---\ntype: fact\ntitle: Pager duty rotates daily\n---\n\nThe on-call rotation is daily now.\n")
	tests := []struct {
		name, query, current, stale string
	}{
		{"superseded by remember", "billing deploys alpha cluster", str(cur, "path"), str(old, "path")},
		{"superseded by hand, no end date", "queue broker rabbitmq", "memory/facts/queue-broker-new.md", "memory/facts/queue-broker-old.md"},
		{"expired", "on-call pager rotation", "memory/facts/oncall-new.md", "memory/facts/oncall-old.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := paths(list(e.ok("search", map[string]any{"query": tt.query}), "hits"))
			cur, stale := -1, -1
			for i, p := range hits {
				switch p {
				case tt.current:
					cur = i
				case tt.stale:
					stale = i
				}
			}
			if cur < 0 {
				t.Fatalf("hits %v lack the current fact %s", hits, tt.current)
			}
			if stale >= 0 && stale < cur {
				t.Fatalf("hits %v: the stale fact %s (rank %d) outranks the current one %s (rank %d)", hits, tt.stale, stale+1, tt.current, cur+1)
			}
		})
	}
}

// TestSearchSaysWhatItUsed: without the sentence model (isolate turns it
// off) a search never pretends to search by meaning,
// and says when synonyms are not used.
func TestSearchSaysWhatItUsed(t *testing.T) {
	requireGit(t)
	tests := []struct {
		name, mode, wordnet string
		want                []string // warning codes
	}{
		{"keyword", "keyword", "", nil},
		{"auto", "auto", "", []string{"mode_unavailable"}},
		{"hybrid", "hybrid", "", []string{"mode_unavailable"}},
		{"no wordnet", "keyword", "missing", []string{"thesaurus_unavailable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.wordnet != "" {
				t.Setenv("NOTES_WORDNET", filepath.Join(t.TempDir(), tt.wordnet))
			} else if _, err := os.Stat(filepath.Join(wordnet.DefaultDir, "index.noun")); err != nil {
				t.Skipf("WordNet is not installed (make deps installs wordnet-base): %v", err)
			}
			e.ok("remember", map[string]any{"type": "gotcha", "content": "The staging database refuses connections after midnight."})
			m := e.ok("search", map[string]any{"query": "staging database", "mode": tt.mode})
			var got []string
			for _, w := range list(m, "warnings") {
				got = append(got, str(w.(map[string]any), "code"))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("warnings %v, want %v", got, tt.want)
			}
			if str(m, "mode_used") != "keyword" || len(list(m, "hits")) != 1 {
				t.Fatalf("mode_used %q with %d hits, want keyword with 1", str(m, "mode_used"), len(list(m, "hits")))
			}
		})
	}
}
