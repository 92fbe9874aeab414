package secrets

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	// b64Run: base64 (standard or URL alphabet), maybe wrapped over
	// lines as PEM bodies and most tools wrap it.
	b64Run = regexp.MustCompile(`[A-Za-z0-9+/_\-]{20,}={0,2}(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_\-]{16,}={0,2})*`)
	// hexRun: sixteen or more hex-encoded bytes.
	hexRun = regexp.MustCompile(`\b(?:[0-9a-fA-F]{2}){16,}\b`)
	// hexList: sixteen or more hex bytes written apart: "de:ad:be:ef",
	// "0x67, 0x68", "\x67\x68", "de ad be ef".
	hexList   = regexp.MustCompile(`(?i)(?:0x|\\x)?[0-9a-f]{2}(?:(?:[:, \t-]{1,2}(?:0x)?|\\x|0x)[0-9a-f]{2}){15,}`)
	hexPrefix = regexp.MustCompile(`0[xX]|\\x`)
	// spaced: twelve or more single characters with a space or tab
	// between each, a token written out to hide its shape.
	spaced = regexp.MustCompile(`(?:^|[ \t\n(])((?:[^\s][ \t]){11,}[^\s])(?:[ \t\r\n).,;]|$)`)
	// proseSecret: a password stated in a sentence, in any of the
	// languages a brain is written in: "the prod DB password is …",
	// "database pw: …", "a senha do banco é …", "пароль: …".
	proseSecret = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:` + pwWords + `)(?:` + assign + `|(?:[ \t,(][^.!?\n]{0,40}?)?[ \t](?:` + copulas + `)[ \t]+|[ \t,(][^.!?\n]{0,40}?` + assign + `)` + quotedValue)
	// userAndPassword: a login stated with its password: "with user
	// admin and …", "user: admin / …", "usuário admin e …".
	userAndPassword = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:user(?:name)?|login|usu[áa]rio|utilisateur|benutzer(?:name)?|пользовател[ьяем]+)[ \t:=]+["'\x60]?[^\s"'\x60/,:]{1,64}["'\x60]?(?:[ \t]*[/,:][ \t]*|[ \t]+(?:and|e|y|et|und|и)[ \t]+)(?:(?:the[ \t]+)?(?:` + pwWords + `)` + assign + `)?` + quotedValue)
	// lineToken: the token-shaped end of a line and start of the next,
	// the two halves of a wrapped token.
	lineTail = regexp.MustCompile(`[A-Za-z0-9_\-+/]{8,}$`)
	lineHead = regexp.MustCompile(`^[A-Za-z0-9_\-+/]{8,}`)
	// tokenCell: a table cell that could be part of a token.
	tokenCell = regexp.MustCompile(`^[A-Za-z0-9_\-+/=.]{4,100}$`)
)

// The words of proseSecret and userAndPassword.
const (
	pwWords     = `pw|pwd|pass|passwd|passcode|passphrase|pass ?word|passwort|kennwort|senha|contrase[ñn]a|clave|mot de passe|mdp|пароль|парол[яюе]|hasło|haslo|wachtwoord|lösenord|salasana|parola|secret(?: key)?`
	copulas     = `is|was|are|were|to|be|becomes|reads|é|es|era|foi|fue|est|était|ist|war|är|var|è|jest|это`
	assign      = `[ \t]*(?:[=:→]|->|—|–)[ \t]*`
	quotedValue = `["'\x60“‘«]?([^\s"'\x60”’»]{6,64})`
)

// Bounds on the work one Scan does on what it decodes and joins, so a
// hostile note cannot make it slow or large: text past the budget is a
// finding of its own, not a way through.
const (
	// maxDerived is the total size of decoded, inflated and joined
	// text one Scan looks into.
	maxDerived = 8 << 20
	// maxInflate bounds what one compressed blob inflates to.
	maxInflate = 1 << 20
)

// budget counts down the bytes one Scan may still derive.
type budget struct{ left int }

// take reserves n bytes; false once the budget is spent.
func (b *budget) take(n int) bool {
	if b == nil {
		return true
	}
	if n > b.left {
		b.left = 0
		return false
	}
	b.left -= n
	return true
}

// normalize folds compatibility forms (full-width letters, ligatures,
// superscripts) with NFKC and drops invisible format characters (zero
// width spaces and joiners, soft hyphens) that split a token; ok is
// false when text is already in that form.
func normalize(text string) (string, bool) {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return text, false
	}
	// Format characters go first so that folding, which creates none,
	// leaves a text that is already normal.
	n := strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, text)
	n = norm.NFKC.String(n)
	return n, n != text
}

// openSSHMagic starts the body of an OpenSSH private key.
var openSSHMagic = []byte("openssh-key-v1\x00")

// inflate returns what a gzip or zlib stream holds, up to maxInflate
// bytes; raw itself when it is neither.
func inflate(raw []byte) []byte {
	var r io.Reader
	switch {
	case len(raw) > 10 && raw[0] == 0x1f && raw[1] == 0x8b && raw[2] == 8:
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return raw
		}
		r = zr
	case len(raw) > 2 && raw[0]&0x0f == 8 && raw[0]>>4 <= 7 && (int(raw[0])<<8|int(raw[1]))%31 == 0:
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			return raw
		}
		r = zr
	default:
		return raw
	}
	// A stream cut short still yields what it inflated so far.
	out, _ := io.ReadAll(io.LimitReader(r, maxInflate))
	if len(out) == 0 {
		return raw
	}
	return out
}

// hidden finds secrets the rules cannot see in text as written and
// reports them through add, at the position of what holds them; it
// returns the spans the entropy check must skip (public keys and
// certificates as base64 DER: high-entropy, not secret).
func hidden(text string, depth int, b *budget, add func(rule string, off int)) (quiet [][2]int) {
	// Findings in a decoded text are the rules' own; the entropy check
	// stays on the text as written.
	found := func(derived string, off int) []Finding {
		if !b.take(len(derived)) {
			add("scan-budget-exceeded", off)
			return nil
		}
		var out []Finding
		for _, f := range scan(derived, depth+1, b) {
			if f.Rule != "high-entropy-string" {
				out = append(out, f)
			}
		}
		return out
	}
	// Joined cells and lines are judged by the vendor formats only: a
	// label joined to the next line's name is no assignment.
	vendor := func(joined string, off int) bool {
		for _, f := range found(joined, off) {
			if f.Rule != "labelled-secret" && f.Rule != "password-in-prose" {
				return true
			}
		}
		return false
	}
	// decoded judges the bytes an encoded run at off decodes to: a
	// private key (DER or OpenSSH), or text holding a secret, maybe
	// compressed first.
	decoded := func(raw []byte, off int, suffix string) derType {
		if !b.take(len(raw)) {
			add("scan-budget-exceeded", off)
			return derNone
		}
		if in := inflate(raw); len(in) != len(raw) || !bytes.Equal(in, raw) {
			if !b.take(len(in)) {
				add("scan-budget-exceeded", off)
				return derNone
			}
			raw = in
		}
		if bytes.HasPrefix(raw, openSSHMagic) {
			add("private-key-openssh", off)
			return derPrivate
		}
		switch k := derKind(raw); k {
		case derPrivate:
			add("private-key-der", off)
			return k
		case derPublic:
			return k
		}
		if printableText(raw) {
			for _, f := range found(string(raw), off) {
				add(f.Rule+suffix, off)
			}
		}
		return derNone
	}
	for _, m := range b64Run.FindAllStringIndex(text, -1) {
		raw, ok := decodeBase64(text[m[0]:m[1]])
		if !ok {
			continue
		}
		if decoded(raw, m[0], "-base64") == derPublic {
			quiet = append(quiet, [2]int{m[0], m[1]})
		}
	}
	for _, m := range hexRun.FindAllStringIndex(text, -1) {
		if raw, err := hex.DecodeString(text[m[0]:m[1]]); err == nil {
			decoded(raw, m[0], "-hex")
		}
	}
	for _, m := range hexList.FindAllStringIndex(text, -1) {
		if !strings.ContainsAny(text[m[0]:m[1]], ":, \t-\\x") {
			continue // one unbroken run: hexRun's
		}
		if raw, ok := decodeHexList(text[m[0]:m[1]]); ok {
			decoded(raw, m[0], "-hex")
		}
	}
	// A token written one character at a time, spaces between.
	for _, m := range spaced.FindAllStringSubmatchIndex(text, -1) {
		joined := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, text[m[2]:m[3]])
		if !b.take(len(joined)) {
			add("scan-budget-exceeded", m[2])
			continue
		}
		if len(scan(joined, depth+1, b)) > 0 {
			add("spaced-secret", m[2])
		}
	}
	joinTables(text, vendor, add)
	lines := strings.SplitAfter(text, "\n")
	off := 0
	for i, line := range lines {
		// A token split across the cells of a Markdown table row:
		// neighbouring cells joined, two to four at a time.
		if cells := tableCells(line); len(cells) >= 2 {
			for w := 2; w <= 4; w++ {
				for j := 0; j+w <= len(cells); j++ {
					if vendor(strings.Join(cells[j:j+w], ""), off) {
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
			if tail != "" && head != "" && vendor(tail+head, off) {
				add("split-secret", off+strings.LastIndex(line, tail))
			}
		}
		off += len(line)
	}
	for _, re := range []*regexp.Regexp{proseSecret, userAndPassword} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if v := strings.TrimRight(text[m[2]:m[3]], ".,;:)"); looksLikePassword(v) {
				add("password-in-prose", m[2])
			}
		}
	}
	return quiet
}

// tableCells splits a Markdown table row into its non-empty cells; nil
// when line is not a row or is the header's separator.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || strings.Count(line, "|") < 2 {
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

// joinTables finds a token split across the rows of a Markdown table:
// the token-shaped cells of consecutive rows are joined in reading order
// and down each column, two to four at a time, and judged by vendor.
func joinTables(text string, vendor func(string, int) bool, add func(string, int)) {
	type cell struct {
		text string
		row  int
		col  int
	}
	flush := func(cells []cell, rowOff []int) {
		if len(rowOff) < 2 {
			return
		}
		// In reading order, then column by column.
		byCol := map[int][]cell{}
		cols := []int{}
		for _, c := range cells {
			if _, ok := byCol[c.col]; !ok {
				cols = append(cols, c.col)
			}
			byCol[c.col] = append(byCol[c.col], c)
		}
		seqs := [][]cell{cells}
		for _, c := range cols {
			seqs = append(seqs, byCol[c])
		}
		for _, seq := range seqs {
			for w := 2; w <= 4; w++ {
				for j := 0; j+w <= len(seq); j++ {
					if seq[j].row == seq[j+w-1].row {
						continue // within one row: hidden's own join
					}
					var sb strings.Builder
					ok := true
					for _, c := range seq[j : j+w] {
						if !tokenCell.MatchString(c.text) {
							ok = false
							break
						}
						sb.WriteString(c.text)
					}
					if ok && vendor(sb.String(), rowOff[seq[j].row]) {
						add("split-secret", rowOff[seq[j].row])
					}
				}
			}
		}
	}
	var cells []cell
	var rowOff []int
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		if row := tableCells(line); row != nil || isTableSeparator(line) {
			if row != nil {
				for i, c := range row {
					cells = append(cells, cell{text: c, row: len(rowOff), col: i})
				}
				rowOff = append(rowOff, off)
			}
		} else {
			flush(cells, rowOff)
			cells, rowOff = nil, nil
		}
		off += len(line)
	}
	flush(cells, rowOff)
}

// isTableSeparator reports the |---|---| line under a table's header.
func isTableSeparator(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "|") && strings.Trim(line, "|-: ") == ""
}

// decodeHexList decodes hex bytes written apart ("de:ad", "0x67, 0x68").
func decodeHexList(run string) ([]byte, bool) {
	s := hexPrefix.ReplaceAllString(run, "")
	s = strings.Map(func(r rune) rune {
		if ('0' <= r && r <= '9') || ('a' <= r && r <= 'f') || ('A' <= r && r <= 'F') {
			return r
		}
		return -1
	}, s)
	if len(s)%2 == 1 {
		s = s[:len(s)-1]
	}
	raw, err := hex.DecodeString(s)
	return raw, err == nil && len(raw) >= 12
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
