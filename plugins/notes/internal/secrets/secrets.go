// Package secrets finds text that looks like a credential: the documented
// formats of common cloud, provider and forge tokens, private-key blocks,
// JWTs, connection strings with passwords, labelled assignments, and an
// entropy check for random-looking strings. A finding names the rule and the
// position, never the value.
package secrets

import (
	"encoding/base64"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
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
	// keywords are lower-case strings one of which the text must hold
	// for the rule to run: a cheap prefilter before the expression.
	keywords []string
	re       *regexp.Regexp
	// check, when set, judges the captured value (the first group, or
	// the whole match without one); false drops the match.
	check func(label, value string) bool
}

// rules are the documented credential formats: each anchored on the
// vendor's distinctive prefix or shape, so prose does not match. The
// formats are those public secret scanners document (gitleaks' rule set is
// the reference the tests measure against).
var rules = []rule{
	{"aws-access-key-id", []string{"akia", "asia", "abia", "acca", "a3t", "agpa", "aida", "aroa", "anpa", "anva", "aipa"}, regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`), nil},
	{"aws-bedrock-key", []string{"absk", "bedrock-api-key-"}, regexp.MustCompile(`\bABSK[A-Za-z0-9+/]{100,}={0,2}|bedrock-api-key-[A-Za-z0-9+/]{40,}={0,2}`), nil},
	{"github-token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`), notRepeated},
	{"github-fine-grained-token", []string{"github_pat_"}, regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{60,255}\b`), notRepeated},
	{"gitlab-token", []string{"glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glimt-", "glagent-", "glffct-", "glft-", "gloas-"}, regexp.MustCompile(`\bgl(?:pat|dt|ptt|rt|soat|cbt|imt|agent|ffct|ft|oas)-[A-Za-z0-9_\-.]{20,}`), notRepeated},
	{"gitlab-runner-registration-token", []string{"gr1348941"}, regexp.MustCompile(`\bGR1348941[A-Za-z0-9_\-]{20,}`), nil},
	{"gitlab-session-cookie", []string{"_gitlab_session"}, regexp.MustCompile(`_gitlab_session=[0-9a-z]{32}`), nil},
	{"slack-token", []string{"xox"}, regexp.MustCompile(`\bxox[abposre]-(?:\d+-)?[A-Za-z0-9-]{10,}|\bxoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`), slackLike},
	{"slack-webhook", []string{"hooks.slack.com"}, regexp.MustCompile(`(?i)https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}`), nil},
	{"microsoft-teams-webhook", []string{"webhook.office.com"}, regexp.MustCompile(`(?i)https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9\-]{36}@[a-z0-9\-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9\-]{36}`), nil},
	{"stripe-key", []string{"sk_", "rk_"}, regexp.MustCompile(`\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99}\b`), notRepeated},
	{"google-api-key", []string{"aiza"}, regexp.MustCompile(`\b(AIza[0-9A-Za-z_\-]{35})` + tokenEnd), notRepeated},
	{"google-oauth-secret", []string{"gocspx-"}, regexp.MustCompile(`\b(GOCSPX-[A-Za-z0-9_\-]{28})` + tokenEnd), nil},
	{"anthropic-key", []string{"sk-ant-"}, regexp.MustCompile(`\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{80,}`), nil},
	{"openai-key", []string{"sk-"}, regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|\bsk-proj-[A-Za-z0-9_\-]{40,}|\bsk-[A-Za-z0-9]{48}\b`), nil},
	{"private-key", []string{"private key"}, regexp.MustCompile(`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----\s*[A-Za-z0-9+/=\r\n:\-, ]{64,}`), nil},
	{"age-secret-key", []string{"age-secret-key-1"}, regexp.MustCompile(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`), always},
	{"jwt", []string{"eyj"}, regexp.MustCompile(`\bey[A-Za-z0-9_\-]{10,}\.ey[A-Za-z0-9_\-/\\]{10,}\.[A-Za-z0-9_\-/\\]{0,}`), nil},
	{"jwt-base64", []string{"zxlk", "v5sh", "leuj"}, regexp.MustCompile(`\b(?:ZXlK|ZXlK|V5SH|leUo|ZXlK)[A-Za-z0-9+/]{40,}={0,2}|\bZXlK[A-Za-z0-9+/]{40,}={0,2}`), nil},
	{"connection-string-password", []string{"://"}, regexp.MustCompile(`(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|ftp|sftp|smtp|ldap)://[^\s:/@]+:[^\s@/]+@`), nil},
	{"url-credentials", []string{"://"}, regexp.MustCompile(`(?i)\bhttps?://[^\s:/@]+:([^\s@/]{3,})@`), func(_, v string) bool { return !isPlaceholder(v) }},
	{"azure-storage-key", []string{"accountkey="}, regexp.MustCompile(`(?i)AccountKey=[A-Za-z0-9+/=]{80,}`), nil},
	{"azure-ad-client-secret", []string{"q~"}, regexp.MustCompile(`(?:^|[\\'"\x60\s>=:(,)])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:$|[\\'"\x60\s<),])`), notRepeated},
	{"gcp-service-account", []string{"private_key"}, regexp.MustCompile(`"private_key_id"\s*:\s*"[a-f0-9]{40}"`), nil},
	{"twilio-api-key", []string{"sk"}, regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`), nil},
	{"sendgrid-key", []string{"sg."}, regexp.MustCompile(`\bSG\.[A-Za-z0-9=_\-.]{66}`), nil},
	{"sendinblue-key", []string{"xkeysib-"}, regexp.MustCompile(`xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`), nil},
	{"npm-token", []string{"npm_"}, regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`), nil},
	{"pypi-token", []string{"pypi-age"}, regexp.MustCompile(`\bpypi-AgE[A-Za-z0-9_\-]{50,}`), nil},
	{"rubygems-token", []string{"rubygems_"}, regexp.MustCompile(`\brubygems_[a-f0-9]{48}\b`), nil},
	{"clojars-token", []string{"clojars_"}, regexp.MustCompile(`(?i)\bCLOJARS_[a-z0-9]{60}`), nil},
	{"huggingface-token", []string{"hf_", "api_org_"}, regexp.MustCompile(`\b(?:hf|api_org)_[A-Za-z0-9]{34,}\b`), mixedToken},
	{"digitalocean-token", []string{"_v1_"}, regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`), nil},
	{"shopify-token", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`), nil},
	{"mailgun-key", []string{"key-"}, regexp.MustCompile(`\b(?:pub)?key-[0-9a-zA-Z]{32}\b`), mixedToken},
	{"square-token", []string{"sq0", "eaaa"}, regexp.MustCompile(`\b(?:sq0atp|sq0csp)-[0-9A-Za-z_\-]{22,}|\bEAAA[A-Za-z0-9_\-]{22,60}\b`), nil},
	{"telegram-bot-token", []string{":aa"}, regexp.MustCompile(`\b(\d{5,16}:AA[A-Za-z0-9_\-]{33})` + tokenEnd), afterColon},
	{"discord-webhook", []string{"discord"}, regexp.MustCompile(`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{60,}`), nil},
	{"databricks-token", []string{"dapi"}, regexp.MustCompile(`\bdapi[a-f0-9]{32}(?:-\d)?\b`), nil},
	{"heroku-key", []string{"hrku-"}, regexp.MustCompile(`\bHRKU-AA[0-9A-Za-z_\-]{58}`), nil},
	{"hashicorp-vault-token", []string{"hvs.", "hvb.", "s."}, regexp.MustCompile(`\bhvs\.[\w-]{90,120}|\bhvb\.[\w-]{138,300}|\bs\.[A-Za-z0-9]{24}\b`), mixedToken},
	{"terraform-cloud-token", []string{"atlasv1"}, regexp.MustCompile(`(?i)\b[a-z0-9]{14}\.atlasv1\.[a-z0-9\-_=]{60,70}`), nil},
	{"atlassian-token", []string{"atatt3"}, regexp.MustCompile(`\bATATT3[A-Za-z0-9_\-=]{100,}`), nil},
	{"grafana-token", []string{"eyjrijoi", "glc_", "glsa_"}, regexp.MustCompile(`\beyJrIjoi[A-Za-z0-9]{70,400}={0,3}|\bglc_[A-Za-z0-9+/]{32,400}={0,3}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`), notRepeated},
	{"sentry-token", []string{"sntrys_", "sntryu_"}, regexp.MustCompile(`\bsntryu_[a-f0-9]{64}\b|\bsntrys_eyJpYXQiO[A-Za-z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[A-Za-z0-9+/]{10,200}={0,2}_[A-Za-z0-9+/]{43}`), nil},
	{"1password-token", []string{"ops_eyj", "a3-"}, regexp.MustCompile(`\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b`), nil},
	{"planetscale-token", []string{"pscale_"}, regexp.MustCompile(`\bpscale_(?:pw|tkn|oauth)_[\w=.\-]{32,64}`), nil},
	{"postman-token", []string{"pmak-"}, regexp.MustCompile(`\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`), nil},
	{"pulumi-token", []string{"pul-"}, regexp.MustCompile(`\bpul-[a-f0-9]{40}\b`), nil},
	{"linear-key", []string{"lin_api_"}, regexp.MustCompile(`\blin_api_[A-Za-z0-9]{40}\b`), nil},
	{"readme-token", []string{"rdme_"}, regexp.MustCompile(`\brdme_[a-z0-9]{70}\b`), nil},
	{"doppler-token", []string{"dp.pt."}, regexp.MustCompile(`\bdp\.pt\.[A-Za-z0-9]{43}`), nil},
	{"dynatrace-token", []string{"dt0c01."}, regexp.MustCompile(`\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`), nil},
	{"duffel-token", []string{"duffel_"}, regexp.MustCompile(`\bduffel_(?:test|live)_[A-Za-z0-9_\-=]{43}`), nil},
	{"easypost-token", []string{"ezak", "eztk"}, regexp.MustCompile(`\bEZ[AT]K[A-Za-z0-9]{54}\b`), nil},
	{"frameio-token", []string{"fio-u-"}, regexp.MustCompile(`\bfio-u-[A-Za-z0-9\-_=]{64}`), nil},
	{"flyio-token", []string{"fo1_", "fm1", "fm2_"}, regexp.MustCompile(`\bfo1_[\w-]{43}|\bfm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|\bfm2_[A-Za-z0-9+/]{100,}={0,3}`), notRepeated},
	{"flutterwave-key", []string{"flw"}, regexp.MustCompile(`\bFLW(?:PUBK|SECK)_TEST-[A-Za-z0-9]{12,32}(?:-X)?|\bFLWSECK_TEST[A-Za-z0-9]{12}`), nil},
	{"prefect-token", []string{"pnu_"}, regexp.MustCompile(`\bpnu_[A-Za-z0-9]{36}\b`), nil},
	{"settlemint-token", []string{"sm_"}, regexp.MustCompile(`\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b`), nil},
	{"shippo-token", []string{"shippo_"}, regexp.MustCompile(`\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b`), nil},
	{"artifactory-token", []string{"akcp", "cmvmd"}, regexp.MustCompile(`\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b`), nil},
	{"openshift-token", []string{"sha256~"}, regexp.MustCompile(`\bsha256~[\w-]{43}(?:[^\w-]|$)`), nil},
	{"perplexity-key", []string{"pplx-"}, regexp.MustCompile(`\bpplx-[A-Za-z0-9]{48}\b`), nil},
	{"infracost-token", []string{"ico-"}, regexp.MustCompile(`(?:^|[^.\w])(ico-[A-Za-z0-9]{32})\b`), nil},
	{"scalingo-token", []string{"tk-us-"}, regexp.MustCompile(`\btk-us-[\w-]{48}`), nil},
	{"alibaba-access-key", []string{"ltai"}, regexp.MustCompile(`\bLTAI[A-Za-z0-9]{20}\b`), nil},
	{"okta-token", []string{"okta"}, regexp.MustCompile(`\b(00[A-Za-z0-9=_\-]{40})` + tokenEnd), oktaLike},
	{"facebook-token", []string{"eaa"}, regexp.MustCompile(`\bEAA[MC][A-Za-z0-9]{100,}`), nil},
	{"sourcegraph-token", []string{"sgp_"}, regexp.MustCompile(`\bsgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}\b|\bsgp_[a-fA-F0-9]{40}\b`), nil},
	{"sidekiq-secret", []string{"contribsys.com"}, regexp.MustCompile(`(?i)https?://[a-f0-9]{8}:[a-f0-9]{8}@(?:gems|enterprise)\.contribsys\.com`), nil},
	{"nuget-config-password", []string{"password"}, regexp.MustCompile(`(?i)<add key="(?:ClearText)?Password"\s*value="([^"]{8,})"\s*/>`), func(_, v string) bool { return labelledValueLooksSecret("password", v) }},
	{"curl-credentials", []string{"curl"}, regexp.MustCompile(`\bcurl\b[^\n]*?(?:\s-u\s*|\s--user[ =])["']?([^\s"':]{3,}:[^\s"']{3,})`), userPassword},
	{"notes-confirm-token", []string{"nct_"}, regexp.MustCompile(`\bnct_[A-Za-z0-9_\-]{20,}`), nil},
	{"bearer-header", []string{"authorization", "bearer"}, regexp.MustCompile(`(?i)\b(?:authorization:?\s*(?:bearer|basic|token)?|bearer)\s+([A-Za-z0-9_\-.=+/~]{16,})`), func(_, v string) bool { return tokenLooksSecret(v) }},
	{"labelled-secret", labelWords, labelled, labelledValueLooksSecret},
	{"labelled-secret", labelWords, labelledXML, labelledValueLooksSecret},
	{"kubernetes-secret", []string{"kind: secret"}, regexp.MustCompile(`(?s)kind:\s*Secret.*?\n\s*(?:data|stringData):\s*\n\s+[\w.\-]+:\s*([A-Za-z0-9+/=]{12,})`), func(_, v string) bool { return !isPlaceholder(v) }},
}

// tokenEnd ends a fixed-length token whose alphabet holds '-': \b there
// needs a word character last and so dropped the one token in 64 that
// ends in '-'. The token is the rule's group; tokenEnd only says no more
// of its alphabet follows.
const tokenEnd = `(?:[^A-Za-z0-9_\-]|$)`

// ruleContext: a rule whose format alone is too plain (a 00 prefix and
// forty characters) runs only where the vendor is named as a word, not
// inside another one ("rookTable" holds "okta").
var ruleContext = map[string]*regexp.Regexp{
	"okta-token": regexp.MustCompile(`(?i)(?:^|[^a-z])okta`),
}

// labelWords are what a label naming a secret holds somewhere in it, in
// any case: db_password, MYSQL_ROOT_PASSWORD, twilioToken, api-key.
var labelWords = []string{"token", "secret", "passw", "pwd", "passphrase", "pass", "key", "auth", "credential", "cred", "bearer", "session", "salt"}

const labelRE = `[A-Za-z0-9_.\-]*?(?i:token|secret|passw(?:or)?d|pwd|passphrase|pass|key|auth|credential|creds?|bearer|sessionid|salt)[A-Za-z0-9_.\-]*`

var (
	// labelled: a label, maybe quoted, a separator (= : := ::= => .=
	// ??= or a comma between quoted strings), then the value quoted or
	// bare, on the same line.
	labelled = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.\-])[$@]?["'\x60]?(` + labelRE + `)(?:["'\x60]?(?:[ \t]+(?:string|str|String)|[ \t]*:[ \t]*(?:string|String|str))?[ \t]*(?:=>|::?:?=|\.=|\?\??=|=|:)|["'\x60][ \t]*,)[ \t]*(?:"([^"\r\n]{1,400})"|'([^'\r\n]{1,400})'|\x60([^\x60\r\n]{1,400})\x60|([^\s"'\x60,;<>\\]{1,400}))`)
	// labelledXML: <dbPassword>value</dbPassword>, also across lines.
	labelledXML = regexp.MustCompile(`<(` + labelRE + `)>\s*([^\s<]{1,400})\s*</`)
)
var (
	dataURL   = regexp.MustCompile(`data:[a-zA-Z0-9.+\-/]+;base64,[A-Za-z0-9+/=]+`)
	plainURL  = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>"'\])]+`)
	candidate = regexp.MustCompile(`[A-Za-z0-9_\-+]{24,}={0,3}`)
	// encryptedValue: a value encrypted at rest (SOPS's ENC[…], an
	// Ansible Vault block) is ciphertext, safe to keep: random-looking
	// and not a secret.
	encryptedValue = regexp.MustCompile(`ENC\[[A-Z0-9_]+,data:[^\]]*\]|(?s)\$ANSIBLE_VAULT;[0-9.]+;[A-Z0-9]+[\r\n]+[0-9a-f\r\n ]+|(?s)-----BEGIN PGP MESSAGE-----.*?(?:-----END PGP MESSAGE-----|$)`)
	// publicBlock: armoured public material (PGP public keys,
	// certificates) is high-entropy and not secret.
	publicBlock = regexp.MustCompile(`(?s)-----BEGIN (?:PGP PUBLIC KEY BLOCK|CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY)-----.*?(?:-----END[^-]*-----|$)`)
	// placeholderRE: values that stand for a secret without being one.
	placeholderRE = regexp.MustCompile(`(?i)^(?:<[^>]*>|\[[^\]]*\]|\{[^}]*\}|%[^%]+%|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\(.*\)|(?:your|my|some)[_\-.]?[a-z_\-]*|changeme|change[_\-]?it|redacted|removed|hidden|secret|password|passwd|token|none|null|nil|true|false|undefined|required|optional|string|example\w*|placeholder\w*|dummy\w*|sample\w*|fake\w*|\.{3,}|…)$`)
	// templateRE: a reference or template anywhere in the value.
	templateRE = regexp.MustCompile(`\$\{[^}]*\}|\{\{[^}]*\}\}|\{%[^}]*%\}|<%[^>]*%>|\*{3,}|#{4,}|\.{3}|…|(?i:example)|(?i:placeholder)|(?i:your[_\-]?(?:api|secret|token|key|password))|(?i:insert[_\-])|(?i:redacted)|(?i:replace[_\-]?(?:me|with))`)
	// referenceRE: code that reads a secret from somewhere else
	// (os.environ.get, process.env.TOKEN, config.password, getToken()).
	referenceRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)+(?:\(.*\)?)?\]?$|^[A-Za-z_][A-Za-z0-9_.]*\(.*$`)
	// wordTail: a Slack-shaped placeholder ends in words (…TokenHere).
	wordTail = regexp.MustCompile(`(?i)here$|token$`)
)

// Scan returns the suspected secrets in text, in order of position; nil when
// there are none.
func Scan(text string) []Finding { return scan(text, 0, &budget{left: maxDerived}) }

// maxDepth bounds how many encodings deep a secret is looked for (a token
// base64-wrapped inside hex is depth 2).
const maxDepth = 2

// scan is Scan of a text found depth decodings or joins deep; b bounds
// what it may decode and join.
func scan(text string, depth int, b *budget) []Finding {
	if text == "" {
		return nil
	}
	if n, ok := normalize(text); ok {
		// Full-width letters and invisible joiners hide a token's shape:
		// scan the folded text, each finding placed on its line.
		return relocate(text, n, scan(n, depth, b))
	}
	lower := strings.ToLower(text)
	var out []Finding
	var quiet [][2]int // spans the entropy check skips
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
		if !containsAny(lower, r.keywords) {
			continue
		}
		if ctx := ruleContext[r.name]; ctx != nil && !ctx.MatchString(text) {
			continue
		}
		n := r.re.NumSubexp()
		isLabel := r.re == labelled || r.re == labelledXML
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			off := m[0]
			label, val := "", text[m[0]:m[1]]
			switch {
			case n >= 2:
				label = text[m[2]:m[3]]
				off = m[2]
				for g := 2; g <= n; g++ {
					if m[2*g] >= 0 {
						val = text[m[2*g]:m[2*g+1]]
						break
					}
				}
			case n == 1 && m[2] >= 0:
				val = text[m[2]:m[3]]
				off = m[2]
			}
			if isLabel && notSecretLabel.MatchString(label) {
				// The label says what the value is (a public key, a
				// CSRF token, an id), or the value is a vendor's
				// format its own rule judged a stand-in (xoxp-1234…):
				// the generic checks must not overrule that.
				quiet = append(quiet, [2]int{m[0], m[1]})
				continue
			}
			check := r.check
			if check == nil {
				check = notRepeated
			}
			if !check(label, val) {
				if isLabel {
					// The label's check read the value as no
					// secret (a reference, a name, a version):
					// the entropy check must not overrule it.
					quiet = append(quiet, [2]int{m[0], m[1]})
				}
				continue
			}
			add(r.name, off)
		}
	}
	// Secrets that hide from the rules: base64 and hex runs decoded,
	// base64 DER keys parsed, table cells and wrapped lines joined,
	// passwords stated in prose.
	if depth < maxDepth {
		// Ciphertext and armoured public blocks are left out: encrypted
		// or public, not secret.
		view := []byte(text)
		for _, re := range []*regexp.Regexp{publicBlock, encryptedValue} {
			for _, m := range re.FindAllIndex(view, -1) {
				for i := m[0]; i < m[1]; i++ {
					if view[i] != '\n' {
						view[i] = ' '
					}
				}
			}
		}
		quiet = append(quiet, hidden(string(view), depth, b, add)...)
	}
	// Entropy check on what is left once data URLs and URLs (whose
	// credentials the rules above already checked) are blanked out.
	masked := []byte(text)
	for _, re := range []*regexp.Regexp{dataURL, plainURL, publicBlock, encryptedValue} {
		for _, m := range re.FindAllIndex(masked, -1) {
			for i := m[0]; i < m[1]; i++ {
				masked[i] = ' '
			}
		}
	}
	if containsAny(lower, fixtureKeywords) {
		for _, m := range fixtureAssign.FindAllStringIndex(text, -1) {
			quiet = append(quiet, [2]int{m[0], m[1]})
		}
	}
	for _, sp := range quiet {
		for i := sp[0]; i < sp[1]; i++ {
			masked[i] = ' '
		}
	}
	for _, m := range candidate.FindAllIndex(masked, -1) {
		c := string(masked[m[0]:m[1]])
		truncated := strings.HasPrefix(text[m[1]:], "...") || strings.HasPrefix(text[m[1]:], "…")
		if assignedTo(text[m[1]:]) {
			continue // the name on the left of an assignment
		}
		// A candidate has no vendor's prefix to vouch for it, so any
		// run of four digits or five letters counting up drops it, even
		// where chance makes such a run likely.
		if len(c) <= 64 && runAround(masked, m[0], m[1]) <= maxRun && !truncated && highEntropy(c) && !isPlaceholder(c) && !countsUp(c, 4, 5) && !hasRun(c, 6) && !hexParts(c) && !encodedText(c) && !wordy(c) {
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

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// isPlaceholder reports values that stand for a secret: <your-key>,
// ${DB_PASSWORD}, {{ .token }}, xxxx, ****, EXAMPLE, changeme.
func isPlaceholder(v string) bool {
	return placeholderRE.MatchString(v) || templateRE.MatchString(v) || xFill(v)
}

// xFill reports a run of x or of X (xxxx, XXXXXXXX) too long to occur by
// chance in a random string of v's length and alphabet: a person's fill.
// A mixed-case run (xXxX) is never one, and a short run in a long value
// is chance: about one 1,600-character key body in 650 holds four x's
// in a row in some mix of case.
func xFill(v string) bool {
	a := float64(alphabet(v))
	need := improbableRun(len(v), 1/a, 1/a, 4)
	run := 0
	for i := 0; i < len(v); i++ {
		if (v[i] == 'x' || v[i] == 'X') && (run == 0 || v[i] == v[i-1]) {
			run++
		} else if v[i] == 'x' || v[i] == 'X' {
			run = 1
		} else {
			run = 0
		}
		if run >= need {
			return true
		}
	}
	return false
}

// alphabet estimates the size of the alphabet v was drawn from: ten
// digits, 26 letters per case (6 when at least half that case's letters
// are a-f: hex after a vendor's prefix such as shpat_), two for
// punctuation such as - and _.
func alphabet(v string) int {
	var digits, other bool
	var lower, lowerHex, upper, upperHex int
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z':
			lower++
			if c <= 'f' {
				lowerHex++
			}
		case c >= 'A' && c <= 'Z':
			upper++
			if c <= 'F' {
				upperHex++
			}
		default:
			other = true
		}
	}
	size := func(n, hex int) int {
		switch {
		case n == 0:
			return 0
		case hex*2 >= n:
			return 6
		}
		return 26
	}
	a := size(lower, lowerHex) + size(upper, upperHex)
	if digits {
		a += 10
	}
	if other {
		a += 2
	}
	return max(a, 1)
}

// improbableRun is the shortest run, from least up, that a random string
// of n characters holds less than once in a million, when a character
// opens the run with probability start and continues it with next.
func improbableRun(n int, start, next float64, least int) int {
	k := least
	for float64(n)*start*math.Pow(next, float64(k-1)) >= 1e-6 && k < 64 {
		k++
	}
	return k
}

// hasSequence reports a run of letters or digits in alphabet order
// (abcde, 1234), typed by a person standing in for a secret: at least five
// letters or four digits, and longer where v's length and alphabet make
// the run likely by chance. About one 64-character hex token in 150 holds
// four digits counting up; there it takes eight to count.
func hasSequence(v string) bool {
	a := float64(alphabet(v))
	return countsUp(v, improbableRun(len(v), 10/a, 1/a, 4), improbableRun(len(v), min(52, a)/a, 1/a, 5))
}

// countsUp reports a run of needDigits digits or needLetters letters in
// alphabet order.
func countsUp(v string, needDigits, needLetters int) bool {
	run := 1
	for i := 1; i < len(v); i++ {
		a, b := v[i-1], v[i]
		letters := (a >= 'a' && b <= 'z' && a <= 'z' && b >= 'a') || (a >= 'A' && a <= 'Z' && b >= 'A' && b <= 'Z')
		digits := a >= '0' && a <= '9' && b >= '0' && b <= '9'
		if (letters || digits) && b == a+1 {
			run++
			if (letters && run >= needLetters) || (digits && run >= needDigits) {
				return true
			}
			continue
		}
		run = 1
	}
	return false
}

// userPassword judges user:password from a command line: the password
// half must look like one, not a variable or a word.
func userPassword(_, v string) bool {
	_, pass, _ := strings.Cut(v, ":")
	if strings.Contains(v, "$") || isPlaceholder(v) || isPlaceholder(pass) || strings.EqualFold(pass, "pass") {
		return false
	}
	return labelledValueLooksSecret("password", pass)
}

// notRepeated drops a format's match whose random part is one character
// over and over (ghp_xxxx…, glc_1111…): the documentation's stand-in.
// A run of six is the least that counts, more where v's alphabet is small:
// about one 32-character hex token in 40,000 holds a character six times
// in a row.
func notRepeated(_, v string) bool {
	a := float64(alphabet(v))
	return !isPlaceholder(v) && !mostlyOneChar(v) && !hasSequence(v) && !hasRun(v, improbableRun(len(v), 1, 1/a, 6))
}

// hasRun reports n or more of one character in a row (5555555, AAAAA):
// typed to fill a format, next to never in a random token.
func hasRun(v string, n int) bool {
	run := 1
	for i := 1; i < len(v); i++ {
		if v[i] != v[i-1] {
			run = 1
			continue
		}
		if run++; run >= n {
			return true
		}
	}
	return false
}

// mostlyOneChar reports whether one character makes up half of s or more
// past its first 8 (a prefix).
func mostlyOneChar(s string) bool {
	if len(s) > 12 {
		s = s[8:]
	}
	var counts [256]int
	top := 0
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
		top = max(top, counts[s[i]])
	}
	return len(s) > 0 && top*3 >= len(s)*2
}

// afterColon judges a bot:secret token by its secret: the numeric bot id
// before the colon is public and may count up (123456789).
func afterColon(_, v string) bool {
	_, s, _ := strings.Cut(v, ":")
	return notRepeated("", s)
}

// always keeps every match: the format alone is proof enough.
func always(_, _ string) bool { return true }

// slackLike drops Slack-shaped placeholders (xoxb-xxxx, xoxb-12345-abcd,
// xoxp-1234567890, xoxo in a file name): the random part must be long and
// mixed.
func slackLike(_, v string) bool {
	parts := strings.Split(v, "-")
	last := parts[len(parts)-1]
	// A sequence counts only in the random part: team and user ids are
	// numbers that may hold 1234 (one generated token in ~150 did).
	if isPlaceholder(v) || mostlyOneChar(v) || hasSequence(last) {
		return false
	}
	if len(v) < 24 || len(last) < 6 {
		return false
	}
	// The random part is the last segment; the numbers before it (team
	// and user ids) may repeat a digit.
	return (entropy(v) >= 3.2 || (len(last) >= 12 && entropy(last) >= 3.2)) && !wordTail.MatchString(last) && !wordyTail(last)
}

// wordyTail reports a value ending in twelve or more letters that read as
// words (…notarealslacktoken). Twelve letters alone are no sign: one random
// 24-character alphanumeric tail in eight ends so.
func wordyTail(v string) bool {
	i := len(v)
	for i > 0 && (v[i-1]|0x20 >= 'a' && v[i-1]|0x20 <= 'z') {
		i--
	}
	return len(v)-i >= 12 && wordy(v[i:])
}

// mixedToken drops camel-case identifiers and placeholders that happen to
// start like a token (hf_requiredCharacteristicTypes…): the rest must look
// random.
func mixedToken(_, v string) bool {
	if i := strings.IndexAny(v, "_-."); i >= 0 && i < 8 {
		v = v[i+1:]
	}
	return tokenLooksSecret(v)
}

// oktaLike keeps 00-prefixed tokens that look random.
func oktaLike(_, v string) bool { return tokenLooksSecret(v[2:]) }

// tokenLooksSecret reports whether an unlabelled token-shaped string looks
// random: not a placeholder, not one repeated character, not words.
func tokenLooksSecret(v string) bool {
	if isPlaceholder(v) || mostlyOneChar(v) || len(v) < 16 {
		return false
	}
	c := classify(v)
	if c.digit == 0 && c.switches*20 < len(v)*7 {
		return false // words: camelCase or a long run of letters
	}
	return entropy(v) >= 3.3
}

type classes struct {
	lower, upper, digit, other, switches int
}

func classify(s string) classes {
	var c classes
	prev := 0
	for i := 0; i < len(s); i++ {
		r := s[i]
		k := 0
		switch {
		case r >= 'a' && r <= 'z':
			c.lower++
			k = 1
		case r >= 'A' && r <= 'Z':
			c.upper++
			k = 2
		case r >= '0' && r <= '9':
			c.digit++
			k = 3
		default:
			c.other++
			k = 4
		}
		if prev != 0 && k != prev {
			c.switches++
		}
		prev = k
	}
	return c
}

// notSecretLabel: labels that hold a secret word but name something else —
// an id, a name, a file, a public or database key, a CSRF token, an author.
var notSecretLabel = regexp.MustCompile(`(?i)(?:^|[_.\-]|[a-z])(?:id|ids|name|names|url|uri|urls|file|path|dir|version|type|hash|event|chars?|length|len|size|count|prefix|suffix|format|mode|policy|enabled|ttl|timeout|header)$|public|pubkey|pub_key|foreign|primary|partition|sort_?key|schema|keyword|keyboard|keying|monkey|keystore|keytab|keyframe|keycode|keyvault|key_vault|csrf|xsrf|authenticity|author(?:s|ity)?$|authentication-|authoriz|` + fixtureWords)

// fixtureWords name a value written to be refused or not to match: the
// negative examples of a test (nonMatchingToken, wrongKey, fakeSecret,
// invalid_password, mockToken, dummyKey).
// fixtureKeywords prefilter fixtureAssign.
var fixtureKeywords = []string{"match", "wrong", "invalid", "fake", "dummy", "bogus", "mock"}

const fixtureWords = `(?:non|not|no|un)[_\-]?match|mismatch|wrong|invalid|fake|dummy|bogus|mock`

// fixtureAssign: any name holding a fixture word, assigned a value on the
// same line. The entropy check skips its value: a random-looking string
// named a wrong or fake one is a test's negative example.
var fixtureAssign = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_.\-])[$@]?["'\x60]?[A-Za-z0-9_.\-]*(?:` + fixtureWords + `)[A-Za-z0-9_.\-]*["'\x60]?[ \t]*(?:=>|::?=|=|:)[ \t]*["'\x60]?[^\s"'\x60,;]+`)

// notSecretValue: values shaped like something else — an e-mail address, a
// URL, a file path, a version.
var notSecretValue = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[a-z]{2,}$|://|^[\w.\-]*/[\w./\-]*\.[A-Za-z]{1,5}$|^v?\d+(?:\.\d+){1,3}(?:[\-+][\w.]+)?$|^[A-Za-z][\w.:\-]*[\-_:@]v?\d+(?:\.\d+){1,3}$`)

var passwordLabel = regexp.MustCompile(`(?i)passw|pwd|passphrase|secret|pass$|_pass_|credential`)

// labelledValueLooksSecret judges the value of a labelled assignment
// (db_password = "…", twilioToken: …): references, templates and
// placeholders are not secrets; a password-like label needs a value that
// mixes character kinds; any other label a value random for its charset —
// decimal, hex, lower-case alphanumeric or base64-like — by its entropy.
func labelledValueLooksSecret(label, v string) bool {
	if isPlaceholder(v) || strings.HasPrefix(v, "ENC[") || strings.HasPrefix(v, "$ANSIBLE_VAULT") {
		return false // a placeholder, or ciphertext (encryptedValue)
	}
	v = strings.TrimRight(strings.TrimSpace(v), ";,.)")
	if len(v) < 6 || isPlaceholder(v) || isReference(v) || mostlyOneChar(v) || hasLetterRun(v, 7) {
		return false
	}
	if label != "" && notSecretLabel.MatchString(label) {
		return false
	}
	if notSecretValue.MatchString(v) {
		return false
	}
	if strings.ContainsAny(v, " \t") {
		// Prose after a label ("password: see the vault") is not a
		// value.
		return false
	}
	c := classify(v)
	h := entropy(v)
	if passwordLabel.MatchString(label) {
		return len(v) >= 8
	}
	if nameConstant(label, v) {
		return false
	}
	if wordy(v) {
		return false
	}
	n := len(v)
	switch {
	case c.digit == n: // decimal
		return n >= 16 && h >= 2.8
	case isHex(v):
		return n >= 16 && h >= 3
	case c.upper == 0 && c.other == 0: // lower-case alphanumeric
		return n >= 12 && c.digit >= 2 && h >= 3.2
	case c.lower == 0 && c.other == 0: // upper-case alphanumeric
		return n >= 12 && c.digit >= 2 && h >= 3.2
	case c.digit == 0 && c.other == 0: // letters only: random, or camelCase words
		return n >= 16 && c.switches*2 >= n && h >= 3.5
	default: // base64-like and mixed
		return n >= 10 && h >= 3.0 && (c.digit > 0 || c.switches*4 >= n)
	}
}

// nameConstant reports a value that spells its own label (or the label
// spells the value), case and separators aside: an enum-like constant
// (SN_id_Gost_KeyMeshing = "id-Gost-KeyMeshing", KeyPair = X25519.KeyPair),
// not a secret.
func nameConstant(label, v string) bool {
	l, w := alnumLower(label), alnumLower(v)
	if len(l) > len(w) {
		l, w = w, l
	}
	return len(l) >= 6 && strings.Contains(w, l)
}

// alnumLower is s's letters and digits, lower-cased.
func alnumLower(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	return string(b)
}

// maxRun bounds the run of token characters around an entropy candidate:
// past it the candidate is a piece of a longer blob (a signed URL's
// signature split at '~', encoded data split at '.'), not a key, which the
// vendor rules judge whole.
const maxRun = 100

// runAround is the length of the run of token characters (base64, URL-safe
// base64 and '~' '.') holding b[i:j].
func runAround(b []byte, i, j int) int {
	tok := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+/=_-~.", c) >= 0
	}
	for i > 0 && tok(b[i-1]) {
		i--
	}
	for j < len(b) && tok(b[j]) {
		j++
	}
	return j - i
}

// assignedTo reports whether rest (the text after a candidate) starts with
// an assignment operator: the candidate is the name assigned to, never the
// secret (SN_id_Gost28147_89_None_KeyMeshing = "…").
func assignedTo(rest string) bool {
	rest = strings.TrimLeft(rest, " \t\"'\x60")
	for _, op := range []string{":=", "=>", "+=", ".="} {
		if strings.HasPrefix(rest, op) {
			return true
		}
	}
	return strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
}

// hexParts reports a candidate whose long parts (split at _ and -) are all
// hexadecimal, in any mix of case: a digest, a checksummed address or
// id with a prefix. Hex is judged by its own rules (a vendor's format), not
// by the mixed-charset entropy check, whose alphabet it is not.
func hexParts(c string) bool {
	n := 0
	for _, p := range strings.FieldsFunc(c, func(r rune) bool { return r == '_' || r == '-' }) {
		if len(p) < 8 {
			continue
		}
		if !isHex(p) {
			return false
		}
		n++
	}
	return n > 0
}

// encodedText reports a base64 candidate that decodes to printable text
// (bedrock.amazonaws.com, a JSON or msgpack header): encoded words, not
// random key material, which decodes to bytes of every value.
func encodedText(c string) bool {
	for _, part := range append([]string{c}, strings.FieldsFunc(c, func(r rune) bool { return r == '_' || r == '-' })...) {
		part = strings.TrimRight(part, "=")
		if len(part)%4 == 1 { // not base64 whole: a cut-off tail
			part = part[:len(part)-1]
		}
		if len(part) < 16 {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			b, err := enc.DecodeString(part)
			if err != nil {
				continue
			}
			printable := 0
			for _, x := range b {
				if x >= 0x20 && x < 0x7f {
					printable++
				}
			}
			if printable*4 >= len(b)*3 {
				return true
			}
		}
	}
	return false
}

// isReference reports code that names where a secret lives rather than
// the secret (os.environ.get, process.env.TOKEN, Ed25519.KeyPair): dotted
// names or a call, mostly letters.
func isReference(v string) bool {
	return referenceRE.MatchString(v) && (classify(v).digit*4 < len(v) || wordy(v))
}

// wordy reports a value made mostly of words (SalesResults-1.2,
// id-Gost-None-KeyMeshing): runs of four or more letters, split at
// camel-case humps, a third of them vowels, cover three fifths of it.
func wordy(v string) bool {
	inWords := 0
	flush := func(run string) {
		if len(run) < 4 {
			return
		}
		vowels := 0
		for i := 0; i < len(run); i++ {
			switch run[i] | 0x20 {
			case 'a', 'e', 'i', 'o', 'u':
				vowels++
			}
		}
		if vowels*3 >= len(run) {
			inWords += len(run)
		}
	}
	start := -1
	for i := 0; i <= len(v); i++ {
		letter := i < len(v) && (v[i]|0x20 >= 'a' && v[i]|0x20 <= 'z')
		hump := letter && start >= 0 && v[i] >= 'A' && v[i] <= 'Z' && v[i-1] >= 'a' && v[i-1] <= 'z'
		if (!letter || hump) && start >= 0 {
			flush(v[start:i])
			start = -1
		}
		if letter && start < 0 {
			start = i
		}
	}
	return inWords*5 >= len(v)*3
}

// hasLetterRun reports n or more letters in alphabet order (abcdef).
func hasLetterRun(v string, n int) bool {
	run := 1
	for i := 1; i < len(v); i++ {
		a, b := v[i-1]|0x20, v[i]|0x20
		if a >= 'a' && b <= 'z' && b == a+1 {
			run++
			if run >= n {
				return true
			}
			continue
		}
		run = 1
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// highEntropy reports whether s looks like a random credential: at least 24
// characters mixing upper case, lower case and digits (or both cases in
// plenty, without digits), with frequent switches between those classes
// and a high Shannon entropy. Hex strings (commit SHAs, colours), ULIDs
// and UUIDs lack lower or upper case and so never pass; identifiers and
// prose have long runs of one class and so never pass.
func highEntropy(s string) bool {
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
	// Digits are no must: one random 40-character alphanumeric string
	// in 130 holds fewer than two. Without them both cases must be
	// plentiful, which camel-case names are not.
	n := len(s)
	if lower < 2 || upper < 2 || isHex(s) || (digit < 2 && (lower*4 < n || upper*4 < n)) {
		return false
	}
	if float64(switches) < float64(len(s))/3.5 {
		return false
	}
	return entropy(s) >= 3.8
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
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

// relocate moves findings in folded, the normalized form of text, to
// text: folding keeps lines, and a column is counted in characters.
func relocate(text, folded string, found []Finding) []Finding {
	lines := strings.Split(text, "\n")
	flines := strings.Split(folded, "\n")
	for i, f := range found {
		if f.Line > len(lines) || f.Line > len(flines) {
			continue
		}
		fl, l := flines[f.Line-1], lines[f.Line-1]
		runes := utf8.RuneCountInString(fl[:min(f.Column-1, len(fl))])
		col := 0
		for runes > 0 && col < len(l) {
			_, w := utf8.DecodeRuneInString(l[col:])
			col += w
			runes--
		}
		found[i].Column = col + 1
	}
	return found
}

func position(text string, off int) (line, col int) {
	line = 1 + strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return line, off - start + 1
}
