// Package secrets finds text that looks like a credential: the documented
// formats of common cloud, provider and forge tokens, private-key blocks,
// JWTs, connection strings with passwords, labelled assignments, and an
// entropy check for random-looking strings. A finding names the rule and the
// position, never the value.
package secrets

import (
	"math"
	"regexp"
	"sort"
	"strings"
)

// Finding is one suspected secret. It never carries the matched value.
type Finding struct {
	// Rule names the format that matched, e.g. "github-token".
	Rule string `json:"rule"`
	// Line is 1-based.
	Line int `json:"line"`
	// Column is 1-based, in bytes.
	Column int `json:"column"`
}

type rule struct {
	name string
	re   *regexp.Regexp
}

// rules are the documented credential formats. Each is anchored on a
// distinctive prefix or shape so prose does not match.
var rules = []rule{
	{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
	{"aws-secret-access-key", regexp.MustCompile(`(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}`)},
	{"github-token", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`)},
	{"github-fine-grained-token", regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{60,255}\b`)},
	{"gitlab-token", regexp.MustCompile(`\bgl(?:pat|dt|ptt|rt|soat|cbt|imt|agent)-[A-Za-z0-9_\-]{20,}`)},
	{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"slack-webhook", regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}`)},
	{"stripe-key", regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}\b`)},
	{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
	{"google-oauth-secret", regexp.MustCompile(`\bGOCSPX-[A-Za-z0-9_\-]{28}\b`)},
	{"anthropic-key", regexp.MustCompile(`\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{80,}`)},
	{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|\bsk-proj-[A-Za-z0-9_\-]{40,}|\bsk-[A-Za-z0-9]{48}\b`)},
	{"private-key", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
	{"connection-string-password", regexp.MustCompile(`(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|ftp|sftp|smtp|ldap)://[^\s:/@]+:[^\s@/]+@`)},
	{"url-credentials", regexp.MustCompile(`(?i)\bhttps?://[^\s:/@]+:[^\s@/]{3,}@`)},
	{"azure-storage-key", regexp.MustCompile(`(?i)AccountKey=[A-Za-z0-9+/=]{80,}`)},
	{"gcp-service-account", regexp.MustCompile(`"private_key_id"\s*:\s*"[a-f0-9]{40}"`)},
	{"twilio-api-key", regexp.MustCompile(`\bSK[0-9a-f]{32}\b`)},
	{"sendgrid-key", regexp.MustCompile(`\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`)},
	{"npm-token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{"pypi-token", regexp.MustCompile(`\bpypi-AgE[A-Za-z0-9_\-]{50,}`)},
	{"huggingface-token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{34,}\b`)},
	{"digitalocean-token", regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`)},
	{"shopify-token", regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`)},
	{"mailgun-key", regexp.MustCompile(`\bkey-[0-9a-zA-Z]{32}\b`)},
	{"square-token", regexp.MustCompile(`\b(?:sq0atp|sq0csp)-[0-9A-Za-z_\-]{22,}|\bEAAA[A-Za-z0-9_\-]{60}\b`)},
	{"telegram-bot-token", regexp.MustCompile(`\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b`)},
	{"discord-webhook", regexp.MustCompile(`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{60,}`)},
	{"databricks-token", regexp.MustCompile(`\bdapi[a-f0-9]{32}\b`)},
	{"notes-confirm-token", regexp.MustCompile(`\bnct_[A-Za-z0-9_\-]{20,}`)},
	{"labelled-secret", regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|secret|client_secret|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|secret[_\-]?key|private[_\-]?key|bearer)["']?\s*[:=]\s*["']?([^\s"'<>]{8,})`)},
	{"bearer-header", regexp.MustCompile(`(?i)\bauthorization:\s*(?:bearer|basic|token)\s+[A-Za-z0-9_\-\.=+/]{16,}`)},
}

var (
	dataURL   = regexp.MustCompile(`data:[a-zA-Z0-9.+\-/]+;base64,[A-Za-z0-9+/=]+`)
	plainURL  = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>"'\])]+`)
	candidate = regexp.MustCompile(`[A-Za-z0-9_\-+=]{24,}`)
	// placeholders in labelled assignments that are not secrets.
	placeholder = regexp.MustCompile(`(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|x{4,}|\*{4,}|(?:your|my|the)[_\-]?\w*|changeme|redacted|example\w*|placeholder|none|null|true|false|\.{3,}|env\(.*)$`)
)

// Scan returns the suspected secrets in text, in order of position; nil when
// there are none.
func Scan(text string) []Finding {
	if text == "" {
		return nil
	}
	var out []Finding
	seen := map[int]bool{}
	add := func(name string, off int) {
		if seen[off] {
			return
		}
		seen[off] = true
		line, col := position(text, off)
		out = append(out, Finding{Rule: name, Line: line, Column: col})
	}
	for _, r := range rules {
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			if r.name == "labelled-secret" {
				val := strings.TrimRight(text[m[2]:m[3]], ";,.)")
				if placeholder.MatchString(val) || !labelledValueLooksSecret(val) {
					continue
				}
			}
			add(r.name, m[0])
		}
	}
	// Entropy check on what is left once data URLs and URLs (whose
	// credentials the rules above already checked) are blanked out.
	masked := []byte(text)
	for _, re := range []*regexp.Regexp{dataURL, plainURL} {
		for _, m := range re.FindAllStringIndex(string(masked), -1) {
			for i := m[0]; i < m[1]; i++ {
				masked[i] = ' '
			}
		}
	}
	for _, m := range candidate.FindAllIndex(masked, -1) {
		if HighEntropy(string(masked[m[0]:m[1]])) {
			add("high-entropy-string", m[0])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}

// labelledValueLooksSecret keeps "password = hunter2hunter2" and drops
// "password: see the vault entry" style prose: the value must mix character
// classes or be long.
func labelledValueLooksSecret(v string) bool {
	if len(v) >= 20 {
		return true
	}
	var lower, upper, digit, other bool
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		default:
			other = true
		}
	}
	n := 0
	for _, b := range []bool{lower, upper, digit, other} {
		if b {
			n++
		}
	}
	return n >= 2
}

// HighEntropy reports whether s looks like a random credential: at least 24
// characters mixing upper case, lower case and digits, with frequent switches
// between those classes and a high Shannon entropy. Hex strings (commit SHAs,
// colours), ULIDs and UUIDs lack lower or upper case and so never pass;
// identifiers and prose have long runs of one class and so never pass.
func HighEntropy(s string) bool {
	if len(s) < 24 {
		return false
	}
	var lower, upper, digit, switches int
	prev := 0
	for _, r := range s {
		c := 0
		switch {
		case r >= 'a' && r <= 'z':
			lower++
			c = 1
		case r >= 'A' && r <= 'Z':
			upper++
			c = 2
		case r >= '0' && r <= '9':
			digit++
			c = 3
		default:
			c = 4
		}
		if prev != 0 && c != prev {
			switches++
		}
		prev = c
	}
	if lower < 2 || upper < 2 || digit < 2 {
		return false
	}
	if float64(switches) < float64(len(s))/3.5 {
		return false
	}
	return Entropy(s) >= 3.8
}

// Entropy is the Shannon entropy of s in bits per byte.
func Entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range counts {
		if c == 0 {
			continue
		}
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h
}

func position(text string, off int) (line, col int) {
	line = 1 + strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return line, off - start + 1
}
