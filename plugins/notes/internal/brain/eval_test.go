package brain

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
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

// evalMinRecall is the floor of recall@5 on the held-out questions: what
// lexical search reaches (0.378; the baseline, FTS5 BM25 with all terms
// then any, had 0.289). The goal is 0.90, which needs search by
// meaning; the embeddings that install from the registries this project
// reaches either rank worse than keyword search (GloVe word vectors) or
// are not yet usable from Go (plugins/notes/README.md), so the floor
// guards what lexical search does and fails when it regresses.
const evalMinRecall = 0.37

// evalMinRecallFallback is the same floor for search without WordNet (it
// reaches 0.356).
const evalMinRecallFallback = 0.34

func loadEvalNotes(t testing.TB) []evalNote {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "gitdocs", "notes.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []evalNote
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var n evalNote
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadEvalQuestions(t testing.TB) []evalQuestion {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "gitdocs", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []evalQuestion
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	return qs
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
// recall@5 on the held-out third is under the goal. NOTES_EVAL=tune
// evaluates the tuning set only (what ranking work looks at) and lists its
// misses; the held-out set is never printed question by question.
func TestRetrievalEval(t *testing.T) {
	if raceDetector {
		t.Skip("the retrieval evaluation runs without -race (make test runs it so)")
	}
	isolate(t)
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
	names := []string{"tune", "heldout"}
	if os.Getenv("NOTES_EVAL") == "tune" {
		names = []string{"tune"}
	}
	sort.Strings(names)
	for _, name := range names {
		s := runEval(t, b, sets[name], "keyword")
		t.Logf("keyword search, %s set (%d questions): recall@5 %.3f, MRR %.3f", name, s.Questions, s.Recall5, s.MRR)
		if name == "tune" && os.Getenv("NOTES_EVAL") == "tune" {
			for _, m := range s.Missed {
				t.Log("  missed " + m)
			}
		}
		if name == "heldout" && s.Recall5 < evalMinRecall {
			t.Errorf("recall@5 on the held-out questions is %.3f, want at least %.2f", s.Recall5, evalMinRecall)
		}
	}
	if os.Getenv("NOTES_EVAL") == "tune" || b.thesaurus == nil {
		return
	}
	// The fallback where WordNet is not installed: the brain's own words
	// only (stems and pseudo-relevance feedback).
	b.ix.SetExpander(nil)
	defer b.ix.SetExpander(b.thesaurus)
	s := runEval(t, b, sets["heldout"], "keyword")
	t.Logf("keyword search without WordNet (the fallback), heldout set (%d questions): recall@5 %.3f, MRR %.3f", s.Questions, s.Recall5, s.MRR)
	if s.Recall5 < evalMinRecallFallback {
		t.Errorf("without WordNet, recall@5 on the held-out questions is %.3f, want at least %.2f", s.Recall5, evalMinRecallFallback)
	}
}
