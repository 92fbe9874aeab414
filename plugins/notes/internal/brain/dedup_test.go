package brain

import "testing"

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
