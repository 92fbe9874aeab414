package brain

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/notes/internal/index"
)

// The retrieval evaluation: Git's documentation split into 3,828 notes and
// 136 questions asked by meaning (testdata/gitdocs/README.md says where
// they come from and how the held-out third was drawn).

// evalNote is one note of the corpus.
type evalNote struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// evalQuestion is one question with every note that answers it.
type evalQuestion struct {
	ID       int      `json:"id"`
	Set      string   `json:"set"`
	Question string   `json:"question"`
	Expect   []string `json:"expect"`
}

// evalMinRecall is the floor of recall@5 on the held-out questions for
// keyword search: what lexical search reaches (0.378; the baseline, FTS5
// BM25 with all terms then any, had 0.289). The goal is 0.90,
// which keyword search cannot reach; the floor fails when it regresses.
const evalMinRecall = 0.37

// evalMinRecallFallback is the same floor for search without WordNet (it
// reaches 0.356).
const evalMinRecallFallback = 0.34

// evalMinRecallHybrid is the floor of hybrid search (keyword and meaning
// fused, what mode auto does with the model installed) on the held-out
// questions: it reaches 0.333 (tune 0.473), below keyword search's 0.378;
// the floor is one question under that.
const evalMinRecallHybrid = 0.31

func loadEvalNotes(t testing.TB) []evalNote {
	t.Helper()
	return testplugin.JSONLinesGzip[evalNote](t, filepath.Join("testdata", "gitdocs", "notes.jsonl.gz"))
}

func loadEvalQuestions(t testing.TB) []evalQuestion {
	t.Helper()
	return testplugin.JSONFile[[]evalQuestion](t, filepath.Join("testdata", "gitdocs", "questions.json"))
}

// openEvalBrain imports the corpus into a new brain (as a person would:
// files, then one commit) and opens it.
func openEvalBrain(t *testing.T) *Brain {
	t.Helper()
	requireGit(t)
	// NOTES_EVAL_BRAIN keeps the imported brain in a folder across runs
	// (while tuning); by default it is a temp folder.
	root := os.Getenv("NOTES_EVAL_BRAIN")
	if root == "" {
		root = filepath.Join(t.TempDir(), "brain")
	}
	if _, err := os.Stat(filepath.Join(root, ConfigFile)); err != nil {
		if err := writeEvalBrain(context.Background(), root, loadEvalNotes(t)); err != nil {
			t.Fatal(err)
		}
	}
	b, _, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b
}

func writeEvalBrain(ctx context.Context, root string, notes []evalNote) error {
	b, _, err := Open(ctx, root)
	if err != nil {
		return err
	}
	b.Close()
	for _, n := range notes {
		typ := "source"
		if strings.HasPrefix(n.Path, "wiki/concepts/") {
			typ = "concept"
		}
		title, _ := json.Marshal(n.Title)
		text := fmt.Sprintf("---\ntype: %s\ntitle: %s\nscope: global\n---\n\n%s\n", typ, title, n.Body)
		if err := writeFileT(filepath.Join(root, filepath.FromSlash(n.Path)), text); err != nil {
			return err
		}
	}
	g := gitRunner{dir: root}
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return err
	}
	_, err = g.run(ctx, "commit", "-q", "-m", "import Git's documentation")
	return err
}

// evalScore is recall@5 and MRR (over the first 10) of a set of questions.
type evalScore struct {
	Questions int
	Recall5   float64
	MRR       float64
	Missed    []string
}

func runEval(t *testing.T, b *Brain, qs []evalQuestion, mode string) evalScore {
	t.Helper()
	var s evalScore
	for _, q := range qs {
		res, err := b.Search(context.Background(), Call{}, SearchArgs{Query: q.Question, Limit: 10, Mode: mode})
		if err != nil {
			t.Fatalf("search %q: %v", q.Question, err)
		}
		want := map[string]bool{}
		for _, p := range q.Expect {
			want[p] = true
		}
		rank := 0
		for i, h := range res.Hits {
			if want[h.Path] {
				rank = i + 1
				break
			}
		}
		s.Questions++
		if rank > 0 && rank <= 5 {
			s.Recall5++
		} else {
			var got []string
			for i, h := range res.Hits {
				if i == 5 {
					break
				}
				got = append(got, strings.TrimSuffix(filepath.Base(h.Path), ".md"))
			}
			s.Missed = append(s.Missed, fmt.Sprintf("#%d %q (rank %d) got %v", q.ID, q.Question, rank, got))
		}
		if rank > 0 {
			s.MRR += 1 / float64(rank)
		}
	}
	if s.Questions > 0 {
		s.Recall5 /= float64(s.Questions)
		s.MRR /= float64(s.Questions)
	}
	return s
}

// TestRetrievalEval asks the questions of the evaluation and fails when
// recall@5 on the held-out third is under its floors, for keyword search
// (with WordNet and without) and for hybrid search. NOTES_EVAL=tune
// evaluates the tuning set only (what ranking work looks at) and lists its
// misses; NOTES_EVAL=sweep tries fusion settings on the tuning set;
// NOTES_EVAL=small (make test's form) asks only the held-out questions by
// keyword with WordNet, against the same floor: embedding the corpus for
// search by meaning is most of the evaluation's time, and the
// TestSearchByMeaning tests run the model in make test. The held-out set
// is never printed question by question.
func TestRetrievalEval(t *testing.T) {
	if raceDetector {
		t.Skip("the retrieval evaluation runs without -race (make test runs it so)")
	}
	isolate(t)
	t.Setenv("NOTES_EMBED_MODEL", installedModel)
	qs := loadEvalQuestions(t)
	sets := map[string][]evalQuestion{}
	for _, q := range qs {
		sets[q.Set] = append(sets[q.Set], q)
	}
	if len(qs) < 100 || len(sets["heldout"]) < len(qs)/3 {
		t.Fatalf("the evaluation has %d questions, %d held out; want at least 100, a third held out", len(qs), len(sets["heldout"]))
	}
	b := openEvalBrain(t)
	if c, err := b.ix.Count(context.Background()); err != nil || c.Notes < 2000 {
		t.Fatalf("the evaluation brain has %d notes (%v); want at least 2,000", c.Notes, err)
	}
	if os.Getenv("NOTES_EVAL") == "sweep" {
		emb, err := b.embedder()
		if err != nil {
			t.Fatal(err)
		}
		prepareEvalVectors(t, b, emb)
		sweepFusion(t, b, sets["tune"])
		return
	}
	names := []string{"tune", "heldout"}
	small := os.Getenv("NOTES_EVAL") == "small"
	switch {
	case os.Getenv("NOTES_EVAL") == "tune":
		names = []string{"tune"}
	case small:
		names = []string{"heldout"}
	}
	sort.Strings(names)
	report := map[string]evalScore{}
	for _, name := range names {
		s := runEval(t, b, sets[name], "keyword")
		report["keyword "+name] = s
		if name == "tune" && os.Getenv("NOTES_EVAL") == "tune" {
			for _, m := range s.Missed {
				t.Log("  missed keyword " + m)
			}
		}
		if name == "heldout" && s.Recall5 < evalMinRecall {
			t.Errorf("keyword search: recall@5 on the held-out questions is %.3f, want at least %.2f", s.Recall5, evalMinRecall)
		}
	}
	if b.thesaurus != nil && os.Getenv("NOTES_EVAL") != "tune" && !small {
		// The fallback where WordNet is not installed: the brain's own words
		// only (stems and pseudo-relevance feedback).
		b.ix.SetExpander(nil)
		s := runEval(t, b, sets["heldout"], "keyword")
		b.ix.SetExpander(b.thesaurus)
		report["keyword without WordNet heldout"] = s
		if s.Recall5 < evalMinRecallFallback {
			t.Errorf("without WordNet, recall@5 on the held-out questions is %.3f, want at least %.2f", s.Recall5, evalMinRecallFallback)
		}
	}
	defer logEvalReport(t, report)
	if small {
		return
	}
	// Search by meaning: the sentence model `make notes-model` installs.
	emb, err := b.embedder()
	if err != nil {
		t.Errorf("search by meaning is not evaluated: %v", err)
		return
	}
	prepareEvalVectors(t, b, emb)
	for _, name := range names {
		for _, mode := range []string{"semantic", "hybrid"} {
			s := runEval(t, b, sets[name], mode)
			report[mode+" "+name] = s
			if name == "tune" && os.Getenv("NOTES_EVAL") == "tune" {
				for _, m := range s.Missed {
					t.Log("  missed " + mode + " " + m)
				}
			}
		}
	}
	if s := report["hybrid heldout"]; s.Questions > 0 && s.Recall5 < evalMinRecallHybrid {
		t.Errorf("hybrid search: recall@5 on the held-out questions is %.3f, want at least %.2f (the goal is 0.90)", s.Recall5, evalMinRecallHybrid)
	}
}

// logEvalReport prints recall@5 and MRR per mode and set, the figures the
// plugin README quotes.
func logEvalReport(t *testing.T, report map[string]evalScore) {
	keys := slices.Sorted(maps.Keys(report))
	t.Log("retrieval evaluation (Git's documentation, 3,828 notes): mode, set, questions, recall@5, MRR")
	for _, k := range keys {
		s := report[k]
		t.Logf("  %-36s %3d  recall@5 %.3f  MRR %.3f", k, s.Questions, s.Recall5, s.MRR)
	}
}

// sweepFusion tries fusion settings on the tune questions only
// (NOTES_EVAL=sweep), to choose the defaults in vectors.go: each
// question's two rankings are computed once, then fused every way.
func sweepFusion(t *testing.T, b *Brain, tune []evalQuestion) {
	ctx := context.Background()
	emb, err := b.embedder()
	if err != nil {
		t.Fatal(err)
	}
	type ranked struct {
		q   evalQuestion
		kw  []index.Hit
		vec []index.VectorHit
	}
	var rs []ranked
	f := index.Filter{AsOf: b.today()}
	for _, q := range tune {
		kw, _, _, err := b.ix.Search(ctx, q.Question, f, 100)
		if err != nil {
			t.Fatal(err)
		}
		qv, err := emb.Embed(ctx, []string{q.Question})
		if err != nil {
			t.Fatal(err)
		}
		vec, err := b.ix.VectorSearch(ctx, qv[0], f, 100)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, ranked{q, kw, vec})
	}
	score := func(hits func(r ranked) []string) (float64, float64) {
		var r5, mrr float64
		for _, r := range rs {
			want := map[string]bool{}
			for _, p := range r.q.Expect {
				want[p] = true
			}
			for i, p := range hits(r) {
				if want[p] {
					if i < 5 {
						r5++
					}
					mrr += 1 / float64(i+1)
					break
				}
			}
		}
		return r5 / float64(len(rs)), mrr / float64(len(rs))
	}
	r5, mrr := score(func(r ranked) []string {
		return fusedPaths(fuse(nil, r.vec, 10, fusion{k: 60, depth: 100, floor: -1, vecWeight: 1}))
	})
	t.Logf("sweep: vectors alone recall@5 %.3f MRR %.3f", r5, mrr)
	for _, k := range []int{5, 10, 30, 60} {
		for _, depth := range []int{10, 20, 50, 100} {
			for _, floor := range []float64{0.01, 0.3, 0.4, 0.5} {
				for _, w := range []float64{0.5, 1, 1.5, 2, 3} {
					fu := fusion{k: k, depth: depth, floor: floor, vecWeight: w}
					r5, mrr := score(func(r ranked) []string { return fusedPaths(fuse(r.kw, r.vec, 10, fu)) })
					t.Logf("sweep k %d depth %d floor %.2f weight %.1f: recall@5 %.3f MRR %.3f", k, depth, floor, w, r5, mrr)
				}
			}
		}
	}
}

func fusedPaths(fs []fused) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		if f.kw != nil {
			out[i] = f.kw.Path
		} else {
			out[i] = f.vec.Path
		}
	}
	return out
}
