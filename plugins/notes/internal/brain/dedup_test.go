package brain

import (
	mrand "math/rand"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

func TestCompareMemories(t *testing.T) {
	base := "Os consumidores do Atlas leem do SQS em lotes de 10 mensagens por chamada, com espera longa de 20 segundos."
	tests := []struct {
		name, new, old, want string
	}{
		{"identical", base, base, verdictEqual},
		{"whitespace and case", "  " + base + "\n", base, verdictEqual},
		{"number changed", "Os consumidores do Atlas leem do SQS em lotes de 25 mensagens por chamada, com espera longa de 20 segundos.", base, verdictAmbiguous},
		{"negation added", "Os consumidores do Atlas não leem do SQS em lotes de 10 mensagens por chamada, com espera longa de 20 segundos.", base, verdictAmbiguous},
		{"english negation", "Deploys do not run on Fridays after the freeze starts", "Deploys run on Fridays after the freeze starts", verdictAmbiguous},
		{"contained", "Os consumidores do Atlas leem do SQS em lotes de 10 mensagens", base, verdictContained},
		{"complement", base + " Depois confirmam cada mensagem com DeleteMessageBatch e registram métricas no CloudWatch.", base, verdictComplement},
		{"different", "Prefer tabs over spaces in Makefiles always", base, verdictDifferent},
		{"short not identical", "Use tabs", "Use spaces", verdictDifferent},
		{"short identical", "Use tabs", "use tabs", verdictEqual},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sim, reason := compareMemories(tt.new, tt.old)
			if got != tt.want {
				t.Fatalf("got %s (%.3f, %s), want %s", got, sim, reason, tt.want)
			}
		})
	}
}

// TestDedupNeverMergesDistinctNotes: over generated notes, no two distinct
// texts are equal or complementary, and every text is equal to itself.
func TestDedupNeverMergesDistinctNotes(t *testing.T) {
	words := zipfWords(mrand.NewZipf(mrand.New(mrand.NewSource(5)), 1.07, 2, uint64(len(benchWords)-1)))
	texts := make([]string, testplugin.Size(60, 150)) // make check: 150
	for i := range texts {
		texts[i] = words(8 + i%30)
	}
	for i, a := range texts {
		if v, _, _ := compareMemories(a, a); v != verdictEqual {
			t.Fatalf("text %d is not equal to itself: %s", i, v)
		}
		for j, b := range texts {
			if i == j || a == b {
				continue
			}
			if v, sim, _ := compareMemories(a, b); v == verdictEqual || v == verdictComplement {
				t.Fatalf("distinct texts %d and %d judged %s (%.2f):\n%s\n%s", i, j, v, sim, a, b)
			}
		}
	}
}
