package discovery

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/registry"
)

// question is one line of testdata/eval/*.tsv: a task in the user's words
// and the answers that do it (tool/action, or skill/NAME).
type question struct {
	split, text string
	want        []string
}

func readQuestions(t testing.TB, name string) []question {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "eval", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []question
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || (cols[0] != "tune" && cols[0] != "held") {
			t.Fatalf("%s:%d: want split<TAB>answers<TAB>question, split tune or held: %q", name, n, line)
		}
		out = append(out, question{split: cols[0], want: strings.Split(cols[1], "|"), text: cols[2]})
	}
	return out
}

// answerKey names a search answer's match as the questions do.
func answerKey(m map[string]any) string {
	if m["kind"] == "skill" {
		return "skill/" + m["name"].(string)
	}
	return m["name"].(string) + "/" + m["action"].(string)
}

// known checks every wanted answer exists, so a misspelt one cannot
// quietly count as a miss.
func known(t *testing.T, snap *registry.Snapshot, qs []question) {
	t.Helper()
	have := map[string]bool{}
	for _, tl := range snap.Tools {
		for _, a := range tl.Manifest.Actions {
			have[tl.Name()+"/"+a.Name] = true
		}
	}
	for _, s := range snap.Skills {
		have["skill/"+s.Name] = true
	}
	for _, q := range qs {
		for _, w := range q.want {
			if !have[w] {
				t.Fatalf("question %q wants %s, which the catalogue does not have", q.text, w)
			}
		}
	}
}

// floors are the recorded figures under which make test fails, per
// catalogue and split: recall@1, recall@3, MRR.
var floors = map[string][3]float64{
	"shipped/tune":      {0.80, 0.90, 0.84},
	"shipped/held":      {0.77, 0.93, 0.84},
	"large/tune":        {0.58, 0.83, 0.70},
	"large/held":        {0.54, 0.74, 0.65},
	"large-fresh/held":  {0.34, 0.64, 0.50},
	"large-fresh2/held": {0.60, 0.82, 0.71},
}

// TestRecall asks capabilities {search} every question of the shipped and
// the large catalogue and scores where a wanted answer comes among the
// matches the agent sees: recall@1, recall@3 and MRR, per split. The held
// split is never looked at while tuning (testdata/eval/README.md).
func TestRecall(t *testing.T) {
	large, _ := largeCatalogue(t)
	catalogues := []struct {
		name string
		snap *registry.Snapshot
	}{{"shipped", shippedCatalogue(t)}, {"large", large}, {"large-fresh", large}, {"large-fresh2", large}}
	for _, c := range catalogues {
		qs := readQuestions(t, c.name+".tsv")
		known(t, c.snap, qs)
		for _, split := range []string{"tune", "held"} {
			t.Run(c.name+"/"+split, func(t *testing.T) {
				var n, at1, at3 int
				var rr float64
				for _, q := range qs {
					if q.split != split {
						continue
					}
					n++
					ans, env := Answer(c.snap, Query{Search: q.text}, 0)
					if env != nil {
						t.Fatalf("%q: %v", q.text, env)
					}
					rank := 0
					var got []string
					for i, m := range ans["matches"].([]map[string]any) {
						k := answerKey(m)
						got = append(got, fmt.Sprintf("%s %.2f", k, m["score"]))
						if rank == 0 && slices.Contains(q.want, k) {
							rank = i + 1
						}
					}
					if rank == 1 {
						at1++
					}
					if rank >= 1 && rank <= 3 {
						at3++
						rr += 1 / float64(rank)
					} else if rank > 3 {
						rr += 1 / float64(rank)
					}
					if rank != 1 && testing.Verbose() {
						t.Logf("rank %d for %q (want %s): %s", rank, q.text, strings.Join(q.want, " or "), strings.Join(got, ", "))
					}
				}
				if n == 0 {
					t.Skipf("%s has no %s questions", c.name, split)
				}
				r1, r3, mrr := float64(at1)/float64(n), float64(at3)/float64(n), rr/float64(n)
				fmt.Printf("discovery recall %-13s n=%3d  recall@1 %.2f  recall@3 %.2f  MRR %.2f\n", c.name+"/"+split, n, r1, r3, mrr)
				f := floors[c.name+"/"+split]
				if r1 < f[0] || r3 < f[1] || mrr < f[2] {
					t.Errorf("%s/%s under the recorded floors: recall@1 %.2f (floor %.2f), recall@3 %.2f (floor %.2f), MRR %.2f (floor %.2f)",
						c.name, split, r1, f[0], r3, f[1], mrr, f[2])
				}
			})
		}
	}
}
