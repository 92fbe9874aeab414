package secrets

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
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
	}
	for _, text := range clean {
		if got := Scan(text); len(got) != 0 {
			t.Errorf("flagged %v:\n%s", got, text)
		}
	}
}
