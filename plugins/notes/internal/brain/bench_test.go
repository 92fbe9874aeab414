package brain

import (
	"context"
	"database/sql"
	"fmt"
	mrand "math/rand"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/sdk"
)

// benchVocabulary is the word pool of generated notes: Portuguese and
// English, with diacritics, so tokenisation and folding are exercised.
var benchVocabulary = strings.Fields(`fila consumidor mensagem lote faturamento idempotência deploy migração
banco índice consulta latência timeout retry backoff cache sessão usuário preferência armadilha decisão
procedimento projeto equipe revisão código teste integração produção staging kafka sqs postgres redis
nginx docker kubernetes terraform lambda bucket política segurança chave rotação certificado domínio
queue consumer message batch billing deploy migration database index query latency timeout retry
backoff cache session user preference gotcha decision procedure project team review code test
integration production partition offset replica leader follower snapshot compaction vacuum schema
contrato evento webhook agenda relatório métrica alerta painel incidente postmortem capacidade custo`)

// benchWords is the benchmark's vocabulary: the real words above, then
// 20,000 made-up ones, drawn with a Zipf distribution as natural text is.
var benchWords = func() []string {
	r := rand.New(rand.NewPCG(3, 4))
	syl := strings.Fields("ka lo mi ne ta ri so vu pe da gu ze fi ho ba ce lu ma no te ra si po")
	out := append([]string(nil), benchVocabulary...)
	seen := map[string]bool{}
	for len(out) < 20000+len(benchVocabulary) {
		var w strings.Builder
		for k := 2 + r.IntN(3); k > 0; k-- {
			w.WriteString(syl[r.IntN(len(syl))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			out = append(out, w.String())
		}
	}
	return out
}()

func zipfWords(z *mrand.Zipf) func(int) string {
	return func(k int) string {
		out := make([]string, k)
		for i := range out {
			out[i] = benchWords[z.Uint64()]
		}
		return strings.Join(out, " ")
	}
}

var benchTypes = []string{"preference", "gotcha", "decision", "procedure", "fact", "concept", "entity", "episode"}

// GenerateBrain writes n notes into a new brain at root as files plus one
// commit (as a person importing notes would), for benchmarks.
func GenerateBrain(ctx context.Context, root string, n int, seed uint64) error {
	b, _, err := Open(ctx, root)
	if err != nil {
		return err
	}
	defer b.Close()
	r := rand.New(rand.NewPCG(seed, seed+1))
	words := zipfWords(mrand.NewZipf(mrand.New(mrand.NewSource(int64(seed))), 1.07, 2, uint64(len(benchWords)-1)))
	for i := 0; i < n; i++ {
		typ := benchTypes[i%len(benchTypes)]
		title := fmt.Sprintf("%s %d %s", words(3), i, words(1))
		var body strings.Builder
		body.WriteString(words(40) + ".\n\n")
		fmt.Fprintf(&body, "## %s\n\n%s [[%s]].\n\n", words(2), words(50), fmt.Sprintf("note-%05d", r.IntN(n)))
		fmt.Fprintf(&body, "### %s\n\n%s.\n", words(2), words(30))
		fm := fmt.Sprintf("---\nid: BENCH%021d\ntype: %s\ntitle: %s\nscope: global\ntrust: medium\norigin: human\n", i, typ, title)
		if typ == "fact" {
			fm += fmt.Sprintf("subject: subject-%d\npredicate: uses\nobject: object-%d\n", r.IntN(n/10+1), i)
		}
		fm += "---\n\n"
		rel := fmt.Sprintf("%s/note-%05d.md", strings.Split(map[string]string{"preference": "memory/preferences", "gotcha": "memory/gotchas", "decision": "memory/decisions",
			"procedure": "memory/procedures", "fact": "memory/facts", "concept": "wiki/concepts", "entity": "wiki/entities", "episode": "memory/episodes"}[typ], " ")[0], i)
		if err := writeFileT(filepath.Join(root, filepath.FromSlash(rel)), fm+body.String()); err != nil {
			return err
		}
	}
	g := gitRunner{dir: root}
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return err
	}
	_, err = g.run(ctx, "commit", "-q", "-m", fmt.Sprintf("import %d notes", n))
	return err
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

// TestBenchNotes measures, over a generated brain of NOTES_BENCH_NOTES
// notes (default 10000): the full reindex, search p50 and remember p50
// (dedup + commit + index update), in the resident process as the host
// drives it. It runs only with NOTES_BENCH=1 (make bench-notes) and asserts
// nothing about time: it reports.
func TestBenchNotes(t *testing.T) {
	if os.Getenv("NOTES_BENCH") != "1" {
		t.Skip("set NOTES_BENCH=1 to run the notes benchmark")
	}
	requireGit(t)
	isolate(t)
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("NOTES_BENCH_NOTES")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "brain")
	start := time.Now()
	if err := GenerateBrain(ctx, root, n, 1); err != nil {
		t.Fatal(err)
	}
	gen := time.Since(start)
	// Baselines, measured in the same run: one `git rev-parse HEAD` (the
	// cheapest git call), and a bare git add + commit of one new file (what
	// any git-backed write costs) in a clone of the brain (the same
	// notes, index and objects), each pair just before a remember, so
	// both see the same load on the machine.
	g := gitRunner{dir: root}
	var revParse, bareCommit, search, remember []time.Duration
	for i := 0; i < 30; i++ {
		start := time.Now()
		if _, err := g.head(ctx); err != nil {
			t.Fatal(err)
		}
		revParse = append(revParse, time.Since(start))
	}
	bare := gitRunner{dir: filepath.Join(filepath.Dir(root), "bare")}
	if _, err := g.run(ctx, "clone", "-q", root, bare.dir); err != nil {
		t.Fatal(err)
	}
	barePair := func(i int) {
		rel := fmt.Sprintf("raw/bare-%02d.txt", i)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(bare.dir, rel), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := bare.run(ctx, "add", "--", rel); err != nil {
			t.Fatal(err)
		}
		if _, err := bare.run(ctx, "commit", "-q", "-m", rel); err != nil {
			t.Fatal(err)
		}
		bareCommit = append(bareCommit, time.Since(start))
	}
	s := &Service{Root: root}
	defer s.Close()
	b, _, err := s.Brain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var reindex []time.Duration
	for i := 0; i < 3; i++ {
		start = time.Now()
		if err := b.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		reindex = append(reindex, time.Since(start))
	}
	h := s.Plugin().Actions
	call := func(action string, args map[string]any) time.Duration {
		req, err := sdk.NewRequestFor(action, args)
		if err != nil {
			t.Fatal(err)
		}
		req.Caller.ClientName = "bench"
		start := time.Now()
		if _, err := h[action](ctx, req); err != nil {
			t.Fatalf("%s: %v", action, err)
		}
		return time.Since(start)
	}
	words := zipfWords(mrand.NewZipf(mrand.New(mrand.NewSource(99)), 1.07, 2, uint64(len(benchWords)-1)))
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = words(2)
	}
	stopProfile := benchProfile(t, "search")
	for _, q := range queries {
		search = append(search, call("search", map[string]any{"query": q, "mode": "keyword"}))
	}
	stopProfile()
	// The bare engine: the same queries straight to SQLite FTS5 on the
	// same index file (any of the words, best ten sections by BM25), as a
	// program using FTS5 alone would ask.
	bareFTS := benchBareFTS(t, ctx, filepath.Join(root, StateDir, "index.db"), queries)
	hybridReport := benchHybrid(t, ctx, b, call, queries, bareFTS)
	// remember commits through git's plumbing, each after a bare pair.
	stopProfile = benchProfile(t, "remember")
	for i := 0; i < 50; i++ {
		barePair(i)
		content := fmt.Sprintf("Benchmark memory %d: %s.", i, words(25))
		remember = append(remember, call("remember", map[string]any{"type": "gotcha", "content": content}))
	}
	stopProfile()
	p50 := func(d []time.Duration) time.Duration { return percentile(d, 0.5) }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
	report := fmt.Sprintf(`notes benchmark, %d notes (generated in %s)
  full reindex:  p50 %s (3 runs, min %s)
  search:        p50 %s  p90 %s  (200 two-word queries)  = %.1fx the bare FTS5 query (p50 %s), %.1fx one git rev-parse HEAD (p50 %s)
  remember:      p50 %s  p90 %s  (50 writes: dedup + commit + index)  = %.2fx a bare git add+commit in a clone, interleaved (p50 %s)
`, n, gen.Round(time.Millisecond),
		ms(p50(reindex)), ms(percentile(reindex, 0)),
		ms(p50(search)), ms(percentile(search, 0.9)), float64(p50(search))/float64(p50(bareFTS)), ms(p50(bareFTS)), float64(p50(search))/float64(p50(revParse)), ms(p50(revParse)),
		ms(p50(remember)), ms(percentile(remember, 0.9)), float64(p50(remember))/float64(p50(bareCommit)), ms(p50(bareCommit)))
	report += hybridReport
	t.Log("\n" + report)
	if out := os.Getenv("NOTES_BENCH_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchProfile writes a CPU profile of one phase to
// $NOTES_BENCH_PROFILE/<phase>.pprof when that folder is set (go tool pprof
// reads it); it returns the function that stops it.
func benchProfile(t *testing.T, phase string) func() {
	t.Helper()
	dir := os.Getenv("NOTES_BENCH_PROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, phase+".pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// benchBareFTS times each query run straight against the index's FTS5
// table: the words OR'ed, the best ten sections by BM25, rows read.
func benchBareFTS(t *testing.T, ctx context.Context, file string, queries []string) []time.Duration {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []time.Duration
	for _, q := range queries {
		var quoted []string
		for _, w := range strings.Fields(q) {
			quoted = append(quoted, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
		}
		start := time.Now()
		rows, err := db.QueryContext(ctx, `SELECT rowid, path FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT 10`, strings.Join(quoted, " OR "))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var p string
			if err := rows.Scan(&id, &p); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
		out = append(out, time.Since(start))
	}
	return out
}
