package discovery

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/registry"
)

// answerBytes is the size of the JSON the capabilities tool would answer q
// with (what the MCP handler marshals).
func answerBytes(tb testing.TB, ans map[string]any) int {
	tb.Helper()
	b, err := json.Marshal(ans)
	if err != nil {
		tb.Fatal(err)
	}
	return len(b)
}

// BenchmarkDiscoveryLarge measures, on the large catalogue (239 real tool
// definitions), what discovery costs an agent against what a client
// without toolhost pays:
//
//   - bytes: for each question of testdata/eval/large.tsv, the capabilities
//     answers an agent reads to reach the right call shape — the search,
//     then {name, action} of the wanted action when the search shows it;
//     when it does not, the agent's fallback: the list, the tool's schema
//     (or index) and the action — against the bytes of every tool
//     definition listed at once;
//   - time: the p50 of a search (the questions in turn) against the p50 of
//     capabilities {} (the list), both answered and marshalled as the
//     handler does, in the same run.
func BenchmarkDiscoveryLarge(b *testing.B) {
	snap, defs := largeCatalogue(b)
	qs := readQuestions(b, "large.tsv")
	for b.Loop() {
		total, found := 0, 0
		for _, q := range qs {
			ans, _ := Answer(snap, Query{Search: q.text}, 0)
			n := answerBytes(b, ans)
			want := ""
			for _, m := range ans["matches"].([]map[string]any) {
				if k := answerKey(m); slices.Contains(q.want, k) {
					want = k
					break
				}
			}
			if want != "" {
				found++
			} else {
				want = q.want[0]
				list, _ := Answer(snap, Query{}, 0)
				tool, _, _ := strings.Cut(want, "/")
				schema, _ := Answer(snap, Query{Name: tool}, 0)
				n += answerBytes(b, list) + answerBytes(b, schema)
			}
			tool, action, _ := strings.Cut(want, "/")
			args, env := Answer(snap, Query{Name: tool, Action: action}, 0)
			if env != nil {
				b.Fatalf("%s: %v", want, env)
			}
			total += n + answerBytes(b, args)
		}
		mean := float64(total) / float64(len(qs))
		b.Logf("discovery bytes: %.0f a question on average (search then the action's args; %d of %d found by the search, the rest through list, schema and action) vs %d listing all %d tool definitions: %.1f%%",
			mean, found, len(qs), len(defs), countActions(snap), 100*mean/float64(len(defs)))

		timeOf := func(q Query) time.Duration {
			start := time.Now()
			ans, _ := Answer(snap, q, 0)
			answerBytes(b, ans)
			return time.Since(start)
		}
		Answer(snap, Query{Search: "warm the index"}, 0)
		const rounds = 20
		var search, list []time.Duration
		for range rounds {
			for _, q := range qs {
				search = append(search, timeOf(Query{Search: q.text}))
				list = append(list, timeOf(Query{}))
			}
		}
		slices.Sort(search)
		slices.Sort(list)
		ps, pl := search[len(search)/2], list[len(list)/2]
		b.Logf("discovery time: search p50 %v, capabilities {} p50 %v: search/list %.2fx", ps, pl, float64(ps)/float64(pl))
	}
}

// countActions counts the actions of every tool and agent of snap.
func countActions(snap *registry.Snapshot) int {
	n := 0
	for _, t := range snap.Tools {
		n += len(t.Manifest.Actions)
	}
	return n
}
