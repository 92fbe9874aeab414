package brain

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
	"github.com/toolhost/toolhost/plugins/notes/internal/embed/embedtest"
	"github.com/toolhost/toolhost/plugins/notes/internal/index"
)

// The retrieval evaluation: two corpora of another kind each, asked by
// meaning. Git's documentation (3,828 notes, 136 questions, a third held
// out; ranking is tuned on the rest) and Jekyll's documentation (100 whole
// pages, 65 questions, all held out: nothing is tuned on it), so a change
// that fits one corpus and not the other shows. Each corpus's README says
// where it comes from and how its questions were written.

// evalCorpus is one corpus of the evaluation and its floors: recall@5 on
// its held-out questions that make test (keyword) and make check (the
// rest) fail under.
type evalCorpus struct {
	name  string // folder under testdata
	about string // for the report
	// commit is the message the import is committed with.
	commit string
	// minNotes guards against a corpus that did not load.
	minNotes int
	// Floors on the held-out questions: keyword search with WordNet,
	// without it, and hybrid search.
	minKeyword, minKeywordFallback, minHybrid float64
}

// evalCorpora are the evaluation's corpora. The floors sit one question
// under what each mode reaches (the README's table has the figures).
var evalCorpora = []evalCorpus{
	{name: "gitdocs", about: "Git's documentation, 3,828 notes", commit: "import Git's documentation", minNotes: 2000,
		minKeyword: evalMinRecall, minKeywordFallback: evalMinRecallFallback, minHybrid: evalMinRecallHybrid},
	{name: "jekylldocs", about: "Jekyll's documentation, 100 pages", commit: "import Jekyll's documentation", minNotes: 100,
		minKeyword: 0.69, minKeywordFallback: 0.70, minHybrid: 0.75},
}

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

// evalMinRecall is the floor of recall@5 on Git's held-out questions for
// keyword search: what lexical search reaches, one question under. The
// issue's goal is 0.90, which keyword search cannot reach; the floor fails
// when it regresses.
const evalMinRecall = 0.37

// evalMinRecallFallback is the same floor for search without WordNet.
const evalMinRecallFallback = 0.35

// evalMinRecallHybrid is the floor of hybrid search (keyword and meaning
// fused, what mode auto does with the model installed) on Git's held-out
// questions.
const evalMinRecallHybrid = 0.40

func loadEvalNotes(t testing.TB, c evalCorpus) []evalNote {
	t.Helper()
	return testplugin.JSONLinesGzip[evalNote](t, filepath.Join("testdata", c.name, "notes.jsonl.gz"))
}

func loadEvalQuestions(t testing.TB, c evalCorpus) []evalQuestion {
	t.Helper()
	return testplugin.JSONFile[[]evalQuestion](t, filepath.Join("testdata", c.name, "questions.json"))
}

// openEvalBrain imports the corpus into a new brain (as a person would:
// files, then one commit) and opens it.
func openEvalBrain(t *testing.T, c evalCorpus) *Brain {
	t.Helper()
	return openEvalBrainAs(t, c, "", nil)
}

// openEvalBrainAs is openEvalBrain with each note changed by edit first
// (nil: as it is), in a brain of its own named variant.
func openEvalBrainAs(t *testing.T, c evalCorpus, variant string, edit func(evalNote) evalNote) *Brain {
	t.Helper()
	requireGit(t)
	// NOTES_EVAL_BRAIN keeps the imported brains in a folder across runs
	// (while tuning); by default they are in a temp folder.
	root := filepath.Join(t.TempDir(), "brain")
	if dir := os.Getenv("NOTES_EVAL_BRAIN"); dir != "" {
		root = filepath.Join(dir, c.name+variant)
	}
	if _, err := os.Stat(filepath.Join(root, ConfigFile)); err != nil {
		notes := loadEvalNotes(t, c)
		if edit != nil {
			for i := range notes {
				notes[i] = edit(notes[i])
			}
		}
		if err := writeEvalBrain(context.Background(), root, notes, c.commit); err != nil {
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

func writeEvalBrain(ctx context.Context, root string, notes []evalNote, commit string) error {
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
	_, err = g.run(ctx, "commit", "-q", "-m", commit)
	return err
}

// evalScore is recall@5 and MRR (over the first 10) of a set of questions.
type evalScore struct {
	Questions int
	Recall5   float64
	MRR       float64
	Missed    []string
	// RR is each question's reciprocal rank (0: not in the first 10), in
	// the set's order: what paired comparisons of two runs read.
	RR []float64
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
		rr := 0.0
		if rank > 0 {
			rr = 1 / float64(rank)
		}
		s.MRR += rr
		s.RR = append(s.RR, rr)
	}
	if s.Questions > 0 {
		s.Recall5 /= float64(s.Questions)
		s.MRR /= float64(s.Questions)
	}
	return s
}

// TestRetrievalEval asks the questions of both corpora and fails when
// recall@5 on a corpus's held-out questions is under its floors, for
// keyword search (with WordNet and without), hybrid search, and hybrid
// search through a local embedding server (NOTES_EMBED_URL, serving the
// bundled model's vectors). NOTES_EVAL=tune evaluates Git's tuning set only
// (what ranking work looks at) and lists its misses; NOTES_EVAL=sweep tries
// fusion settings on the tuning set; NOTES_EVAL=ablate runs keyword and
// hybrid search with each part of the ranking changed alone, on every set;
// NOTES_EVAL_ABLATE=keyword limits it to keyword search and
// NOTES_EVAL_ABLATE_ONLY=TEXT to the changes whose names have TEXT;
// NOTES_EVAL=keyword asks every set by keyword only;
// NOTES_EVAL=small (make test's form) asks only the held-out questions by
// keyword with WordNet, against the same floors: embedding the corpora for
// search by meaning is most of the evaluation's time, and the
// TestSearchByMeaning tests run the model in make test. The held-out sets
// are never printed question by question. NOTES_EVAL_CORPUS=NAME runs one
// corpus only.
func TestRetrievalEval(t *testing.T) {
	if raceDetector {
		t.Skip("the retrieval evaluation runs without -race (make test runs it so)")
	}
	isolate(t)
	t.Setenv("NOTES_EMBED_MODEL", installedModel)
	report := newEvalReport()
	defer func() { report.log(t) }()
	for _, c := range evalCorpora {
		if only := os.Getenv("NOTES_EVAL_CORPUS"); only != "" && only != c.name {
			continue
		}
		if os.Getenv("NOTES_EVAL") == "sweep" || os.Getenv("NOTES_EVAL") == "tune" {
			if c.name != "gitdocs" {
				continue // only Git's corpus has a tuning set
			}
		}
		evalCorpusRun(t, c, report)
	}
}

func evalCorpusRun(t *testing.T, c evalCorpus, report *evalReport) {
	qs := loadEvalQuestions(t, c)
	sets := map[string][]evalQuestion{}
	for _, q := range qs {
		sets[q.Set] = append(sets[q.Set], q)
	}
	if len(qs) < 60 || len(sets["heldout"]) < len(qs)/3 {
		t.Fatalf("%s: the evaluation has %d questions, %d held out; want at least 60, a third held out", c.name, len(qs), len(sets["heldout"]))
	}
	b := openEvalBrain(t, c)
	if n, err := b.ix.Count(context.Background()); err != nil || n.Notes < c.minNotes {
		t.Fatalf("%s: the evaluation brain has %d notes (%v); want at least %d", c.name, n.Notes, err, c.minNotes)
	}
	if os.Getenv("NOTES_EVAL") == "sweep" {
		emb, err := b.embedder()
		if err != nil {
			t.Fatal(err)
		}
		prepareEvalVectors(t, b, emb, c, true)
		sweepFusion(t, b, sets["tune"])
		return
	}
	var names []string
	for name := range sets {
		names = append(names, name)
	}
	small := os.Getenv("NOTES_EVAL") == "small"
	keywordOnly := small || os.Getenv("NOTES_EVAL") == "keyword"
	switch {
	case os.Getenv("NOTES_EVAL") == "tune":
		names = []string{"tune"}
	case small:
		names = []string{"heldout"}
	}
	sort.Strings(names)
	heldout := func(mode string, s evalScore, floor float64) {
		if s.Recall5 < floor {
			t.Errorf("%s, %s: recall@5 on the held-out questions is %.3f, want at least %.2f", c.name, mode, s.Recall5, floor)
		}
	}
	for _, name := range names {
		s := runEval(t, b, sets[name], "keyword")
		report.add(c, "keyword", name, s)
		if name == "tune" && os.Getenv("NOTES_EVAL") == "tune" {
			for _, m := range s.Missed {
				t.Log("  missed keyword " + m)
			}
		}
		if name == "heldout" {
			heldout("keyword search", s, c.minKeyword)
		}
	}
	if b.thesaurus != nil && os.Getenv("NOTES_EVAL") != "tune" && !keywordOnly {
		// The fallback where WordNet is not installed: the brain's own words
		// only (stems and pseudo-relevance feedback).
		b.ix.SetExpander(nil)
		s := runEval(t, b, sets["heldout"], "keyword")
		b.ix.SetExpander(b.thesaurus)
		report.add(c, "keyword without WordNet", "heldout", s)
		heldout("keyword search without WordNet", s, c.minKeywordFallback)
	}
	if os.Getenv("NOTES_EVAL") == "ablate" && os.Getenv("NOTES_EVAL_ABLATE") == "keyword" {
		ablate(t, b, nil, c, sets, names, report)
		return
	}
	if keywordOnly {
		return
	}
	// Search by meaning: the sentence model `make notes-model` installs.
	emb, err := b.embedder()
	if err != nil {
		t.Errorf("search by meaning is not evaluated: %v", err)
		return
	}
	prepareEvalVectors(t, b, emb, c, true)
	if os.Getenv("NOTES_EVAL") == "ablate" {
		ablate(t, b, emb, c, sets, names, report)
		return
	}
	for _, name := range names {
		for _, mode := range []string{"semantic", "hybrid"} {
			s := runEval(t, b, sets[name], mode)
			report.add(c, mode, name, s)
			if name == "tune" && os.Getenv("NOTES_EVAL") == "tune" {
				for _, m := range s.Missed {
					t.Log("  missed " + mode + " " + m)
				}
			}
			if name == "heldout" && mode == "hybrid" {
				heldout("hybrid search", s, c.minHybrid)
			}
		}
	}
	if os.Getenv("NOTES_EVAL") == "tune" {
		return
	}
	// The same model behind a local embedding server, as a user's own
	// model would be: the brain asks it over HTTP for every section and
	// question. It serves the cached vectors of the bundled model (and
	// embeds what the cache lacks), so its figures should equal hybrid's.
	srv := embedtest.Start(t, cachedEmbedder{emb: emb, cache: readEvalVectors(t, c)}, embed.ProtocolOllama, "use-lite")
	t.Setenv(embed.EnvURL, srv.URL)
	t.Setenv(embed.EnvURLModel, "use-lite")
	t.Setenv(embed.EnvTimeout, "5m")
	b.vec = vectorState{}
	if pending, err := b.syncVectors(context.Background(), -1); err != nil || pending != 0 {
		t.Fatalf("%s: sync vectors through the endpoint: %d pending, %v", c.name, pending, err)
	}
	for _, name := range names {
		s := runEval(t, b, sets[name], "hybrid")
		report.add(c, "hybrid through a local endpoint", name, s)
		if name == "heldout" {
			heldout("hybrid search through a local endpoint", s, c.minHybrid)
		}
	}
	if st := b.embeddingStatus(); st.Source != "endpoint" {
		t.Errorf("%s: after the endpoint run, embeddings come from %q, want the endpoint", c.name, st.Source)
	}
}

// cachedEmbedder answers from a corpus's vector cache where it has the
// text, else from the model: the local server's model in the evaluation.
type cachedEmbedder struct {
	emb   embed.Embedder
	cache map[string][]float32
}

func (c cachedEmbedder) Model() string { return c.emb.Model() }
func (c cachedEmbedder) Dims() int     { return c.emb.Dims() }
func (c cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []int
	var missText []string
	for i, text := range texts {
		if v, ok := c.cache[vectorHash(c.emb.Model(), text)]; ok {
			out[i] = slices.Clone(v)
			continue
		}
		miss = append(miss, i)
		missText = append(missText, text)
	}
	if len(miss) > 0 {
		vecs, err := c.emb.Embed(ctx, missText)
		if err != nil {
			return nil, err
		}
		for k, i := range miss {
			out[i] = vecs[k]
		}
	}
	return out, nil
}

// evalReport holds recall@5 and MRR by mode, corpus and set.
type evalReport struct {
	scores map[string]map[string]evalScore
	// pairs are the ablation's changes against the ranking as shipped.
	pairs map[string]map[string]evalPair
}

func newEvalReport() *evalReport {
	return &evalReport{scores: map[string]map[string]evalScore{}, pairs: map[string]map[string]evalPair{}}
}

func (r *evalReport) add(c evalCorpus, mode, set string, s evalScore) {
	if r.scores[mode] == nil {
		r.scores[mode] = map[string]evalScore{}
	}
	r.scores[mode][c.name+" "+set] = s
}

func (r *evalReport) pair(c evalCorpus, mode, set string, p evalPair) {
	if r.pairs[mode] == nil {
		r.pairs[mode] = map[string]evalPair{}
	}
	r.pairs[mode][c.name+" "+set] = p
}

// evalModes orders the report's rows.
var evalModes = []string{"keyword", "keyword without WordNet", "semantic", "hybrid", "hybrid through a local endpoint"}

// log prints the report as one table, a row per mode and a column per
// corpus and set: the figures the plugin README quotes.
func (r *evalReport) log(t *testing.T) {
	cols := map[string]int{}
	for _, m := range r.scores {
		for k, s := range m {
			cols[k] = s.Questions
		}
	}
	keys := slices.Sorted(maps.Keys(cols))
	if len(keys) == 0 {
		return
	}
	modes := slices.Clone(evalModes)
	for _, m := range slices.Sorted(maps.Keys(r.scores)) {
		if !slices.Contains(modes, m) {
			modes = append(modes, m)
		}
	}
	var b strings.Builder
	b.WriteString("retrieval evaluation, recall@5 / MRR:\n| mode |")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s (%d) |", k, cols[k])
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(keys)) + "\n")
	for _, m := range modes {
		if r.scores[m] == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s |", m)
		for _, k := range keys {
			if s, ok := r.scores[m][k]; ok {
				fmt.Fprintf(&b, " %.3f / %.3f |", s.Recall5, s.MRR)
			} else {
				b.WriteString(" — |")
			}
		}
		b.WriteString("\n")
	}
	if len(r.pairs) > 0 {
		b.WriteString("\nagainst the ranking as shipped: questions gained/lost in the top five, MRR change [95% paired bootstrap], * beyond noise:\n| change |")
		for _, k := range keys {
			fmt.Fprintf(&b, " %s |", k)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(keys)) + "\n")
		for _, m := range modes {
			if r.pairs[m] == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s |", m)
			for _, k := range keys {
				p, ok := r.pairs[m][k]
				if !ok {
					b.WriteString(" — |")
					continue
				}
				mark := ""
				if p.beyondNoise() {
					mark = " *"
				}
				fmt.Fprintf(&b, " +%d/−%d, %+.3f [%+.3f, %+.3f]%s |", p.Gained, p.Lost, p.DeltaMRR, p.Low, p.High, mark)
			}
			b.WriteString("\n")
		}
	}
	t.Log(b.String())
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

// ablate runs keyword and hybrid search with one part of the ranking
// changed at a time (NOTES_EVAL=ablate), on every set of the corpus: what
// each part gives or costs each corpus, and each change's paired
// difference from the ranking as shipped (evalPaired).
func ablate(t *testing.T, b *Brain, emb embed.Embedder, c evalCorpus, sets map[string][]evalQuestion, names []string, report *evalReport) {
	t.Helper()
	base := map[string]evalScore{}
	modes := []string{"keyword", "hybrid"}
	if os.Getenv("NOTES_EVAL_ABLATE") == "keyword" {
		modes = modes[:1] // the quick form: keyword search only
	}
	run := func(change string, b *Brain) {
		if only := os.Getenv("NOTES_EVAL_ABLATE_ONLY"); change != "" && only != "" && !strings.Contains(change, only) {
			return
		}
		t.Logf("%s: ablation %q", c.name, change)
		for _, mode := range modes {
			for _, name := range names {
				s := runEval(t, b, sets[name], mode)
				t.Logf("%s %s, %s: %.3f / %.3f", c.name, name, mode, s.Recall5, s.MRR)
				if change == "" {
					base[mode+" "+name] = s
					report.add(c, mode, name, s)
					continue
				}
				report.add(c, mode+", "+change, name, s)
				report.pair(c, mode+", "+change, name, evalPaired(base[mode+" "+name], s))
			}
		}
	}
	tune := func(change string, edit func(*index.Tuning)) {
		tu := index.DefaultTuning
		edit(&tu)
		b.ix.SetTuning(tu)
		run(change, b)
		b.ix.SetTuning(index.DefaultTuning)
	}
	run("", b)
	tune("plain FTS5 BM25, as before tuning", func(tu *index.Tuning) { tu.Plain = true })
	for _, v := range evalFeedbackVariants {
		tune(v.name, v.edit)
	}
	tune("fields weighed equally", func(tu *index.Tuning) { tu.Fields = [3]float64{1, 1, 1} })
	tune("heading not weighed", func(tu *index.Tuning) { tu.Fields[1] = 0 })
	b.ix.SetExpander(nil)
	run("no WordNet synonyms", b)
	b.ix.SetExpander(b.thesaurus)
	// Section splitting: the same notes with their headings made plain
	// text, so each note is one section.
	whole := openEvalBrainAs(t, c, "-whole", func(n evalNote) evalNote {
		n.Body = flattenHeadings(n.Body)
		return n
	})
	if only := os.Getenv("NOTES_EVAL_ABLATE_ONLY"); only != "" && !strings.Contains("whole notes, not sections", only) {
		return
	}
	if len(modes) > 1 {
		prepareEvalVectors(t, whole, emb, c, false)
	}
	run("whole notes, not sections", whole)
}

// evalFeedbackVariants are the forms of pseudo-relevance feedback the
// ablation measures beside the one that ships.
var evalFeedbackVariants = []struct {
	name string
	edit func(*index.Tuning)
}{
	{"no feedback words", func(tu *index.Tuning) { tu.Feedback = 0 }},
	{"feedback words in 2+ of the notes", func(tu *index.Tuning) { tu.FeedbackMinDocs = 2 }},
	{"feedback words in 3+ of the notes", func(tu *index.Tuning) { tu.FeedbackMinDocs = 3 }},
	{"feedback only when the best section has under all the query", func(tu *index.Tuning) { tu.FeedbackGate = 1 }},
	{"feedback only when the best section has under 0.8 of the query", func(tu *index.Tuning) { tu.FeedbackGate = 0.8 }},
	{"feedback words at 0.15", func(tu *index.Tuning) { tu.FeedbackWeight = 0.15 }},
	{"feedback, 10 words (before)", func(tu *index.Tuning) { tu.Feedback = 10 }},
}

// evalPair is a paired comparison of two runs over the same questions:
// how many questions a change moved into or out of the top five, and the
// change in MRR with its 95% interval by paired bootstrap.
type evalPair struct {
	Gained, Lost int
	DeltaMRR     float64
	Low, High    float64
}

// beyondNoise reports whether the change is more than noise: its MRR
// interval leaves out zero, or the questions it moves into and out of the
// top five are that lopsided with under 5% probability when a move is as
// likely either way (two-sided sign test).
func (p evalPair) beyondNoise() bool {
	return p.Low > 0 || p.High < 0 || signTest(p.Gained, p.Lost) < 0.05
}

// signTest is the two-sided sign test's p-value for a wins against b
// losses.
func signTest(a, b int) float64 {
	n, k := a+b, min(a, b)
	if n == 0 {
		return 1
	}
	var tail float64
	for i := 0; i <= k; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		tail += math.Exp(lg - li - lr - float64(n)*math.Ln2)
	}
	return min(1, 2*tail)
}

// evalPaired compares run b with run a question by question.
func evalPaired(a, b evalScore) evalPair {
	var p evalPair
	n := len(a.RR)
	if n == 0 || len(b.RR) != n {
		return p
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = b.RR[i] - a.RR[i]
		p.DeltaMRR += d[i] / float64(n)
		switch in5a, in5b := a.RR[i] >= 0.2, b.RR[i] >= 0.2; {
		case in5b && !in5a:
			p.Gained++
		case in5a && !in5b:
			p.Lost++
		}
	}
	// Paired bootstrap: resample the questions, a fixed seed so the report
	// is the same each run.
	rng := rand.New(rand.NewPCG(1, 2))
	const rounds = 2000
	means := make([]float64, rounds)
	for r := range means {
		var sum float64
		for range n {
			sum += d[rng.IntN(n)]
		}
		means[r] = sum / float64(n)
	}
	slices.Sort(means)
	p.Low, p.High = means[rounds/40], means[rounds-1-rounds/40]
	return p
}

// flattenHeadings turns Markdown ATX headings outside code fences into
// plain lines.
func flattenHeadings(body string) string {
	lines := strings.Split(body, "\n")
	fence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(t, "#") {
			continue
		}
		if rest := strings.TrimLeft(t, "#"); len(t)-len(rest) <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			lines[i] = strings.TrimSpace(rest)
		}
	}
	return strings.Join(lines, "\n")
}

// TestEvalPairedJudgesNoise: the ablation's rule for noise calls a lopsided
// or consistent change beyond noise and a balanced one not.
func TestEvalPairedJudgesNoise(t *testing.T) {
	score := func(rr ...float64) evalScore { return evalScore{RR: rr} }
	many := func(n int, v float64) []float64 { return slices.Repeat([]float64{v}, n) }
	cases := []struct {
		name   string
		a, b   evalScore
		gained int
		lost   int
		beyond bool
	}{
		{"nothing moves", score(1, 0.5, 0), score(1, 0.5, 0), 0, 0, false},
		{"one in, one out", score(1, 0.1, 0.5), score(0.1, 1, 0.5), 1, 1, false},
		{"two of three gained", score(0, 0, 1), score(1, 1, 1), 2, 0, false},
		{"every question a little better", score(many(40, 0.5)...), score(many(40, 1)...), 0, 0, true},
		{"six lost, none gained", score(many(6, 1)...), score(many(6, 0)...), 0, 6, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := evalPaired(c.a, c.b)
			if p.Gained != c.gained || p.Lost != c.lost || p.beyondNoise() != c.beyond {
				t.Errorf("got +%d/−%d beyond noise %v (%+.3f [%+.3f, %+.3f]), want +%d/−%d %v",
					p.Gained, p.Lost, p.beyondNoise(), p.DeltaMRR, p.Low, p.High, c.gained, c.lost, c.beyond)
			}
		})
	}
	if p := signTest(5, 0); p < 0.06 || p > 0.07 {
		t.Errorf("sign test of 5 against 0 is %.4f, want 0.0625", p)
	}
}
