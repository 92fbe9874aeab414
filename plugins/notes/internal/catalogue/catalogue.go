// Package catalogue is the upkeep of the brain's index.md: the catalogue
// of its notes by type and scope, a line per note by title, kept as sorted
// subsections so a write changes only its own lines, and kept between
// writes while the index is at HEAD (Cache).
package catalogue

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// Header starts index.md.
const Header = "# Index\n\nThe catalogue of this brain's notes by type and scope. Derived: every write of the notes tool\nrewrites it in its own commit; edit the notes, never this file.\n"

// Entry is one note's line of the catalogue.
type Entry struct {
	Path, Type, Title, Scope string
}

// Render renders index.md from entries: a section per type (untyped
// files last), a subsection per scope, a line per note by title.
func Render(entries []Entry) []byte {
	return New(entries).Render()
}

// key names one subsection of the catalogue: a type ("" for untyped)
// and a scope.
type key struct{ typ, scope string }

// line is one note's line of a subsection, with what it sorts by.
type line struct {
	lower, path, text string
}

func compareLines(a, b line) int {
	if c := strings.Compare(a.lower, b.lower); c != 0 {
		return c
	}
	return strings.Compare(a.path, b.path)
}

// Set is the catalogue as sorted subsections, so a write changes only
// its own lines (Put, Remove) and renders without sorting the brain.
type Set struct {
	byPath   map[string]Entry
	sections map[key][]line
}

// New builds the catalogue of entries.
func New(entries []Entry) *Set {
	s := &Set{byPath: make(map[string]Entry, len(entries)), sections: map[key][]line{}}
	for _, e := range entries {
		if _, dup := s.byPath[e.Path]; dup {
			s.Remove(e.Path)
		}
		s.byPath[e.Path] = e
		k, l := lineOf(e)
		s.sections[k] = append(s.sections[k], l)
	}
	for _, ls := range s.sections {
		slices.SortFunc(ls, compareLines)
	}
	return s
}

func lineOf(e Entry) (key, line) {
	t := e.Type
	if _, ok := note.Folders[t]; !ok {
		t = ""
	}
	return key{t, e.Scope}, line{lower: strings.ToLower(e.Title), path: e.Path,
		text: "- [" + linkText(e.Title) + "](" + linkTarget(e.Path) + ")\n"}
}

// Put puts e in the catalogue in place of any line of its path.
func (s *Set) Put(e Entry) {
	s.Remove(e.Path)
	s.byPath[e.Path] = e
	k, l := lineOf(e)
	ls := s.sections[k]
	i, _ := slices.BinarySearchFunc(ls, l, compareLines)
	s.sections[k] = slices.Insert(ls, i, l)
}

// Remove takes path's line out of the catalogue, if it has one.
func (s *Set) Remove(path string) {
	e, ok := s.byPath[path]
	if !ok {
		return
	}
	delete(s.byPath, path)
	k, l := lineOf(e)
	ls := s.sections[k]
	if i, found := slices.BinarySearchFunc(ls, l, compareLines); found {
		ls = slices.Delete(ls, i, i+1)
	}
	if len(ls) == 0 {
		delete(s.sections, k)
		return
	}
	s.sections[k] = ls
}

// Apply brings the catalogue to one change a write makes to a note:
// path set to data, archived, or removed (data nil).
func (s *Set) Apply(path string, data []byte) {
	if data == nil || note.Archived(path) {
		s.Remove(path)
		return
	}
	n := note.Parse(path, data)
	s.Put(Entry{Path: path, Type: n.FM.Type, Title: n.Title(), Scope: n.Scope()})
}

// Render renders index.md.
func (s *Set) Render() []byte {
	byType := map[string][]string{}
	for k := range s.sections {
		byType[k.typ] = append(byType[k.typ], k.scope)
	}
	var out strings.Builder
	out.Grow(len(Header) + 64*len(s.byPath))
	out.WriteString(Header)
	fmt.Fprintf(&out, "\n%d notes.\n", len(s.byPath))
	for _, t := range append(note.Types(), "") {
		scopes := byType[t]
		if len(scopes) == 0 {
			continue
		}
		sort.Strings(scopes)
		name := t
		if name == "" {
			name = "untyped"
		}
		n := 0
		for _, sc := range scopes {
			n += len(s.sections[key{t, sc}])
		}
		fmt.Fprintf(&out, "\n## %s (%d)\n", name, n)
		for _, sc := range scopes {
			fmt.Fprintf(&out, "\n### %s\n\n", sc)
			for _, l := range s.sections[key{t, sc}] {
				out.WriteString(l.text)
			}
		}
	}
	return []byte(out.String())
}

// linkText escapes what would end a Markdown link's text.
func linkText(s string) string { return linkTextEscapes.Replace(s) }

var linkTextEscapes = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, "\n", " ")

// linkTarget writes a path as a link destination: in angle brackets when it
// has a space or parenthesis.
func linkTarget(p string) string {
	if strings.ContainsAny(p, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(p) + ">"
	}
	return p
}

// Cache keeps the catalogue between writes: valid while the index is at
// head and holds no hand edit, so a write re-renders its own lines instead
// of listing and sorting every note. A write takes it (head "" until its
// commit and index update are in) and hands it back with the new HEAD;
// anything else finds it stale and builds it from the index.
type Cache struct {
	mu   sync.Mutex
	head string
	set  *Set
}

// Take returns the catalogue kept at head when the index is there and
// clean (no hand edit), else the one list gives, for the caller to change.
func (c *Cache) Take(head string, clean bool, list func() ([]Entry, error)) (*Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.set; s != nil && c.head != "" && c.head == head && clean {
		c.head = ""
		return s, nil
	}
	c.set, c.head = nil, ""
	entries, err := list()
	if err != nil {
		return nil, err
	}
	c.set = New(entries)
	return c.set, nil
}

// Keep records that the catalogue last taken is the index's at head: the
// write that changed it is committed and indexed.
func (c *Cache) Keep(head string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil {
		c.head = head
	}
}
