package secrets

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"
)

var (
	// b64Run: base64 (standard or URL alphabet), maybe wrapped over
	// lines as PEM bodies and most tools wrap it.
	b64Run = regexp.MustCompile(`[A-Za-z0-9+/_\-]{20,}={0,2}(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_\-]{16,}={0,2})*`)
	// hexRun: sixteen or more hex-encoded bytes.
	hexRun = regexp.MustCompile(`\b(?:[0-9a-fA-F]{2}){16,}\b`)
	// proseSecret: a password or passphrase stated in a sentence: "the
	// prod DB password is …", "the admin password was "…"", "set the
	// vault passphrase to …".
	proseSecret = regexp.MustCompile(`(?i)\b(?:password|passphrase|passwd|passcode|pwd|secret(?: key)?)\b[^.!?\n]{0,30}?\b(?:is|was|are|were|=|:|to|be|becomes|reads)[ \t]+["'\x60“‘]?([^\s"'\x60”’]{6,64})`)
	// lineToken: the token-shaped end of a line and start of the next,
	// the two halves of a wrapped token.
	lineTail = regexp.MustCompile(`[A-Za-z0-9_\-+/]{8,}$`)
	lineHead = regexp.MustCompile(`^[A-Za-z0-9_\-+/]{8,}`)
)

// hidden finds secrets the rules cannot see in text as written and
// reports them through add, at the position of what holds them; it
// returns the spans the entropy check must skip (public keys and
// certificates as base64 DER: high-entropy, not secret).
func hidden(text string, depth int, add func(rule string, off int)) (quiet [][2]int) {
	// Findings in a decoded text are the rules' own; the entropy check
	// stays on the text as written.
	found := func(derived string) []Finding {
		var out []Finding
		for _, f := range scan(derived, depth+1) {
			if f.Rule != "high-entropy-string" {
				out = append(out, f)
			}
		}
		return out
	}
	// Joined cells and lines are judged by the vendor formats only: a
	// label joined to the next line's name is no assignment.
	vendor := func(joined string) bool {
		for _, f := range found(joined) {
			if f.Rule != "labelled-secret" && f.Rule != "password-in-prose" {
				return true
			}
		}
		return false
	}
	for _, m := range b64Run.FindAllStringIndex(text, -1) {
		raw, ok := decodeBase64(text[m[0]:m[1]])
		if !ok {
			continue
		}
		switch derKind(raw) {
		case derPrivate:
			add("private-key-der", m[0])
			continue
		case derPublic:
			quiet = append(quiet, [2]int{m[0], m[1]})
			continue
		}
		if printableText(raw) {
			for _, f := range found(string(raw)) {
				add(f.Rule+"-base64", m[0])
			}
		}
	}
	for _, m := range hexRun.FindAllStringIndex(text, -1) {
		raw, err := hex.DecodeString(text[m[0]:m[1]])
		if err != nil {
			continue
		}
		if derKind(raw) == derPrivate {
			add("private-key-der", m[0])
			continue
		}
		if printableText(raw) {
			for _, f := range found(string(raw)) {
				add(f.Rule+"-hex", m[0])
			}
		}
	}
	lines := strings.SplitAfter(text, "\n")
	off := 0
	for i, line := range lines {
		// A token split across the cells of a Markdown table row:
		// neighbouring cells joined, two to four at a time.
		if cells := tableCells(line); len(cells) >= 2 {
			for w := 2; w <= 4; w++ {
				for j := 0; j+w <= len(cells); j++ {
					if vendor(strings.Join(cells[j:j+w], "")) {
						add("split-secret", off)
					}
				}
			}
		}
		// A token wrapped over two lines: the end of one joined to the
		// start of the next.
		if i+1 < len(lines) {
			tail := lineTail.FindString(strings.TrimRight(line, " \t\r\n\\"))
			head := lineHead.FindString(strings.TrimLeft(lines[i+1], " \t>"))
			if tail != "" && head != "" && vendor(tail+head) {
				add("split-secret", off+strings.LastIndex(line, tail))
			}
		}
		off += len(line)
	}
	for _, m := range proseSecret.FindAllStringSubmatchIndex(text, -1) {
		if v := strings.TrimRight(text[m[2]:m[3]], ".,;:)"); looksLikePassword(v) {
			add("password-in-prose", m[2])
		}
	}
	return quiet
}

// tableCells splits a Markdown table row into its non-empty cells; nil
// when line is not a row or is the header's separator.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || strings.Count(line, "|") < 3 {
		return nil
	}
	var cells []string
	for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
		c = strings.TrimSpace(c)
		if c != "" && strings.Trim(c, "-: ") != "" {
			cells = append(cells, c)
		}
	}
	return cells
}

// decodeBase64 decodes a run in either alphabet, with or without padding,
// line breaks removed; a run whose end is cut off loses its last
// characters.
func decodeBase64(run string) ([]byte, bool) {
	s := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, run)
	s = strings.TrimRight(s, "=")
	if len(s)%4 == 1 {
		s = s[:len(s)-1]
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	raw, err := enc.DecodeString(s)
	return raw, err == nil && len(raw) >= 12
}

type derType int

const (
	derNone derType = iota
	derPrivate
	derPublic
)

// derKind reports whether raw is a private key (PKCS#1, PKCS#8, SEC 1)
// or public material (a public key or certificate) in DER, as Go's x509
// parses them.
func derKind(raw []byte) derType {
	if len(raw) < 32 || raw[0] != 0x30 {
		return derNone
	}
	if _, err := x509.ParsePKCS1PrivateKey(raw); err == nil {
		return derPrivate
	}
	if _, err := x509.ParsePKCS8PrivateKey(raw); err == nil {
		return derPrivate
	}
	if _, err := x509.ParseECPrivateKey(raw); err == nil {
		return derPrivate
	}
	if _, err := x509.ParsePKCS1PublicKey(raw); err == nil {
		return derPublic
	}
	if _, err := x509.ParsePKIXPublicKey(raw); err == nil {
		return derPublic
	}
	if _, err := x509.ParseCertificate(raw); err == nil {
		return derPublic
	}
	return derNone
}

// printableText reports bytes that are mostly printable UTF-8 text: what
// an encoded note or token decodes to, unlike random key material.
func printableText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	n, ok := 0, 0
	for _, r := range string(raw) {
		n++
		if r == '\n' || r == '\t' || r == '\r' || (r >= 0x20 && r != 0x7f) {
			ok++
		}
	}
	return n > 0 && ok*10 >= n*9
}

// looksLikePassword judges a value stated as a password in prose: eight
// or more characters mixing at least three of lower case, upper case,
// digits and symbols, and not a placeholder, template, path or word.
func looksLikePassword(v string) bool {
	if len(v) < 8 || isPlaceholder(v) || templateRE.MatchString(v) || strings.Contains(v, "://") || wordy(v) {
		return false
	}
	c := classify(v)
	kinds := 0
	for _, n := range []int{c.lower, c.upper, c.digit, c.other} {
		if n > 0 {
			kinds++
		}
	}
	return kinds >= 3
}
