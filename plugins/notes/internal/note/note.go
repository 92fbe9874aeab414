// Package note is the brain's note format: Markdown with a YAML frontmatter
// block, the fields the brain owns, note types and the folders they live in,
// validity at a date, and file-name slugs.
package note

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"gopkg.in/yaml.v3"
)

// DateLayout is the layout of every date field.
const DateLayout = "2006-01-02"

// Frontmatter holds a note's YAML fields in a fixed order; unknown fields
// are kept in Extra.
type Frontmatter struct {
	ID           string              `yaml:"id,omitempty" json:"id,omitempty"`
	Type         string              `yaml:"type,omitempty" json:"type,omitempty"`
	Title        string              `yaml:"title,omitempty" json:"title,omitempty"`
	Scope        string              `yaml:"scope,omitempty" json:"scope,omitempty"`
	Trust        string              `yaml:"trust,omitempty" json:"trust,omitempty"`
	Origin       string              `yaml:"origin,omitempty" json:"origin,omitempty"`
	EditedBy     string              `yaml:"edited_by,omitempty" json:"edited_by,omitempty"`
	Created      string              `yaml:"created,omitempty" json:"created,omitempty"`
	Updated      string              `yaml:"updated,omitempty" json:"updated,omitempty"`
	Subject      string              `yaml:"subject,omitempty" json:"subject,omitempty"`
	Predicate    string              `yaml:"predicate,omitempty" json:"predicate,omitempty"`
	Object       string              `yaml:"object,omitempty" json:"object,omitempty"`
	ValidFrom    string              `yaml:"valid_from,omitempty" json:"valid_from,omitempty"`
	ValidUntil   string              `yaml:"valid_until,omitempty" json:"valid_until,omitempty"`
	ExpiresAt    string              `yaml:"expires_at,omitempty" json:"expires_at,omitempty"`
	Supersedes   []string            `yaml:"supersedes,omitempty" json:"supersedes,omitempty"`
	SupersededBy []string            `yaml:"superseded_by,omitempty" json:"superseded_by,omitempty"`
	Sources      []string            `yaml:"sources,omitempty" json:"sources,omitempty"`
	Relations    map[string][]string `yaml:"relations,omitempty" json:"relations,omitempty"`
	Aliases      []string            `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	Tags         []string            `yaml:"tags,omitempty" json:"tags,omitempty"`
	Confirmed    string              `yaml:"confirmed,omitempty" json:"confirmed,omitempty"`
	ApprovedBy   string              `yaml:"approved_by,omitempty" json:"approved_by,omitempty"`
	ApprovedAt   string              `yaml:"approved_at,omitempty" json:"approved_at,omitempty"`
	ForgetReason string              `yaml:"forget_reason,omitempty" json:"forget_reason,omitempty"`
	ArchivedFrom string              `yaml:"archived_from,omitempty" json:"archived_from,omitempty"`
	ArchivedAt   string              `yaml:"archived_at,omitempty" json:"archived_at,omitempty"`
	Extra        map[string]any      `yaml:",inline" json:"-"`
}

// Owned lists the fields only the brain sets; an agent's values are ignored
// with a warning.
var Owned = []string{"id", "created", "updated", "origin", "edited_by", "approved_by", "approved_at"}

// Note is one parsed file.
type Note struct {
	// Path is relative to the brain, with forward slashes.
	Path string
	// FM is the frontmatter; zero when there is none.
	FM Frontmatter
	// HasFM reports whether the file has a frontmatter block.
	HasFM bool
	// FMError is set when the block is present but unreadable.
	FMError string
	// Body is the Markdown after the frontmatter.
	Body string
}

// Parse splits raw file bytes into frontmatter and body. A broken block is
// reported in FMError, not as an error, so the note can still be read.
func Parse(path string, raw []byte) *Note {
	n := &Note{Path: path}
	s := string(raw)
	s = strings.TrimPrefix(s, "\ufeff")
	block, body, ok := SplitFrontmatter(s)
	if !ok {
		n.Body = s
		return n
	}
	n.HasFM = true
	n.Body = body
	if err := yaml.Unmarshal([]byte(block), &n.FM); err != nil {
		n.FMError = err.Error()
		n.FM = Frontmatter{}
	}
	return n
}

// SplitFrontmatter returns the YAML between a leading "---" line and the next
// "---" line, and the rest.
func SplitFrontmatter(s string) (block, body string, ok bool) {
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return "", s, false
	}
	rest := s[strings.IndexByte(s, '\n')+1:]
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, "\r ") == "---" {
			block = rest[:off]
			if nl < 0 {
				return block, "", true
			}
			return block, strings.TrimPrefix(rest[off+nl+1:], "\n"), true
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return "", s, false
}

// Render writes the note back: the frontmatter block (when the note has one
// or any field is set) and the body, ending with a newline.
func (n *Note) Render() []byte {
	var b bytes.Buffer
	if n.HasFM || !n.FM.IsZero() {
		b.WriteString("---\n")
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&n.FM); err != nil {
			// Frontmatter holds only strings, lists and maps of them.
			panic(fmt.Sprintf("note: encode frontmatter: %v", err))
		}
		_ = enc.Close()
		b.WriteString("---\n\n")
	}
	body := strings.TrimLeft(n.Body, "\n")
	b.WriteString(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// IsZero reports whether no field is set.
func (f Frontmatter) IsZero() bool {
	return f.ID == "" && f.Type == "" && f.Title == "" && len(f.Extra) == 0 && f.Scope == "" && f.Origin == ""
}

// Title returns the note's title: the frontmatter's, else the file name.
func (n *Note) Title() string {
	if n.FM.Title != "" {
		return n.FM.Title
	}
	return Stem(n.Path)
}

// Stem is the file name without folder and extension.
func Stem(path string) string {
	i := strings.LastIndexByte(path, '/')
	s := path[i+1:]
	return strings.TrimSuffix(s, ".md")
}

// Scope returns the note's scope, "global" when unset.
func (n *Note) Scope() string {
	if n.FM.Scope == "" {
		return "global"
	}
	return n.FM.Scope
}

// Origin returns the note's origin; a note without one was written by hand.
func (n *Note) Origin() string {
	if n.FM.Origin == "" {
		return "human"
	}
	return n.FM.Origin
}

// Validity values.
const (
	Current      = "current"
	Expired      = "expired"
	NotYetValid  = "not_yet_valid"
	archivedPath = "memory/_archive/"
)

// Validity says whether fields valid from/until and expires at hold at asOf
// (YYYY-MM-DD). valid_until and expires_at are exclusive: a fact superseded
// today is expired today.
func Validity(validFrom, validUntil, expiresAt, asOf string) string {
	if validFrom != "" && asOf < validFrom {
		return NotYetValid
	}
	if validUntil != "" && asOf >= validUntil {
		return Expired
	}
	if expiresAt != "" && asOf >= expiresAt {
		return Expired
	}
	return Current
}

// Archived reports whether path is under memory/_archive/.
func Archived(path string) bool { return strings.HasPrefix(path, archivedPath) }

// ArchiveDir is where forget moves notes.
const ArchiveDir = "memory/_archive"

// Folders maps each note type to its folder.
var Folders = map[string]string{
	"rule":       "memory/rules",
	"preference": "memory/preferences",
	"gotcha":     "memory/gotchas",
	"fact":       "memory/facts",
	"decision":   "memory/decisions",
	"procedure":  "memory/procedures",
	"handoff":    "memory/handoffs",
	"episode":    "memory/episodes",
	"entity":     "wiki/entities",
	"concept":    "wiki/concepts",
	"source":     "wiki/sources",
	"synthesis":  "wiki/syntheses",
}

// Types lists the note types, sorted.
func Types() []string {
	out := make([]string, 0, len(Folders))
	for t := range Folders {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ValidDate reports whether s is empty or a YYYY-MM-DD date.
func ValidDate(s string) bool {
	if s == "" {
		return true
	}
	_, err := time.Parse(DateLayout, s)
	return err == nil
}

// Validate checks the fields the schema constrains and returns one message
// per problem.
func (f *Frontmatter) Validate() []string {
	var out []string
	if f.Type != "" {
		if _, ok := Folders[f.Type]; !ok {
			out = append(out, fmt.Sprintf("type %q is not one of %s", f.Type, strings.Join(Types(), ", ")))
		}
	}
	switch f.Trust {
	case "", "low", "medium", "high":
	default:
		out = append(out, fmt.Sprintf("trust %q is not low, medium or high", f.Trust))
	}
	if f.Scope != "" && f.Scope != "global" && !(strings.HasPrefix(f.Scope, "project:") && len(f.Scope) > len("project:")) {
		out = append(out, fmt.Sprintf("scope %q is not global or project:<name>", f.Scope))
	}
	for name, v := range map[string]string{"valid_from": f.ValidFrom, "valid_until": f.ValidUntil, "expires_at": f.ExpiresAt} {
		if !ValidDate(v) {
			out = append(out, fmt.Sprintf("%s %q is not a YYYY-MM-DD date", name, v))
		}
	}
	if f.Type == "fact" && (f.Subject == "" || f.Predicate == "" || f.Object == "") {
		out = append(out, "a fact needs subject, predicate and object")
	}
	sort.Strings(out)
	return out
}

// Slug makes a file-name-safe lowercase slug of s, at most max bytes:
// accents on Latin letters are dropped ("português" → "portugues"), other
// scripts are kept as written.
func Slug(s string, max int) string {
	s = norm.NFD.String(strings.ToLower(s))
	var b strings.Builder
	dash := false
	var base rune
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			if base >= 128 && b.Len() > 0 {
				b.WriteRune(r)
			}
			continue
		}
		base = r
		if b.Len() >= max {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(norm.NFC.String(b.String()), "-")
	if len(out) > max {
		out = strings.TrimRight(strings.ToValidUTF8(out[:max], ""), "-")
	}
	if out == "" {
		out = "note"
	}
	return out
}

// Fold lowercases s and strips diacritics, for comparisons.
func Fold(s string) string {
	s = norm.NFD.String(strings.ToLower(s))
	var b strings.Builder
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
