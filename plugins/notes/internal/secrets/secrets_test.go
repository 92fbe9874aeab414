package secrets

import (
	"encoding/base64"
	"github.com/toolhost/toolhost/plugins/notes/internal/secrets/secretstest"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestScanFindsEveryFormat(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		fx := secretstest.Fixtures(seed)
		if len(fx) < 20 {
			t.Fatalf("got %d fixtures, want 20+", len(fx))
		}
		for name, secret := range fx {
			t.Run(name, func(t *testing.T) {
				text := "Some prose before.\nConfig: " + secret + " and after."
				got := Scan(text)
				if len(got) == 0 {
					t.Fatalf("seed %d: no finding, want %s", seed, name)
				}
				onLine2 := false
				for _, f := range got {
					onLine2 = onLine2 || f.Line == 2
				}
				if !onLine2 {
					t.Errorf("findings %+v, want one on line 2", got)
				}
			})
		}
	}
}

func TestScanFindingNeverCarriesValue(t *testing.T) {
	for _, secret := range secretstest.Fixtures(9) {
		for _, f := range Scan(secret) {
			if strings.Contains(f.Rule, secret) {
				t.Fatalf("finding %+v carries the value", f)
			}
		}
	}
}

func TestScanNoFalsePositives(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 43))
	png := make([]byte, 600)
	for i := range png {
		png[i] = byte(r.IntN(256))
	}
	cases := map[string]string{
		"prose":        "Pneumonoultramicroscopicsilicovolcanoconiosis and internationalization are long words; antidisestablishmentarianism too. Não há segredo aqui, só paralelepípedos e inconstitucionalissimamente.",
		"identifiers":  "Call AbstractSingletonProxyFactoryBean then getUserAccountSettingsHandler and TestRememberSameMemoryTwiceSkips.",
		"git-sha":      "Fixed in commit " + secretstest.Gen(r, secretstest.HexLower, 40) + " and " + secretstest.Gen(r, secretstest.HexLower, 40)[:12] + ".",
		"ulid":         "Note id 01KR2K2ER8WSC66YEXP487Q72D and op " + "01M7AF0W4PDV3J66H3W4JKDAKA" + ".",
		"uuid":         "Request 550e8400-e29b-41d4-a716-446655440000 and 6F9619FF-8B86-D011-B42D-00C04FC964FF.",
		"hex-colour":   "Use #1a2b3c for the border, #FFF for text and #00ff00aa for highlights.",
		"data-url":     "![logo](data:image/png;base64," + base64.StdEncoding.EncodeToString(png) + ")",
		"file-path":    "Edit /home/user/projects/atlas/internal/consumer/batch_reader_test.go and C:\\Users\\me\\AppData\\Local\\Temp\\build123\\out.log.",
		"url":          "See https://github.com/toolhost/toolhost/blob/main/plugins/notes/internal/secrets/secrets.go?tab=readme-ov-file#L10 and https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG.",
		"sha256":       "sha256: " + secretstest.Gen(r, secretstest.HexLower, 64),
		"password-ref": "password: see the team vault entry; password = ${DB_PASSWORD}; api_key: <your-key-here>",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Scan(text); len(got) != 0 {
				t.Errorf("got %+v, want no findings", got)
			}
		})
	}
}

func FuzzScan(f *testing.F) {
	f.Add("password: hunter2hunter2")
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Fuzz(func(t *testing.T, s string) {
		for _, fd := range Scan(s) {
			if fd.Line < 1 || fd.Column < 1 {
				t.Fatalf("bad position %+v", fd)
			}
		}
	})
}
