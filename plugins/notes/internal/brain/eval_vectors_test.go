package brain

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
)

// vectors.bin.gz beside each corpus caches its section vectors: embedding
// Git's 3,828 notes takes the pure-Go model minutes of CPU, more than make
// test's share. Each record is a section's vector hash (16 bytes: the
// model's name and the text embedded, see vectorHash), a float32 scale and
// 512 int8 components (the vector divided by the scale, rounded): cosine
// to the model's own vector stays above 0.9999. The evaluation re-embeds a
// sample of sections live and compares, and embeds any section the cache
// misses; NOTES_EVAL_VECTORS=update rewrites the file from the brain.
func evalVectorsPath(c evalCorpus) string { return filepath.Join("testdata", c.name, "vectors.bin.gz") }

func readEvalVectors(t testing.TB, c evalCorpus) map[string][]float32 {
	t.Helper()
	evalVectorsFile := evalVectorsPath(c)
	if _, err := os.Stat(evalVectorsFile); os.IsNotExist(err) {
		return nil
	}
	r := testplugin.OpenGzip(t, evalVectorsFile)
	out := map[string][]float32{}
	rec := make([]byte, 16+4+512)
	for {
		if _, err := io.ReadFull(r, rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", evalVectorsFile, err)
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(rec[16:20]))
		v := make([]float32, 512)
		for i := range v {
			v[i] = float32(int8(rec[20+i])) * scale
		}
		out[hex.EncodeToString(rec[:16])] = v
	}
	return out
}

func writeEvalVectors(t testing.TB, c evalCorpus, vecs map[string][]float32) {
	t.Helper()
	evalVectorsFile := evalVectorsPath(c)
	keys := slices.Sorted(maps.Keys(vecs))
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	rec := make([]byte, 16+4+512)
	for _, k := range keys {
		v := vecs[k]
		h, err := hex.DecodeString(k)
		if err != nil || len(h) != 16 || len(v) != 512 {
			t.Fatalf("vector %q: bad hash or %d dims", k, len(v))
		}
		copy(rec, h)
		var m float32
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		scale := m / 127
		if scale == 0 {
			scale = 1
		}
		binary.LittleEndian.PutUint32(rec[16:20], math.Float32bits(scale))
		for i, x := range v {
			rec[20+i] = byte(int8(math.Round(float64(x / scale))))
		}
		if _, err := zw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evalVectorsFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// prepareEvalVectors gives every section of the evaluation brain its
// vector: from the cache where it has the section's text, else from the
// model. It checks a sample of cached vectors against the model and, when
// cached says the brain holds the corpus as imported, that the cache
// covers it.
func prepareEvalVectors(t *testing.T, b *Brain, emb embed.Embedder, c evalCorpus, cached bool) {
	t.Helper()
	ctx := context.Background()
	cache := readEvalVectors(t, c)
	if err := b.ix.ImportVectors(ctx, cache); err != nil {
		t.Fatal(err)
	}
	secs, err := b.ix.PendingSections(ctx, emb.Model())
	if err != nil {
		t.Fatal(err)
	}
	// The model has not changed under the cache: every 400th section,
	// embedded now, points the same way as its cached vector.
	var sample []string
	var sampleHash []string
	for i := 0; i < len(secs); i += 400 {
		text := embed.DocText(secs[i].Title, secs[i].Heading, secs[i].Text)
		if v, ok := cache[vectorHash(emb.Model(), text)]; ok && v != nil {
			sample = append(sample, text)
			sampleHash = append(sampleHash, vectorHash(emb.Model(), text))
		}
	}
	live, err := emb.Embed(ctx, sample)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sample {
		if c := embed.Cosine(live[i], cache[sampleHash[i]]); c < 0.999 {
			t.Errorf("cached vector of %.60q has cosine %.5f to the model's, want ≥ 0.999 (rebuild with NOTES_EVAL_VECTORS=update)", sample[i], c)
		}
	}
	missing := 0
	for _, s := range secs {
		if _, ok := cache[vectorHash(emb.Model(), embed.DocText(s.Title, s.Heading, s.Text))]; !ok {
			missing++
		}
	}
	if missing > 0 {
		t.Logf("embedding %d sections the vector cache does not have (of %d)", missing, len(secs))
	}
	pending, err := b.syncVectors(ctx, -1)
	if err != nil || pending != 0 {
		t.Fatalf("sync vectors: %d pending, %v", pending, err)
	}
	if os.Getenv("NOTES_EVAL_VECTORS") == "update" && cached {
		all, err := b.ix.SectionVectors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		writeEvalVectors(t, c, all)
		t.Logf("wrote %d vectors to %s", len(all), evalVectorsPath(c))
	} else if cached && cache != nil && missing > len(secs)/10 {
		t.Errorf("the vector cache missed %d of %d sections: rebuild it with NOTES_EVAL_VECTORS=update", missing, len(secs))
	}
	_ = fmt.Sprint
}
