package secrets

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexlow = "0123456789abcdef"
	urlb64 = alnum + "_-"
	std64  = alnum + "+/"
)

// gen builds a random string of n characters from set. Fixtures are built at
// test time so no credential-shaped literal lives in the repository.
func gen(r *rand.Rand, set string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(set[r.IntN(len(set))])
	}
	return b.String()
}

// Fixtures returns one generated example of each documented format, keyed by
// the rule expected to catch it. The seed makes them deterministic.
func fixtures(seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	j := func(parts ...string) string { return strings.Join(parts, "") }
	return map[string]string{
		"aws-access-key-id":          j("AK", "IA", gen(r, upnum, 16)),
		"aws-secret-access-key":      j("aws_secret_access_key = ", gen(r, std64, 40)),
		"github-token":               j("gh", "p_", gen(r, alnum, 36)),
		"github-fine-grained-token":  j("github", "_pat_", gen(r, alnum, 22), "_", gen(r, alnum, 59)),
		"gitlab-token":               j("gl", "pat-", gen(r, urlb64, 20)),
		"slack-token":                j("xo", "xb-", gen(r, "0123456789", 12), "-", gen(r, alnum, 24)),
		"slack-webhook":              j("https://hooks.slack.com/services/T", gen(r, upnum, 8), "/B", gen(r, upnum, 8), "/", gen(r, alnum, 24)),
		"stripe-key":                 j("sk", "_live_", gen(r, alnum, 24)),
		"google-api-key":             j("AI", "za", gen(r, urlb64, 35)),
		"google-oauth-secret":        j("GOC", "SPX-", gen(r, urlb64, 28)),
		"anthropic-key":              j("sk-", "ant-api03-", gen(r, urlb64, 93)),
		"openai-key":                 j("sk-", "proj-", gen(r, urlb64, 20), "T3Blbk", "FJ", gen(r, urlb64, 20)),
		"private-key":                j("-----BEGIN ", "RSA PRIVATE KEY-----\n", gen(r, std64, 64), "\n-----END RSA PRIVATE KEY-----"),
		"jwt":                        j("ey", "J", gen(r, urlb64, 20), ".ey", "J", gen(r, urlb64, 30), ".", gen(r, urlb64, 43)),
		"connection-string-password": j("postgres://app:", gen(r, alnum, 14), "@db.internal:5432/app"),
		"url-credentials":            j("https://deploy:", gen(r, alnum, 12), "@git.example.com/repo.git"),
		"azure-storage-key":          j("DefaultEndpointsProtocol=https;AccountName=x;Account", "Key=", gen(r, std64, 86), "=="),
		"gcp-service-account":        j(`{"type": "service_account", "private`, `_key_id": "`, gen(r, hexlow, 40), `"}`),
		"twilio-api-key":             j("S", "K", gen(r, hexlow, 32)),
		"sendgrid-key":               j("S", "G.", gen(r, urlb64, 22), ".", gen(r, urlb64, 43)),
		"npm-token":                  j("np", "m_", gen(r, alnum, 36)),
		"pypi-token":                 j("py", "pi-AgE", gen(r, urlb64, 60)),
		"huggingface-token":          j("h", "f_", gen(r, alnum, 34)),
		"digitalocean-token":         j("do", "p_v1_", gen(r, hexlow, 64)),
		"shopify-token":              j("shp", "at_", gen(r, hexlow, 32)),
		"mailgun-key":                j("ke", "y-", gen(r, alnum, 32)),
		"square-token":               j("sq0", "atp-", gen(r, urlb64, 22)),
		"telegram-bot-token":         j("1234567", "89:AA", gen(r, urlb64, 33)),
		"databricks-token":           j("da", "pi", gen(r, hexlow, 32)),
		"notes-confirm-token":        j("nc", "t_", gen(r, urlb64, 40)),
		"labelled-secret":            j("password: ", gen(r, alnum, 10), "!"),
		"bearer-header":              j("Authorization: Bearer ", gen(r, urlb64, 30)),
		"high-entropy-string":        j("the value is ", gen(r, alnum, 40)),
	}
}

func TestScanFindsEveryFormat(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		fx := fixtures(seed)
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
	for _, secret := range fixtures(9) {
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
		"git-sha":      "Fixed in commit " + gen(r, hexlow, 40) + " and " + gen(r, hexlow, 40)[:12] + ".",
		"ulid":         "Note id 01KR2K2ER8WSC66YEXP487Q72D and op " + "01M7AF0W4PDV3J66H3W4JKDAKA" + ".",
		"uuid":         "Request 550e8400-e29b-41d4-a716-446655440000 and 6F9619FF-8B86-D011-B42D-00C04FC964FF.",
		"hex-colour":   "Use #1a2b3c for the border, #FFF for text and #00ff00aa for highlights.",
		"data-url":     "![logo](data:image/png;base64," + base64.StdEncoding.EncodeToString(png) + ")",
		"file-path":    "Edit /home/user/projects/atlas/internal/consumer/batch_reader_test.go and C:\\Users\\me\\AppData\\Local\\Temp\\build123\\out.log.",
		"url":          "See https://github.com/toolhost/toolhost/blob/main/plugins/notes/internal/secrets/secrets.go?tab=readme-ov-file#L10 and https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG.",
		"sha256":       "sha256: " + gen(r, hexlow, 64),
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
