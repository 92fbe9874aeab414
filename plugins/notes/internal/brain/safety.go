package brain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/toolhost/toolhost/plugins/notes/internal/secrets"
)

var conflictCopy = regexp.MustCompile(`\.conflict-[^/]*\.md$`)

// controlFiles are files whose text steers agents; writing them needs the
// user's confirmation in any folder.
var controlFiles = map[string]bool{
	"agents.md": true, "claude.md": true, "gemini.md": true, "log.md": true, "readme.md": true,
	".cursorrules": true, ".windsurfrules": true, "copilot-instructions.md": true, "codex.md": true,
	".clinerules": true, "conventions.md": true,
	// Local and override variants agents read with the same authority.
	"claude.local.md": true, "agents.override.md": true, "gemini.local.md": true,
}

// configFiles are the brain's own settings files, writable only with
// confirmation and only to a valid result.
var configFiles = map[string]bool{ConfigFile: true, ".gitignore": true, ".gitattributes": true}

// cleanPath checks a path an agent gave and returns it relative to the
// brain with forward slashes. It refuses anything leaving the brain, inside
// .git or the local state, through a symlink (unsafe_path), and the derived
// catalogue and sync conflict copies (invalid_path).
func (b *Brain) cleanPath(p string) (string, error) { return b.checkPath(p, true) }

// checkPath is cleanPath; with write false the catalogue and conflict
// copies may be named (they can be read, never written).
func (b *Brain) checkPath(p string, write bool) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fail(CodeInvalidArgument, "Give a path relative to the brain, like wiki/concepts/Idempotency.md.", "path is empty")
	}
	for _, r := range p {
		if r == 0 || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fail(CodeInvalidArgument, "Remove control and invisible characters from the path.", "path %q has a control or invisible character", p)
		}
	}
	if len(p) > 1024 {
		return "", fail(CodeInvalidArgument, "Use a shorter path.", "path is longer than 1024 bytes")
	}
	unsafe := func(why string) error {
		return fail(CodeUnsafePath, "Give a path inside the brain, relative to its root, like memory/gotchas/x.md; never absolute, never with '..', never inside .git or .notes.",
			"%s: %s", p, why)
	}
	s := strings.ReplaceAll(p, "\\", "/")
	if strings.HasPrefix(s, "/") || filepath.IsAbs(p) || (len(s) > 1 && s[1] == ':') || strings.HasPrefix(s, "~") {
		return "", unsafe("an absolute path leaves the brain")
	}
	var parts []string
	for _, seg := range strings.Split(s, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", unsafe("'..' leaves the brain")
		}
		if strings.EqualFold(seg, ".git") {
			return "", unsafe("the .git folder belongs to git")
		}
		if len(seg) > 255 {
			return "", fail(CodeInvalidArgument, "Use shorter names.", "a path segment is longer than 255 bytes")
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return "", unsafe("the path names the brain itself")
	}
	if strings.EqualFold(parts[0], StateDir) {
		return "", unsafe("the .notes folder holds the index, the lock and the confirmation key")
	}
	rel := strings.Join(parts, "/")
	// No component may be a symlink: following one could leave the brain.
	cur := b.Root
	for _, seg := range parts {
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("brain: check %s: %w", rel, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", unsafe("it goes through a symbolic link")
		}
	}
	if !write {
		return rel, nil
	}
	if isDerived(rel) {
		return "", fail(CodeInvalidPath, "index.md (the catalogue) and log.md (the journal) are derived; write the note itself instead.", "%s is derived from the notes and is never written directly", rel)
	}
	if conflictCopy.MatchString(rel) {
		return "", fail(CodeInvalidPath, "Edit the original note; only sync creates or resolves conflict copies.",
			"%s has the shape of a sync conflict copy (note.conflict-<machine>-<date>.md); an agent neither creates nor edits one", rel)
	}
	return rel, nil
}

// notePath is cleanPath plus the rule that notes end in .md (the brain's
// config files excepted).
func (b *Brain) notePath(p string) (string, error) {
	rel, err := b.cleanPath(p)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(rel, ".md") && !configFiles[rel] {
		return "", fail(CodeInvalidPath, "Note paths end in .md.", "%s is not a Markdown note (.md)", rel)
	}
	return rel, nil
}

func isControl(rel string) bool {
	base := strings.ToLower(rel[strings.LastIndexByte(rel, '/')+1:])
	return controlFiles[base] || configFiles[rel]
}

// secretHit is a finding with the field it was in.
type secretHit struct {
	Field  string `json:"field"`
	Rule   string `json:"rule"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// scanFields runs the secret scanner on every field; a hit is
// secret_detected and nothing is written.
func scanFields(fields map[string]string) error {
	var hits []secretHit
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, f := range secrets.Scan(fields[k]) {
			hits = append(hits, secretHit{Field: k, Rule: f.Rule, Line: f.Line, Column: f.Column})
		}
	}
	if len(hits) == 0 {
		return nil
	}
	e := fail(CodeSecretDetected, "Remove the credential (keep a reference to where it is stored, e.g. 'in the team vault') and write again. Never store passwords, tokens or keys in notes.",
		"possible secret in %s (%s); nothing was written", hits[0].Field, hits[0].Rule)
	e.Details = map[string]any{"secrets": hits}
	return e
}

// loadKey reads the machine's confirmation key, creating it on first use.
// It lives in .notes/, which git ignores.
func loadKey(path string) ([]byte, error) {
	if raw, err := os.ReadFile(path); err == nil && len(raw) >= 32 {
		return raw, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("brain: make confirmation key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("brain: make confirmation key: %w", err)
	}
	if err := os.WriteFile(path, key, 0o600); err != nil {
		return nil, fmt.Errorf("brain: write confirmation key: %w", err)
	}
	return key, nil
}

// TokenTTL is how long a confirmation token stays valid.
const TokenTTL = 5 * time.Minute

const tokenPrefix = "nct_"

// binding is what a confirmation token is bound to.
type binding struct {
	Action  string // the action name
	Args    string // digest of the call's args (what will be written)
	Target  string // digest of the target's current content
	Session string
}

func (b *Brain) mac(bd binding, exp int64) []byte {
	m := hmac.New(sha256.New, b.key)
	fmt.Fprintf(m, "%s\x00%s\x00%s\x00%s\x00%d", bd.Action, bd.Args, bd.Target, bd.Session, exp)
	return m.Sum(nil)[:24]
}

// issueToken returns a token for bd and its expiry.
func (b *Brain) issueToken(bd binding) (string, time.Time) {
	exp := b.Now().Add(TokenTTL).Truncate(time.Second)
	buf := make([]byte, 8, 32)
	binary.BigEndian.PutUint64(buf, uint64(exp.Unix()))
	buf = append(buf, b.mac(bd, exp.Unix())...)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(buf), exp
}

// checkToken verifies tok against bd: invalid_args when it is
// malformed, expired, forged, or for another action, content, target state
// or session.
func (b *Brain) checkToken(tok string, bd binding) error {
	bad := func(why string) error {
		return fail(CodeInvalidArgument, "Call again without confirm_token to get a fresh summary and token, show it to the user, and repeat with the same arguments only if they say yes.",
			"confirm_token refused: %s", why)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, tokenPrefix))
	if !strings.HasPrefix(tok, tokenPrefix) || err != nil || len(raw) != 32 {
		return bad("it is not a token this brain issued")
	}
	exp := int64(binary.BigEndian.Uint64(raw[:8]))
	if !hmac.Equal(raw[8:], b.mac(bd, exp)) {
		return bad("it was issued for another action, other content, another session, or before the target changed")
	}
	if b.Now().Unix() >= exp {
		return bad("it expired")
	}
	return nil
}

// digest is a short hex SHA-256.
func digest(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:16])
}

// argsDigest digests a call's args, without the token itself, in canonical
// JSON (sorted keys), so the same arguments give the same digest.
func argsDigest(raw json.RawMessage) string {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return digest(raw)
	}
	delete(m, "confirm-token")
	delete(m, "session-handle")
	out, _ := json.Marshal(m)
	return digest(out)
}
