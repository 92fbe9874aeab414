// Package secretstest builds credential-shaped fixtures at test time, one
// per format the scanner knows, so no real-looking secret literal is ever
// committed to the repository.
package secretstest

import (
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Character sets of the generated strings.
const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexlow = "0123456789abcdef"
	// HexLower is lowercase hex, e.g. for commit SHAs.
	HexLower = hexlow
	urlb64   = alnum + "_-"
	std64    = alnum + "+/"
)

// Gen builds a random string of n characters from set. Fixtures are built at
// test time so no credential-shaped literal lives in the repository.
func Gen(r *rand.Rand, set string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(set[r.IntN(len(set))])
	}
	return b.String()
}

// Fixtures returns one generated example of each documented format, keyed by
// the rule expected to catch it. The seed makes them deterministic.
func Fixtures(seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	j := func(parts ...string) string { return strings.Join(parts, "") }
	return map[string]string{
		"aws-access-key-id":          j("AK", "IA", Gen(r, upnum, 16)),
		"aws-secret-access-key":      j("aws_secret_access_key = ", Gen(r, std64, 40)),
		"github-token":               j("gh", "p_", Gen(r, alnum, 36)),
		"github-fine-grained-token":  j("github", "_pat_", Gen(r, alnum, 22), "_", Gen(r, alnum, 59)),
		"gitlab-token":               j("gl", "pat-", Gen(r, urlb64, 20)),
		"slack-token":                j("xo", "xb-", Gen(r, "0123456789", 12), "-", Gen(r, alnum, 24)),
		"slack-webhook":              j("https://hooks.slack.com/services/T", Gen(r, upnum, 8), "/B", Gen(r, upnum, 8), "/", Gen(r, alnum, 24)),
		"stripe-key":                 j("sk", "_live_", Gen(r, alnum, 24)),
		"google-api-key":             j("AI", "za", Gen(r, urlb64, 35)),
		"google-oauth-secret":        j("GOC", "SPX-", Gen(r, urlb64, 28)),
		"anthropic-key":              j("sk-", "ant-api03-", Gen(r, urlb64, 93)),
		"openai-key":                 j("sk-", "proj-", Gen(r, urlb64, 20), "T3Blbk", "FJ", Gen(r, urlb64, 20)),
		"private-key":                j("-----BEGIN ", "RSA PRIVATE KEY-----\n", Gen(r, std64, 64), "\n-----END RSA PRIVATE KEY-----"),
		"jwt":                        j("ey", "J", Gen(r, urlb64, 20), ".ey", "J", Gen(r, urlb64, 30), ".", Gen(r, urlb64, 43)),
		"connection-string-password": j("postgres://app:", Gen(r, alnum, 14), "@db.internal:5432/app"),
		"url-credentials":            j("https://deploy:", Gen(r, alnum, 12), "@git.example.com/repo.git"),
		"azure-storage-key":          j("DefaultEndpointsProtocol=https;AccountName=x;Account", "Key=", Gen(r, std64, 86), "=="),
		"gcp-service-account":        j(`{"type": "service_account", "private`, `_key_id": "`, Gen(r, hexlow, 40), `"}`),
		"twilio-api-key":             j("S", "K", Gen(r, hexlow, 32)),
		"sendgrid-key":               j("S", "G.", Gen(r, urlb64, 22), ".", Gen(r, urlb64, 43)),
		"npm-token":                  j("np", "m_", Gen(r, alnum, 36)),
		"pypi-token":                 j("py", "pi-AgE", Gen(r, urlb64, 60)),
		"huggingface-token":          j("h", "f_", Gen(r, alnum, 34)),
		"digitalocean-token":         j("do", "p_v1_", Gen(r, hexlow, 64)),
		"shopify-token":              j("shp", "at_", Gen(r, hexlow, 32)),
		"mailgun-key":                j("ke", "y-", Gen(r, alnum, 32)),
		"square-token":               j("sq0", "atp-", Gen(r, urlb64, 22)),
		"telegram-bot-token":         j("1234567", "89:AA", Gen(r, urlb64, 33)),
		"databricks-token":           j("da", "pi", Gen(r, hexlow, 32)),
		"notes-confirm-token":        j("nc", "t_", Gen(r, urlb64, 40)),
		"labelled-secret":            j("password: ", Gen(r, alnum, 10), "!"),
		"bearer-header":              j("Authorization: Bearer ", Gen(r, urlb64, 30)),
		"high-entropy-string":        j("the value is ", Gen(r, alnum, 40)),
	}
}

// Wrap64 cuts s into lines of 64 characters, as PEM bodies and most
// tools wrap base64.
func Wrap64(s string) string { return wrap(s, 64) }

// wrap cuts s into lines of n characters (ssh-keygen wraps at 70).
func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// Hidden returns the five ways a secret reached history past the
// scanner (issue 29, finding 10), built at test time: an RSA key as
// unarmoured base64 DER, a ghp_ token base64-wrapped and hex-encoded, a
// token split across two Markdown table cells, and a password stated in
// prose; and the variants an attacker review found past those fixes: an
// OpenSSH key body without armour, hex written apart (colons, 0x lists),
// a token split across table rows, spaced out or in full-width letters,
// gzip then base64, and passwords in prose in other words and languages.
// The keys are generated afresh on each call; the seed fixes the token.
func Hidden(seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	ghp := "gh" + "p_" + Gen(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
	key, err := rsa.GenerateKey(crand.Reader, 1024)
	if err != nil {
		panic(err) // only a broken random source fails
	}
	pkcs1 := x509.MarshalPKCS1PrivateKey(key)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err) // only a broken random source fails
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		panic(err) // only a broken random source fails
	}
	ecDER, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		panic(err) // only a broken random source fails
	}
	_, edKey, err := ed25519.GenerateKey(crand.Reader)
	if err != nil {
		panic(err) // only a broken random source fails
	}
	openssh, err := ssh.MarshalPrivateKey(edKey, "")
	if err != nil {
		panic(err) // only an unknown key type fails
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("ci token: " + ghp + "\n"))
	_ = zw.Close()
	hexBytes := func(sep, prefix string) string {
		parts := make([]string, len(ghp))
		for i := range ghp {
			parts[i] = prefix + hex.EncodeToString([]byte{ghp[i]})
		}
		return strings.Join(parts, sep)
	}
	fullWidth := strings.Map(func(r rune) rune {
		if r > 0x20 && r < 0x7f {
			return r + 0xfee0
		}
		return r
	}, ghp)
	return map[string]string{
		"openssh key body, no armour":            "Bastion key:\n" + wrap(base64.StdEncoding.EncodeToString(openssh.Bytes), 70) + "\n",
		"ghp token, hex with colons":             "fingerprint-ish: " + hexBytes(":", ""),
		"ghp token, 0x byte list":                "bytes: {" + hexBytes(", ", "0x") + "}",
		"ghp token, split across table rows":     "| token |\n|---|\n| " + ghp[:14] + " |\n| " + ghp[14:28] + " |\n| " + ghp[28:] + " |\n",
		"ghp token, spaced characters":           "token: " + strings.Join(strings.Split(ghp, ""), " ") + " (spaced)",
		"ghp token, full-width":                  "CI token " + fullWidth + " for the runner.",
		"ghp token, gzip then base64":            "blob: " + base64.URLEncoding.EncodeToString(gz.Bytes()),
		"password in prose, pw:":                 "database pw: Hq7!vR2mZp9 (staging)",
		"password in prose, login with user and": "Login to the console with user admin and Wd4#kLm9Qx then rotate.",
		"password in prose, Portuguese":          "Lembrete: a senha do banco de produção é Pz8$gTq3Lw até sexta.",
		"password in prose, Spanish":             "La contraseña del servidor es Mk5%tRv8Nq.",
		"password in prose, Russian":             "Пароль от сервера: Fy6&bNc2Hs",
		"rsa key, base64 DER, wrapped":           "Deploy key for the build box:\n\n" + Wrap64(base64.StdEncoding.EncodeToString(pkcs1)) + "\n",
		"rsa key, base64 DER, one line":          "key: " + base64.StdEncoding.EncodeToString(pkcs8),
		"ec key, base64 DER":                     "The signer's key is " + base64.StdEncoding.EncodeToString(ecDER) + " (P-256).",
		"ghp token, base64":                      "CI secret (encoded): " + base64.StdEncoding.EncodeToString([]byte(ghp)),
		"ghp token, base64 of a line":            "Paste this into the runner: " + base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN="+ghp+"\n")),
		"ghp token, hex":                         "token hex: " + hex.EncodeToString([]byte(ghp)),
		"ghp token, split in a table":            "| service | token part 1 | token part 2 |\n|---|---|---|\n| ci | " + ghp[:20] + " | " + ghp[20:] + " |\n",
		"ghp token, wrapped across lines":        "The CI token is\n" + ghp[:22] + "\n" + ghp[22:] + "\nkeep it safe.",
		"password in prose":                      "Note for on-call: the prod DB password is Tr0ub4dor&3xK9 until the rotation on Friday.",
		"password in prose, quoted":              `Ask Bruno; he said the admin password was "Kx7#mQ2vL9" last week.`,
		"passphrase in prose, set to":            "We set the vault passphrase to zN4!pq8Rw2 for the migration.",
	}
}
