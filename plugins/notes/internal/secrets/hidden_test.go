package secrets

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/secrets/secretstest"
)

// TestScanFindsHiddenSecrets: every hidden form is flagged.
func TestScanFindsHiddenSecrets(t *testing.T) {
	for name, text := range secretstest.Hidden(29) {
		t.Run(name, func(t *testing.T) {
			if got := Scan(text); len(got) == 0 {
				t.Errorf("not flagged:\n%s", text)
			}
		})
	}
}

// TestScanHiddenFormsNoFalsePositives: the decoders and joins do not make
// ordinary notes look secret: encoded text without a secret, public
// certificates and keys as base64 DER, hashes, tables of ids, and
// passwords talked about without a value.
func TestScanHiddenFormsNoFalsePositives(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	pub := x509.MarshalPKCS1PublicKey(&key.PublicKey)
	pkix, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	clean := []string{
		"Encoded greeting: " + base64.StdEncoding.EncodeToString([]byte("hello from the billing team, see the runbook for details")),
		"hex of a sentence: " + hex.EncodeToString([]byte("the queue is drained nightly by the batch job")),
		"Public key (PKCS#1, base64 DER):\n" + secretstest.Wrap64(base64.StdEncoding.EncodeToString(pub)),
		"Public key (SPKI): " + base64.StdEncoding.EncodeToString(pkix),
		"sha256 of the release: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad fixed it",
		"| service | owner | ticket |\n|---|---|---|\n| billing | bruno | OPS-1234 |\n| search | ana | OPS-98 |\n",
		"The prod DB password is stored in the team vault under db/prod.",
		"The password is rotated every 90 days by the platform team.",
		"The admin password was reset yesterday; ask Bruno for access.",
		"Set the password to something long; the policy wants 12 characters.",
		"The password is correct-horse-battery-staple style: four words.",
		"Our wiki page about passwords is at wiki/concepts/Passwords.md.",
		"MAC list: 00:1a:2b:3c:4d:5e:6f:70:81:92:a3:b4:c5:d6:e7:f8:09:1a",
		"bytes: {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}",
		"The grades were A B C D E F G H I J K L M, in that order.",
		"| step |\n|---|\n| checkout |\n| build-release |\n| publish-docs |\n",
		"Compressed note: " + gzipBase64(t, "the nightly job moves the logs to cold storage"),
		"A senha do banco fica no cofre da equipe; peça ao Bruno.",
		"La contraseña se cambia cada 90 días.",
		"Пароль хранится в хранилище команды.",
		"Login with user admin and the password from the vault.",
		"Das Passwort ist im Tresor, nicht hier.",
		"Ｆｕｌｌ-width heading: ＲＥＡＤＭＥ ｆｏｒ ｔｈｅ ｔｅａｍ",
	}
	for _, text := range clean {
		if got := Scan(text); len(got) != 0 {
			t.Errorf("flagged %v:\n%s", got, text)
		}
	}
}

// TestScanNamesOpenSSHKeyBody: an OpenSSH private key without its armour
// lines is named as a key, not left to the entropy check's luck.
func TestScanNamesOpenSSHKeyBody(t *testing.T) {
	text := secretstest.Hidden(29)["openssh key body, no armour"]
	for _, f := range Scan(text) {
		if f.Rule == "private-key-openssh" {
			return
		}
	}
	t.Errorf("no private-key-openssh finding in %v:\n%s", Scan(text), text)
}

// gzipBase64 is text gzipped, then base64-encoded.
func gzipBase64(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestScanBoundsDecodedWork: a compressed blob inflates to at most
// maxInflate bytes, and a note holding more decodable text than one Scan
// looks into is refused as such rather than let through unread.
func TestScanBoundsDecodedWork(t *testing.T) {
	skipUnderRace(t)
	bomb := gzipBase64(t, strings.Repeat("a", 8<<20))
	raw, err := base64.StdEncoding.DecodeString(bomb)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(inflate(raw)); n > maxInflate {
		t.Errorf("inflated %d bytes, bound %d", n, maxInflate)
	}
	var note strings.Builder
	line := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("the nightly job moves logs. ", 40)))
	const small = 256 << 10 // the bound Scan sets, made small to keep the test quick
	for note.Len() < 2*small {
		note.WriteString(line + "\n\n")
	}
	got := scan(note.String(), 0, &budget{left: small})
	if len(got) == 0 || got[0].Rule != "scan-budget-exceeded" {
		t.Errorf("a note past the budget gave %v, want scan-budget-exceeded", got[:min(len(got), 3)])
	}
}
