package brain

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
	"github.com/toolhost/toolhost/plugins/notes/internal/index"
	"github.com/toolhost/toolhost/plugins/notes/internal/markdown"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// NoteView is a note as read tools return it.
type NoteView struct {
	ID          string   `json:"id"`
	Path        string   `json:"path"`
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Scope       string   `json:"scope"`
	Validity    string   `json:"validity"`
	Trust       string   `json:"trust"`
	Origin      string   `json:"origin"`
	EditedBy    *string  `json:"edited_by"`
	Sources     []string `json:"sources"`
	ContentKind string   `json:"content_kind"`
	Content     string   `json:"content"`
	// Uncommitted marks a note as a person left it by hand, not yet in git.
	Uncommitted bool `json:"uncommitted,omitempty"`
}

func (b *Brain) view(r index.Row, asOf, kind, content string) NoteView {
	v := NoteView{ID: r.ID, Path: r.Path, Type: r.Type, Title: r.Title, Scope: r.Scope, Validity: r.Validity(asOf),
		Trust: r.Trust, Origin: r.Origin, Sources: []string{}, ContentKind: kind, Content: content, Uncommitted: b.isUncommitted(r.Path)}
	if r.EditedBy != "" {
		v.EditedBy = strp(r.EditedBy)
	}
	return v
}

// fullView reads the note's body for the view, cut at max runes.
func (b *Brain) fullView(r index.Row, asOf string, max int) NoteView {
	n, _, err := b.readNote(r.Path)
	if err != nil {
		return b.view(r, asOf, "unreadable", "")
	}
	body := strings.TrimSpace(n.Body)
	kind := "full"
	if rs := []rune(body); max > 0 && len(rs) > max {
		body, kind = string(rs[:max])+"…", "truncated"
	}
	v := b.view(r, asOf, kind, body)
	v.Sources = append(v.Sources, n.FM.Sources...)
	return v
}

func tokensOf(v any) int {
	raw, _ := json.Marshal(v)
	return (len(raw) + 3) / 4
}

// RecallArgs are recall's args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type RecallArgs struct {
	Task         string `json:"task"`
	Scope        string `json:"scope"`
	BudgetTokens int    `json:"budget-tokens"`
}

// RecallResult is recall's answer.
type RecallResult struct {
	DataNotice    string     `json:"data_notice"`
	SessionHandle string     `json:"session_handle"`
	Task          string     `json:"task"`
	Scope         string     `json:"scope"`
	Rules         []NoteView `json:"rules"`
	Handoff       *NoteView  `json:"handoff"`
	HandoffSeen   any        `json:"handoff_seen"`
	Preferences   []NoteView `json:"preferences"`
	Gotchas       []NoteView `json:"gotchas"`
	Memories      []NoteView `json:"memories"`
	Priority      []string   `json:"priority"`
	BudgetTokens  int        `json:"budget_tokens"`
	UsedTokens    int        `json:"used_tokens"`
	Truncated     bool       `json:"truncated"`
	Omitted       int        `json:"omitted"`
	NextStep      string     `json:"next_step"`
}

// Recall is the briefing at the start of a task.
func (b *Brain) Recall(ctx context.Context, c Call, a RecallArgs) (*RecallResult, error) {
	if strings.TrimSpace(a.Task) == "" || len([]rune(a.Task)) > 4000 {
		return nil, fail(CodeInvalidArgument, "Describe the task in up to 4,000 characters.", "task must be 1 to 4,000 characters")
	}
	if a.Scope == "" {
		a.Scope = "global"
	}
	if err := validateScope(a.Scope); err != nil {
		return nil, err
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	today := b.today()
	res := &RecallResult{DataNotice: DataNotice, SessionHandle: newID(), Task: a.Task, Scope: a.Scope,
		Rules: []NoteView{}, Preferences: []NoteView{}, Gotchas: []NoteView{}, Memories: []NoteView{},
		Priority: []string{"rules", "handoff", "preferences", "gotchas", "memories"}, BudgetTokens: a.BudgetTokens}
	res.UsedTokens = tokensOf(res)
	seen := map[string]bool{}
	take := func(v NoteView) bool {
		t := tokensOf(v)
		if res.UsedTokens+t > a.BudgetTokens {
			res.Omitted++
			res.Truncated = true
			return false
		}
		res.UsedTokens += t
		seen[v.Path] = true
		return true
	}
	list := func(typ string) []index.Row {
		rows, _ := b.ix.List(ctx, index.Filter{Types: []string{typ}, Scope: a.Scope, AsOf: today})
		return rows
	}
	for _, r := range list("rule") {
		if !strings.HasPrefix(r.Path, "memory/rules/") || !(r.Origin == "human" || r.ApprovedBy == "user") {
			continue
		}
		if v := b.fullView(r, today, 1500); take(v) {
			res.Rules = append(res.Rules, v)
		}
	}
	handoffs := list("handoff")
	sort.SliceStable(handoffs, func(i, j int) bool {
		pi, pj := handoffs[i].Scope == a.Scope, handoffs[j].Scope == a.Scope
		if pi != pj {
			return pi
		}
		return handoffs[i].Path > handoffs[j].Path
	})
	if len(handoffs) > 0 {
		if v := b.fullView(handoffs[0], today, 3000); take(v) {
			res.Handoff = &v
			if seen := b.handoffSeen(handoffs[0].Path, res.SessionHandle); seen != nil {
				res.HandoffSeen = seen
			}
		}
	}
	for _, p := range []struct {
		typ string
		dst *[]NoteView
	}{{"preference", &res.Preferences}, {"gotcha", &res.Gotchas}} {
		for _, r := range list(p.typ) {
			if v := b.fullView(r, today, 800); take(v) {
				*p.dst = append(*p.dst, v)
			}
		}
	}
	hits, _, _, err := b.ix.Search(ctx, a.Task, index.Filter{Scope: a.Scope, AsOf: today}, 10)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	for _, h := range hits {
		if seen[h.Path] || h.Type == "rule" || h.Type == "handoff" || isControl(h.Path) {
			// A control file (AGENTS.md, …) steers agents; it is not a
			// memory and has no id or type to show as one.
			continue
		}
		if v := b.fullView(h.Row, today, 600); take(v) {
			res.Memories = append(res.Memories, v)
		}
	}
	res.NextStep = fmt.Sprintf("Pass session_handle %q to every write of this task. Before you finish, save a handoff with handoff-save.", res.SessionHandle)
	if res.Truncated {
		res.NextStep += fmt.Sprintf(" %d item(s) did not fit in budget_tokens; raise it or use search.", res.Omitted)
	}
	return res, nil
}

// HandoffSeen says a handoff was already delivered to another session on
// this machine and nobody saved a newer one.
type HandoffSeen struct {
	Date    string `json:"date"`
	Session string `json:"session"`
}

// handoffSeen records that session got the handoff at path and returns the
// first earlier delivery, if any. The record is local (.notes/), not in git.
func (b *Brain) handoffSeen(path, session string) *HandoffSeen {
	file := filepath.Join(b.Root, StateDir, "handoffs-seen.json")
	b.ixMu.Lock()
	defer b.ixMu.Unlock()
	seen := map[string]HandoffSeen{}
	if raw, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(raw, &seen)
	}
	if prev, ok := seen[path]; ok {
		return &prev
	}
	seen[path] = HandoffSeen{Date: b.stamp(), Session: session}
	if raw, err := json.Marshal(seen); err == nil {
		_ = writeAtomic(file, raw)
	}
	return nil
}

// ReadArgs are read's args.
type ReadArgs struct {
	Path    string `json:"path"`
	ID      string `json:"id"`
	Section string `json:"section"`
}

// OutLink is a link from the note read.
type OutLink struct {
	Origin   string  `json:"origin"`
	Type     string  `json:"type"`
	Target   string  `json:"target"`
	Path     *string `json:"path"`
	Title    *string `json:"title"`
	NoteType *string `json:"note_type"`
	Broken   bool    `json:"broken"`
}

// BackLink is a link to the note read.
type BackLink struct {
	Origin   string `json:"origin"`
	Type     string `json:"type"`
	Path     string `json:"path"`
	Title    string `json:"title"`
	NoteType string `json:"note_type"`
	Archived bool   `json:"archived"`
	Line     int    `json:"line"`
}

// ReadResult is read's answer.
type ReadResult struct {
	DataNotice       string             `json:"data_notice"`
	Note             NoteView           `json:"note"`
	Frontmatter      any                `json:"frontmatter"`
	FrontmatterError *string            `json:"frontmatter_error"`
	Section          *markdown.Heading  `json:"section"`
	Headings         []markdown.Heading `json:"headings"`
	Archived         bool               `json:"archived"`
	OutgoingLinks    []OutLink          `json:"outgoing_links"`
	Backlinks        []BackLink         `json:"backlinks"`
	Truncated        bool               `json:"truncated"`
	NextStep         string             `json:"next_step,omitempty"`
}

// Read returns one note, or one section of it, with its links.
func (b *Brain) Read(ctx context.Context, c Call, a ReadArgs) (*ReadResult, error) {
	if (a.Path == "") == (a.ID == "") {
		return nil, fail(CodeInvalidArgument, "Pass path or id, exactly one.", "read needs path or id, not both and not neither")
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	var rel string
	if a.ID != "" {
		r, err := b.resolveOne(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		rel = r.Path
	} else {
		var err error
		if rel, err = b.checkPath(a.Path, false); err != nil {
			return nil, err
		}
	}
	n, _, err := b.readNote(rel)
	if err != nil {
		return nil, err
	}
	row, err := b.ix.Get(ctx, rel)
	if err != nil {
		row = index.Row{Path: rel, Title: n.Title(), Scope: n.Scope(), Origin: n.Origin(), ID: n.FM.ID, Type: n.FM.Type, Trust: n.FM.Trust}
	}
	today := b.today()
	doc := markdown.Parse(n.Body)
	content := n.Body
	res := &ReadResult{DataNotice: DataNotice, Headings: doc.Headings, Archived: note.Archived(rel), OutgoingLinks: []OutLink{}, Backlinks: []BackLink{}}
	if res.Headings == nil {
		res.Headings = []markdown.Heading{}
	}
	if a.Section != "" {
		h, ok := doc.Section(a.Section)
		if !ok {
			return nil, fail(CodeNotFound, "Pick a heading from headings, by its text or as Parent › Child.", "%s has no section %q", rel, a.Section)
		}
		res.Section = &h
		content = n.Body[h.Offset:h.End]
	}
	res.Note = b.view(row, today, "full", content)
	if a.Section != "" {
		res.Note.ContentKind = "section"
	}
	res.Note.Sources = append(res.Note.Sources, n.FM.Sources...)
	if n.HasFM && n.FMError == "" {
		res.Frontmatter = n.FM
	}
	if n.FMError != "" {
		res.FrontmatterError = strp(n.FMError)
	}
	out, _ := b.ix.Outgoing(ctx, rel)
	for _, l := range out {
		ol := OutLink{Origin: l.Origin, Type: l.Type, Target: l.Target, Broken: l.To == ""}
		if l.To != "" {
			if r, err := b.ix.Get(ctx, l.To); err == nil {
				ol.Path, ol.Title, ol.NoteType = strp(r.Path), strp(r.Title), strp(r.Type)
			}
		}
		res.OutgoingLinks = append(res.OutgoingLinks, ol)
	}
	in, _ := b.ix.Backlinks(ctx, rel)
	for _, l := range in {
		r, err := b.ix.Get(ctx, l.From)
		if err != nil {
			continue
		}
		res.Backlinks = append(res.Backlinks, BackLink{Origin: l.Origin, Type: l.Type, Path: r.Path, Title: r.Title, NoteType: r.Type, Archived: r.Archived, Line: l.Line})
	}
	// Respect the host's byte budget: cut the content, never the JSON.
	if max := c.Caller.MaxResultBytes; max > 0 {
		if over := jsonLen(res) - max; over > 0 {
			content := res.Note.Content
			keep := len(content) - over - 200
			for keep > 0 && !utf8.RuneStart(content[keep]) {
				keep--
			}
			if keep < 0 {
				keep = 0
			}
			res.Note.Content, res.Note.ContentKind, res.Truncated = content[:keep], "truncated", true
			res.NextStep = "The note is longer than the result budget; read one section at a time (section, from headings)."
		}
	}
	return res, nil
}

// GraphArgs are graph's args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type GraphArgs struct {
	Node          string   `json:"node"`
	Depth         int      `json:"depth"`
	RelationTypes []string `json:"relation-types"`
	AsOf          string   `json:"as-of"`
	Limit         int      `json:"limit"`
	BudgetTokens  int      `json:"budget-tokens"`
}

// GraphLink is one edge in a graph answer.
type GraphLink struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Type      string `json:"type"`
	Origin    string `json:"origin"`
	Direction string `json:"direction"`
	Validity  string `json:"validity"`
}

// Neighbor is one note near the node.
type Neighbor struct {
	Path     string      `json:"path"`
	Title    string      `json:"title"`
	Type     string      `json:"type"`
	Distance int         `json:"distance"`
	Validity string      `json:"validity"`
	Links    []GraphLink `json:"links"`
}

// GraphResult is graph's answer.
type GraphResult struct {
	DataNotice    string     `json:"data_notice"`
	Node          string     `json:"node"`
	Path          string     `json:"path"`
	ResolvedBy    string     `json:"resolved_by"`
	AsOf          string     `json:"as_of"`
	Depth         int        `json:"depth"`
	RelationTypes []string   `json:"relation_types"`
	Neighbors     []Neighbor `json:"neighbors"`
	Total         int        `json:"total"`
	Truncated     bool       `json:"truncated"`
	Omitted       int        `json:"omitted"`
	NextStep      string     `json:"next_step"`
}

// asOfFresh returns the date a read answers at, as-of or today when it is
// empty (tool.yaml cannot declare a default that is today), once the index
// is brought to HEAD.
func (b *Brain) asOfFresh(ctx context.Context, asOf string) (string, error) {
	if asOf == "" {
		asOf = b.today()
	}
	if !note.ValidDate(asOf) {
		return "", fail(CodeInvalidArgument, "as-of is YYYY-MM-DD.", "as-of %q is not a date", asOf)
	}
	return asOf, b.fresh(ctx)
}

// Graph returns the notes one or two links away from node.
func (b *Brain) Graph(ctx context.Context, c Call, a GraphArgs) (*GraphResult, error) {
	asOf, err := b.asOfFresh(ctx, a.AsOf)
	if err != nil {
		return nil, err
	}
	a.AsOf = asOf
	rows, kinds, err := b.ix.Resolve(ctx, a.Node)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	if len(rows) == 0 {
		return nil, fail(CodeNotFound, "Name the note by title, path, [[wikilink]] or id; search finds it.", "no note is named %q", a.Node)
	}
	start := rows[0]
	want := map[string]bool{}
	for _, t := range a.RelationTypes {
		want[t] = true
	}
	typeOK := func(t string) bool {
		if len(want) == 0 {
			return true
		}
		return want[t] || (want["wikilink"] && t == "wikilink")
	}
	res := &GraphResult{DataNotice: DataNotice, Node: a.Node, Path: start.Path, ResolvedBy: kinds[0], AsOf: a.AsOf, Depth: a.Depth,
		RelationTypes: nonNil(a.RelationTypes), Neighbors: []Neighbor{}}
	found := map[string]*Neighbor{}
	var order []string
	frontier := []string{start.Path}
	visited := map[string]bool{start.Path: true}
	for d := 1; d <= a.Depth; d++ {
		var next []string
		for _, p := range frontier {
			out, _ := b.ix.Outgoing(ctx, p)
			in, _ := b.ix.Backlinks(ctx, p)
			edge := func(other string, l index.Link, dir string) {
				if other == "" || other == start.Path || !typeOK(l.Type) {
					return
				}
				r, err := b.ix.Get(ctx, other)
				if err != nil || r.Archived {
					return
				}
				nb, ok := found[other]
				if !ok {
					nb = &Neighbor{Path: r.Path, Title: r.Title, Type: r.Type, Distance: d, Validity: r.Validity(a.AsOf), Links: []GraphLink{}}
					found[other] = nb
					order = append(order, other)
				}
				to := l.To
				if to == "" {
					to = l.Target
				}
				nb.Links = append(nb.Links, GraphLink{From: l.From, To: to, Type: l.Type, Origin: l.Origin, Direction: dir, Validity: nb.Validity})
				if !visited[other] {
					visited[other] = true
					next = append(next, other)
				}
			}
			for _, l := range out {
				edge(l.To, l, "out")
			}
			for _, l := range in {
				edge(l.From, l, "in")
			}
		}
		if d == 1 && typeOK("mention") {
			// Notes that name the node in their text without a link.
			names := append([]string{start.Title}, start.Aliases...)
			for _, name := range names {
				if len([]rune(name)) < 3 {
					continue
				}
				ps, _ := b.ix.Mentions(ctx, name, start.Path, a.Limit)
				for _, p := range ps {
					if _, linked := found[p]; linked {
						continue
					}
					r, err := b.ix.Get(ctx, p)
					if err != nil || r.Archived {
						continue
					}
					nb := &Neighbor{Path: r.Path, Title: r.Title, Type: r.Type, Distance: 1, Validity: r.Validity(a.AsOf),
						Links: []GraphLink{{From: p, To: start.Path, Type: "mention", Origin: "body", Direction: "in", Validity: r.Validity(a.AsOf)}}}
					found[p] = nb
					order = append(order, p)
				}
			}
		}
		frontier = next
	}
	res.Total = len(order)
	used := tokensOf(res)
	for _, p := range order {
		nb := found[p]
		t := tokensOf(nb)
		if len(res.Neighbors) >= a.Limit || used+t > a.BudgetTokens {
			res.Omitted++
			res.Truncated = true
			continue
		}
		used += t
		res.Neighbors = append(res.Neighbors, *nb)
	}
	res.NextStep = "Read a neighbour with read({ path })."
	if res.Truncated {
		res.NextStep = fmt.Sprintf("%d neighbour(s) were left out; narrow with relation-types or raise limit/budget-tokens.", res.Omitted)
	}
	return res, nil
}

// FactsArgs are facts' args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type FactsArgs struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	AsOf      string `json:"as-of"`
	Limit     int    `json:"limit"`
}

// QueryRef is how a subject or object query resolved.
type QueryRef struct {
	Query string  `json:"query"`
	Path  *string `json:"path"`
}

// FactView is one fact.
type FactView struct {
	Path         string   `json:"path"`
	Title        string   `json:"title"`
	Validity     string   `json:"validity"`
	Subject      string   `json:"subject"`
	SubjectPath  *string  `json:"subject_path"`
	Predicate    string   `json:"predicate"`
	Object       string   `json:"object"`
	ObjectPath   *string  `json:"object_path"`
	ValidFrom    *string  `json:"valid_from"`
	ValidUntil   *string  `json:"valid_until"`
	SupersededOn *string  `json:"superseded_on"`
	Supersedes   []string `json:"supersedes"`
	SupersededBy []string `json:"superseded_by"`
}

// FactsResult is facts' answer.
type FactsResult struct {
	DataNotice string     `json:"data_notice"`
	AsOf       string     `json:"as_of"`
	Subject    *QueryRef  `json:"subject"`
	Predicate  *string    `json:"predicate"`
	Object     *QueryRef  `json:"object"`
	Facts      []FactView `json:"facts"`
	Total      int        `json:"total"`
	Truncated  bool       `json:"truncated"`
}

// Facts lists facts with their validity at as-of; expired ones are shown,
// never hidden.
func (b *Brain) Facts(ctx context.Context, c Call, a FactsArgs) (*FactsResult, error) {
	asOf, err := b.asOfFresh(ctx, a.AsOf)
	if err != nil {
		return nil, err
	}
	a.AsOf = asOf
	res := &FactsResult{DataNotice: DataNotice, AsOf: a.AsOf, Facts: []FactView{}}
	names := func(q string) (map[string]bool, *QueryRef) {
		if q == "" {
			return nil, nil
		}
		set := map[string]bool{index.Key(markdown.Unwrap(q)): true}
		ref := &QueryRef{Query: q}
		if rows, _, err := b.ix.Resolve(ctx, q); err == nil && len(rows) > 0 {
			ref.Path = strp(rows[0].Path)
			set[index.Key(rows[0].Title)] = true
			set[index.Key(note.Stem(rows[0].Path))] = true
			set[index.Key(rows[0].Path)] = true
		}
		return set, ref
	}
	subj, sref := names(a.Subject)
	obj, oref := names(a.Object)
	res.Subject, res.Object = sref, oref
	if a.Predicate != "" {
		res.Predicate = strp(a.Predicate)
	}
	rows, err := b.ix.List(ctx, index.Filter{Types: []string{"fact"}})
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	resolve := func(s string) *string {
		if rs, _, err := b.ix.Resolve(ctx, s); err == nil && len(rs) > 0 {
			return strp(rs[0].Path)
		}
		return nil
	}
	paths := func(links []string) []string {
		out := []string{}
		for _, l := range links {
			if p := resolve(l); p != nil {
				out = append(out, *p)
			} else {
				out = append(out, markdown.Unwrap(l))
			}
		}
		return out
	}
	for _, r := range rows {
		if subj != nil && !subj[index.Key(r.Subject)] {
			continue
		}
		if obj != nil && !obj[index.Key(r.Object)] {
			continue
		}
		if a.Predicate != "" && !strings.EqualFold(a.Predicate, r.Predicate) {
			continue
		}
		f := FactView{Path: r.Path, Title: r.Title, Validity: r.Validity(a.AsOf), Subject: r.Subject, Predicate: r.Predicate, Object: r.Object,
			SubjectPath: resolve(r.Subject), ObjectPath: resolve(r.Object), Supersedes: paths(r.Supersedes), SupersededBy: paths(r.SupersededBy)}
		if r.ValidFrom != "" {
			f.ValidFrom = strp(r.ValidFrom)
		}
		if r.ValidUntil != "" {
			f.ValidUntil = strp(r.ValidUntil)
			if len(r.SupersededBy) > 0 {
				f.SupersededOn = strp(r.ValidUntil)
			}
		}
		res.Facts = append(res.Facts, f)
	}
	sort.SliceStable(res.Facts, func(i, j int) bool {
		fi, fj := res.Facts[i], res.Facts[j]
		if fi.Subject != fj.Subject {
			return fi.Subject < fj.Subject
		}
		if fi.Predicate != fj.Predicate {
			return fi.Predicate < fj.Predicate
		}
		return deref(fi.ValidFrom) < deref(fj.ValidFrom)
	})
	res.Total = len(res.Facts)
	if len(res.Facts) > a.Limit {
		res.Facts, res.Truncated = res.Facts[:a.Limit], true
	}
	if max := c.Caller.MaxResultBytes; max > 0 {
		for len(res.Facts) > 0 && jsonLen(res) > max {
			res.Facts, res.Truncated = res.Facts[:len(res.Facts)*3/4], true
		}
	}
	return res, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// StatusResult is status's answer.
type StatusResult struct {
	DataNotice         string          `json:"data_notice"`
	Healthy            bool            `json:"healthy"`
	Problems           []string        `json:"problems"`
	Root               string          `json:"root"`
	Client             string          `json:"client"`
	Machine            string          `json:"machine"`
	BrainSchemaVersion int             `json:"brain_schema_version"`
	NoteDirs           []string        `json:"note_dirs"`
	Notes              map[string]any  `json:"notes"`
	Index              map[string]any  `json:"index"`
	BrokenLinks        int             `json:"broken_links"`
	Sync               map[string]any  `json:"sync"`
	Conflicts          []string        `json:"conflicts"`
	UnsafeFiles        []UnsafeFile    `json:"unsafe_files"`
	Git                string          `json:"git"`
	Notices            []string        `json:"notices"`
	Recovered          []Recovered     `json:"recovered"`
	Embeddings         EmbeddingStatus `json:"embeddings"`
	NextStep           string          `json:"next_step"`
}

// Status reports the brain's health.
func (b *Brain) Status(ctx context.Context, c Call) (*StatusResult, error) {
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	res := &StatusResult{DataNotice: DataNotice, Healthy: true, Problems: []string{}, Root: b.Root, Client: c.Client(), Machine: b.machineName(),
		BrainSchemaVersion: b.Config.SchemaVersion, Conflicts: []string{}, Notices: []string{}, Recovered: b.takeRecovered()}
	if js, err := b.pendingJournals(); err != nil || len(js) > 0 {
		// fresh recovered what it could; a journal still here is a
		// writer at work now, or one recovery could not finish.
		unlock, lerr := b.lock(ctx)
		if lerr == nil {
			unlock()
			res.Recovered = append(res.Recovered, b.takeRecovered()...)
		}
		if js, err := b.pendingJournals(); err != nil || len(js) > 0 {
			res.Problems = append(res.Problems, fmt.Sprintf("%d interrupted operation(s) could not be recovered (see %s)", len(js), journalDir))
		}
	}
	for _, t := range note.Types() {
		res.NoteDirs = append(res.NoteDirs, note.Folders[t])
	}
	sort.Strings(res.NoteDirs)
	counts, err := b.ix.Count(ctx)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Delete .notes/index.db to rebuild the index.", "%v", err)
	}
	res.Notes = map[string]any{"total": counts.Notes, "by_type": counts.ByType, "untyped": counts.Untyped, "archived": counts.Archived, "unmanaged": counts.Unmanaged}
	res.Index = map[string]any{"schema_version": index.SchemaVersion, "chunks": counts.Chunks, "edges": counts.Links, "facts": counts.Facts,
		"head": b.ix.Meta(ctx, "head"), "last_scan": b.ix.Meta(ctx, "scanned_at")}
	if res.BrokenLinks, err = b.ix.BrokenLinks(ctx); err != nil {
		return nil, fail(CodeIndexFailed, "Delete .notes/index.db to rebuild the index.", "%v", err)
	}
	g := gitRunner{dir: b.Root}
	res.Git, _ = gitBinary()
	branch, _ := g.run(ctx, "rev-parse", "--abbrev-ref", "HEAD")
	remotes, _ := g.run(ctx, "remote")
	porcelain, _ := g.run(ctx, "status", "--porcelain", "-z")
	pending := 0
	for _, p := range strings.Split(porcelain, "\x00") {
		if len(p) > 3 {
			pending++
		}
	}
	res.Conflicts = append(res.Conflicts, b.conflictCopies()...)
	if res.UnsafeFiles, err = b.unsafeFiles(ctx); err != nil {
		return nil, fail(CodeGitFailed, "Check the brain folder with git status.", "%v", err)
	}
	if len(res.UnsafeFiles) > 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d symbolic link(s) or special file(s) no reader opens (lint: unsafe_file)", len(res.UnsafeFiles)))
	}
	res.Sync = map[string]any{"branch": strings.TrimSpace(branch), "remote_configured": strings.TrimSpace(remotes) != "", "pending_changes": pending, "running": false}
	if pending > 0 {
		// A person's uncommitted notes are theirs, not a fault of the
		// brain: said, never counted against its health.
		res.Notices = append(res.Notices, fmt.Sprintf("%d file(s) changed outside the notes tool and not committed", pending))
	}
	if res.BrokenLinks > 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d broken link(s)", res.BrokenLinks))
	}
	emb := b.embeddingStatus()
	res.Embeddings = emb
	if !emb.Available && os.Getenv(embed.EnvURL) != "" {
		res.Problems = append(res.Problems, "the embedding endpoint is not usable: "+emb.Reason)
	}
	res.Healthy = len(res.Problems) == 0
	res.NextStep = "Run lint for the details of each problem."
	if res.Healthy {
		res.NextStep = "The brain is healthy."
	}
	return res, nil
}

// LintArgs are lint's args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type LintArgs struct {
	Rules []string `json:"rules"`
	Scope string   `json:"scope"`
	Limit int      `json:"limit"`
}

// Finding is one lint finding.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity string   `json:"severity"`
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
	Related  []string `json:"related"`
}

// LintResult is lint's answer.
type LintResult struct {
	DataNotice   string         `json:"data_notice"`
	Findings     []Finding      `json:"findings"`
	Counts       map[string]int `json:"counts"`
	ByRule       map[string]int `json:"by_rule"`
	CheckedNotes int            `json:"checked_notes"`
	Total        int            `json:"total"`
	Truncated    bool           `json:"truncated"`
	Warnings     []Warning      `json:"warnings"`
	NextStep     string         `json:"next_step"`
}

// lintRules are lint's rules with their severities.
var lintRules = map[string]string{
	"invalid_frontmatter": "error", "fact_contradiction": "warning", "conflict_copy": "warning", "broken_link": "warning",
	"unsafe_file": "error", "expired_note": "info", "unconfirmed_memory": "info", "unlinked_mention": "info", "orphan_note": "info", "agent_approved": "info",
}

// mentionLimit bounds unlinked_mention's quadratic scan.
const mentionLimit = 2000

// Lint reports problems by rule; it changes nothing.
func (b *Brain) Lint(ctx context.Context, c Call, a LintArgs) (*LintResult, error) {
	on, err := lintRuleSet(a.Rules)
	if err != nil {
		return nil, err
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	rows, err := b.ix.List(ctx, index.Filter{Scope: a.Scope})
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	res := &LintResult{DataNotice: DataNotice, Findings: []Finding{}, Counts: map[string]int{"error": 0, "warning": 0, "info": 0}, ByRule: map[string]int{}, CheckedNotes: len(rows), Warnings: []Warning{}}
	add := func(rule, path string, line int, msg, fix string, related ...string) {
		if !on[rule] {
			return
		}
		if related == nil {
			related = []string{}
		}
		res.Findings = append(res.Findings, Finding{Rule: rule, Severity: lintRules[rule], Path: path, Line: line, Message: msg, Fix: fix, Related: related})
	}
	linked := b.lintLinks(ctx, add)
	objects := b.lintNotes(rows, linked, add)
	lintFacts(objects, add)
	if on["conflict_copy"] {
		b.lintConflictCopies(add)
	}
	if on["unsafe_file"] {
		bad, err := b.unsafeFiles(ctx)
		if err != nil {
			return nil, fail(CodeGitFailed, "Check the brain folder with git status.", "%v", err)
		}
		for _, u := range bad {
			add("unsafe_file", u.Path, 1, u.Path+" is "+u.Why+"; no reader opens it, so search, recall and read never see it",
				"Replace it with a regular Markdown file holding the text, or delete it (git rm).")
		}
	}
	if on["unlinked_mention"] {
		if len(rows) > mentionLimit {
			res.Warnings = append(res.Warnings, Warning{Code: "rule_skipped", Field: "unlinked_mention", Message: fmt.Sprintf("skipped: more than %d notes", mentionLimit)})
		} else {
			b.mentions(ctx, rows, add)
		}
	}
	lintFinish(res, a.Limit, c.Caller.MaxResultBytes)
	return res, nil
}

// addFinding records one lint finding when its rule is on.
type addFinding func(rule, path string, line int, msg, fix string, related ...string)

// lintRuleSet is the set of rules asked for (all when none).
func lintRuleSet(rules []string) (map[string]bool, error) {
	on := map[string]bool{}
	for _, r := range rules {
		if _, ok := lintRules[r]; !ok {
			names := make([]string, 0, len(lintRules))
			for k := range lintRules {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, fail(CodeInvalidArgument, "Use rules from: "+strings.Join(names, ", ")+".", "lint rule %q is not known", r)
		}
		on[r] = true
	}
	if len(on) == 0 {
		for r := range lintRules {
			on[r] = true
		}
	}
	return on, nil
}

// lintLinks reports broken links and returns the notes a link goes in or
// out of.
func (b *Brain) lintLinks(ctx context.Context, add addFinding) map[string]bool {
	links, _ := b.ix.AllLinks(ctx)
	linked := map[string]bool{}
	for _, l := range links {
		linked[l.From] = true
		if l.To != "" {
			linked[l.To] = true
		}
		if l.To == "" && l.Type != "fact" && !strings.HasPrefix(l.From, "raw/") {
			add("broken_link", l.From, b.fileLine(l.From, l.Line, l.Target), fmt.Sprintf("[[%s]] (%s) points to no note", l.Target, l.Type), "Create the note, fix the link's name, or remove it.")
		}
	}
	return linked
}

// factKey groups current facts by subject, predicate and scope.
type factKey struct{ s, p, scope string }

// lintNotes runs the per-note rules and returns the current facts grouped
// for the contradiction rule.
func (b *Brain) lintNotes(rows []index.Row, linked map[string]bool, add addFinding) map[factKey][]index.Row {
	today := b.today()
	objects := map[factKey][]index.Row{}
	for _, r := range rows {
		if r.FMError != "" {
			add("invalid_frontmatter", r.Path, 1, "the frontmatter cannot be read: "+r.FMError, "Fix the YAML between the --- lines.")
		} else if r.HasFM {
			if n, _, err := b.readNote(r.Path); err == nil {
				for _, p := range n.FM.Validate() {
					add("invalid_frontmatter", r.Path, 1, p, "Fix the field.")
				}
			}
		}
		v := r.Validity(today)
		if r.Type == "fact" && v == note.Current {
			k := factKey{index.Key(r.Subject), r.Predicate, r.Scope}
			objects[k] = append(objects[k], r)
		}
		if v == note.Expired && len(r.SupersededBy) == 0 {
			add("expired_note", r.Path, 1, "expired (valid_until or expires_at has passed) and nothing supersedes it", "Archive it with forget, or extend its validity.")
		}
		if (r.Type == "preference" || r.Type == "gotcha" || r.Type == "procedure") && r.Confirmed == "" {
			if t, ok := parseDay(r.Updated); ok && b.Now().Sub(t) >= 180*24*time.Hour {
				add("unconfirmed_memory", r.Path, 1, "not confirmed and not updated for 180 days or more", "Ask the user whether it still holds; set confirmed to today's date, or forget it.")
			}
		}
		if r.ApprovedBy == "user" {
			add("agent_approved", r.Path, 1, "written or changed by an agent with the user's confirmation", "Review that it says what the user meant.")
		}
		if !linked[r.Path] && r.Type != "handoff" && r.Type != "episode" && strings.Contains(r.Path, "/") && !strings.HasPrefix(r.Path, "raw/") {
			add("orphan_note", r.Path, 1, "no link goes in or out", "Link it from a related note, or relate it.")
		}
	}
	return objects
}

// lintFacts reports current facts that give one subject and predicate
// different objects.
func lintFacts(objects map[factKey][]index.Row, add addFinding) {
	for _, group := range objects {
		distinct := map[string]bool{}
		for _, r := range group {
			distinct[index.Key(r.Object)] = true
		}
		if len(distinct) > 1 {
			var rel []string
			for _, r := range group[1:] {
				rel = append(rel, r.Path)
			}
			add("fact_contradiction", group[0].Path, 1, fmt.Sprintf("current facts %s %s with %d different objects", group[0].Subject, group[0].Predicate, len(distinct)),
				"Supersede the wrong one with remember (resolution supersede:<id>).", rel...)
		}
	}
}

// lintConflictCopies reports the sync conflict copies in the brain.
func (b *Brain) lintConflictCopies(add addFinding) {
	for _, cp := range b.conflictCopies() {
		orig := conflictCopy.ReplaceAllString(cp, ".md")
		add("conflict_copy", cp, 1, "a sync conflict copy is waiting: this machine's version of "+orig+" when another machine changed it too",
			"Merge what it adds into "+orig+", then delete the copy.", orig)
	}
}

// lintFinish orders the findings, counts them and cuts them to limit and
// to the caller's byte budget.
func lintFinish(res *LintResult, limit, maxBytes int) {
	sevRank := map[string]int{"error": 0, "warning": 1, "info": 2}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		fi, fj := res.Findings[i], res.Findings[j]
		if sevRank[fi.Severity] != sevRank[fj.Severity] {
			return sevRank[fi.Severity] < sevRank[fj.Severity]
		}
		if fi.Rule != fj.Rule {
			return fi.Rule < fj.Rule
		}
		return fi.Path < fj.Path
	})
	for _, f := range res.Findings {
		res.Counts[f.Severity]++
		res.ByRule[f.Rule]++
	}
	res.Total = len(res.Findings)
	if len(res.Findings) > limit {
		res.Findings, res.Truncated = res.Findings[:limit], true
	}
	res.NextStep = "Fix what is safe (broken links, orphans); ask the user about the rest."
	if res.Total == 0 {
		res.NextStep = "No findings."
	}
	if max := maxBytes; max > 0 {
		for len(res.Findings) > 0 && jsonLen(res) > max {
			res.Findings, res.Truncated = res.Findings[:len(res.Findings)*3/4], true
		}
	}
	if res.Truncated {
		res.NextStep = fmt.Sprintf("Showing %d of %d findings; narrow with rules, scope or limit.", len(res.Findings), res.Total)
	}
}

func (b *Brain) mentions(ctx context.Context, rows []index.Row, add func(rule, path string, line int, msg, fix string, related ...string)) {
	// For each note's title and aliases, the notes naming it in their text
	// (an FTS phrase query) that do not link to it.
	linked := map[[2]string]bool{}
	if links, err := b.ix.AllLinks(ctx); err == nil {
		for _, l := range links {
			linked[[2]string{l.From, l.To}] = true
		}
	}
	reported := map[[2]string]bool{}
	for _, r := range rows {
		for _, name := range append([]string{r.Title}, r.Aliases...) {
			if len([]rune(name)) < 4 {
				continue
			}
			ps, err := b.ix.Mentions(ctx, name, r.Path, 50)
			if err != nil {
				continue
			}
			for _, p := range ps {
				k := [2]string{p, r.Path}
				if strings.HasPrefix(p, "raw/") || linked[k] || reported[k] {
					continue
				}
				reported[k] = true
				add("unlinked_mention", p, b.fileLine(p, 0, name), fmt.Sprintf("mentions %q without a [[link]]", name), "Write [["+name+"]] where it is mentioned.", r.Path)
			}
		}
	}
}

// fileLine turns a finding's place into a line of the file as a person
// opens it: bodyLine (1-based within the body, as the index stores links)
// is moved past the frontmatter; with bodyLine 0 it is the first line that
// names text (case and accents folded), or 1.
func (b *Brain) fileLine(rel string, bodyLine int, text string) int {
	raw, err := readBrainFile(b.Root, rel)
	if err != nil {
		return max(bodyLine, 1)
	}
	s := strings.TrimPrefix(string(raw), "\ufeff")
	_, body, _ := note.SplitFrontmatter(s)
	before := strings.Count(s[:len(s)-len(body)], "\n")
	if bodyLine > 0 {
		return bodyLine + before
	}
	want := note.Fold(text)
	for i, line := range strings.Split(body, "\n") {
		if want != "" && strings.Contains(note.Fold(line), want) {
			return before + i + 1
		}
	}
	return 1
}

func parseDay(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(note.DateLayout, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}
