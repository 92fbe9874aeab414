package brain

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/toolhost/toolhost/plugins/notes/internal/index"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// WritePageArgs are write-page's args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type WritePageArgs struct {
	Path        string         `json:"path"`
	Content     string         `json:"content"`
	Mode        string         `json:"mode"`
	Frontmatter map[string]any `json:"frontmatter"`
}

// elevation lists why a change to rel needs the user's confirmation.
func elevation(rel string, exists bool, fmType, trust string) []string {
	var r []string
	if fmType == "rule" || strings.HasPrefix(rel, "memory/rules/") {
		r = append(r, "a rule (type: rule or memory/rules/) becomes an instruction for agents in every later recall")
	}
	if isControl(rel) {
		r = append(r, "a control file ("+rel+") steers agents or the brain itself")
	}
	if strings.HasPrefix(rel, "raw/") && exists {
		r = append(r, "raw/ keeps sources as they arrived; changing one rewrites the record")
	}
	if trust == "high" {
		r = append(r, "trust: high puts the note above other agents' memories")
	}
	return r
}

// decodeFrontmatter turns the agent's frontmatter object into fields,
// dropping (with a warning) the ones the brain owns.
func decodeFrontmatter(m map[string]any) (note.Frontmatter, []Warning, error) {
	var fm note.Frontmatter
	warns := ownedWarnings(m)
	clean := map[string]any{}
	for k, v := range m {
		owned := false
		for _, o := range note.Owned {
			owned = owned || k == o
		}
		if !owned {
			clean[k] = v
		}
	}
	raw, err := yaml.Marshal(clean)
	if err != nil {
		return fm, nil, fail(CodeInvalidArgument, "Pass frontmatter as an object of YAML-compatible fields.", "frontmatter: %v", err)
	}
	if err := yaml.Unmarshal(raw, &fm); err != nil {
		return fm, nil, fail(CodeInvalidNote, "Fix the frontmatter fields' types (lists for tags, aliases, sources; an object of lists for relations).", "frontmatter: %v", err)
	}
	// The title reaches the commit message: one line, like every title.
	if strings.IndexFunc(fm.Title, isControlRune) >= 0 {
		return fm, nil, fail(CodeInvalidArgument, "Give the title as one line, without line breaks or control characters.", "frontmatter.title has a line break or control character")
	}
	if err := validateTitle(fm.Title); err != nil {
		return fm, nil, err
	}
	return fm, warns, nil
}

// overlay sets the agent-settable fields of src onto dst.
func overlay(dst *note.Frontmatter, src note.Frontmatter, given map[string]any) {
	keep := *dst
	*dst = src
	dst.ID, dst.Origin, dst.EditedBy, dst.Created, dst.Updated = keep.ID, keep.Origin, keep.EditedBy, keep.Created, keep.Updated
	dst.ApprovedBy, dst.ApprovedAt = keep.ApprovedBy, keep.ApprovedAt
	if _, ok := given["trust"]; !ok {
		dst.Trust = keep.Trust
	}
}

func fmFields(fm note.Frontmatter) map[string]string {
	raw, _ := yaml.Marshal(fm)
	return map[string]string{"frontmatter": string(raw)}
}

// WritePage creates, overwrites or appends to a note.
func (b *Brain) WritePage(ctx context.Context, c Call, a WritePageArgs) (*WriteResult, error) {
	rel, err := b.notePath(a.Path)
	if err != nil {
		return nil, err
	}
	if len(a.Content) > 1_000_000 {
		return nil, fail(CodeInvalidArgument, "Keep a note under 1,000,000 characters.", "content is too long")
	}
	if err := checkBody("content", a.Content); err != nil {
		return nil, err
	}
	given, warns, err := decodeFrontmatter(a.Frontmatter)
	if err != nil {
		return nil, err
	}
	fields := fmFields(given)
	fields["path"], fields["content"] = rel, a.Content
	if err := scanFields(fields); err != nil {
		return nil, err
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	cur, curDigest, rerr := b.readNote(rel)
	exists := rerr == nil
	switch {
	case a.Mode == "create" && exists:
		return nil, fail(CodeAlreadyExists, "Use mode overwrite or append, or patch-page for a small change.", "%s already exists", rel)
	case a.Mode != "create" && !exists:
		return nil, fail(CodeNotFound, "Use mode create for a new note.", "%s does not exist", rel)
	}
	plain := isControl(rel)
	if a.Mode == "create" && !plain && given.Type == "" {
		return nil, fail(CodeInvalidArgument, "Pass frontmatter.type, one of: "+strings.Join(note.Types(), ", ")+".", "creating a note needs frontmatter.type")
	}
	if plain && len(a.Frontmatter) > 0 {
		warns = append(warns, Warning{Code: "field_ignored", Field: "frontmatter", Message: rel + " is plain text without frontmatter; the frontmatter given was ignored"})
	}
	fmType := given.Type
	if exists && fmType == "" {
		fmType = cur.FM.Type
	}
	trust := ""
	if _, ok := a.Frontmatter["trust"]; ok {
		trust = given.Trust
	}
	reasons := elevation(rel, exists, fmType, trust)
	summary := fmt.Sprintf("%s %s (%s). Content: %d characters, starting with %q.", map[string]string{"create": "Create", "overwrite": "Overwrite", "append": "Append to"}[a.Mode],
		rel, typeOr(fmType), utf8.RuneCountInString(a.Content), preview(a.Content, 60))
	conf, approved, err := b.confirm(c, "write-page", curDigest, reasons, summary)
	if err != nil {
		return nil, err
	}
	res := &WriteResult{DataNotice: DataNotice, Warnings: warns}
	if res.Warnings == nil {
		res.Warnings = []Warning{}
	}
	if conf != nil {
		res.Confirmation, res.NextStep = conf, conf.NextStep
		return res, nil
	}
	var data []byte
	n := cur
	verb := "update"
	switch {
	case plain:
		text := a.Content
		if a.Mode == "append" {
			text = cur.Body + sep(cur.Body) + a.Content
		}
		if rel == ConfigFile {
			if err := validConfig(text); err != nil {
				return nil, err
			}
		}
		if rel == ".gitignore" && !strings.Contains(text, StateDir+"/") {
			return nil, fail(CodeInvalidNote, "Keep the line '.notes/' in .gitignore: it keeps the index and the confirmation key out of git.", ".gitignore must keep ignoring %s/", StateDir)
		}
		data = []byte(text)
		if exists {
			n = &note.Note{Path: rel, Body: text}
		}
	case a.Mode == "create":
		verb = "add"
		n = &note.Note{Path: rel, HasFM: true, FM: given, Body: a.Content}
		if n.FM.Title == "" {
			n.FM.Title = note.Stem(rel)
		}
		b.stampNew(&n.FM, c, approved)
	default:
		if a.Mode == "overwrite" {
			n.Body = a.Content
		} else {
			n.Body = strings.TrimRight(n.Body, "\n") + sep(n.Body) + a.Content
		}
		if len(a.Frontmatter) > 0 {
			overlay(&n.FM, given, a.Frontmatter)
		}
		n.HasFM = true
		res.Warnings = append(res.Warnings, b.stampEdit(&n.FM, c, approved)...)
	}
	if data == nil {
		if probs := n.FM.Validate(); len(probs) > 0 {
			return nil, fail(CodeInvalidNote, "Fix the frontmatter: "+strings.Join(probs, "; ")+".", "%s does not pass the note schema: %s", rel, strings.Join(probs, "; "))
		}
		data = n.Render()
		// Read the final text back: it must parse to the same frontmatter.
		back := note.Parse(rel, data)
		if back.FMError != "" || back.FM.ID != n.FM.ID {
			return nil, fail(CodeInvalidArgument, "Remove frontmatter-like blocks from the content.", "the final text of %s does not read back as one note", rel)
		}
	}
	op := newID()
	title := note.Stem(rel)
	if n != nil {
		title = n.Title()
	}
	w := write{Op: op, Action: "write-page", Approved: approved, Expect: map[string]string{rel: curDigest},
		Subject: fmt.Sprintf("write-page: %s %s: %s", verb, typeOr(fmType), title),
		Lines:   []string{fmt.Sprintf("%s %s: %s", verb, typeOr(fmType), title)},
		Changes: []change{{Path: rel, Data: data}}}
	commit, err := b.commit(ctx, c, w)
	if err != nil {
		return nil, err
	}
	res.Op, res.Path, res.Commit, res.Changed = strp(op), strp(rel), strp(commit), true
	res.Action = strp(verb)
	if n != nil && n.FM.ID != "" {
		res.ID = strp(n.FM.ID)
	}
	res.NextStep = fmt.Sprintf("Written. undo({ op: %q }) reverts it.", op)
	return res, nil
}

func sep(body string) string {
	if strings.TrimSpace(body) == "" {
		return ""
	}
	return "\n\n"
}

func validConfig(text string) error {
	var cfg Config
	if err := json.Unmarshal([]byte(text), &cfg); err != nil {
		return fail(CodeInvalidNote, "Write .brain.json as a JSON object.", ".brain.json would not be valid JSON: %v", err)
	}
	if cfg.SchemaVersion < 1 || cfg.SchemaVersion > SchemaVersion {
		return fail(CodeInvalidNote, "Keep schema_version.", ".brain.json schema_version %d is not supported", cfg.SchemaVersion)
	}
	return nil
}

// PatchPageArgs are patch-page's args.
type PatchPageArgs struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// PatchPage replaces one exact, unique span of a note's body.
func (b *Brain) PatchPage(ctx context.Context, c Call, a PatchPageArgs) (*WriteResult, error) {
	rel, err := b.notePath(a.Path)
	if err != nil {
		return nil, err
	}
	if a.Old == "" {
		return nil, fail(CodeInvalidArgument, "Copy the exact text to replace into old.", "old is empty")
	}
	if err := scanFields(map[string]string{"new": a.New}); err != nil {
		return nil, err
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	n, curDigest, err := b.readNote(rel)
	if err != nil {
		return nil, err
	}
	switch k := strings.Count(n.Body, a.Old); {
	case k == 0:
		return nil, fail(CodePatchNotFound, "Read the note again and copy the span exactly as it is (spaces and line breaks included).", "the text of old does not appear in %s", rel)
	case k > 1:
		e := fail(CodeAmbiguousPatch, "Include more of the surrounding text in old so it appears once.", "the text of old appears %d times in %s", k, rel)
		e.Details = map[string]any{"occurrences": k}
		return nil, e
	}
	body := strings.Replace(n.Body, a.Old, a.New, 1)
	if n.HasFM {
		if err := checkBody("the patched body", body); err != nil {
			return nil, err
		}
	}
	reasons := elevation(rel, true, n.FM.Type, "")
	summary := fmt.Sprintf("Patch %s: replace %q with %q.", rel, preview(a.Old, 60), preview(a.New, 60))
	conf, approved, err := b.confirm(c, "patch-page", curDigest, reasons, summary)
	if err != nil {
		return nil, err
	}
	res := &WriteResult{DataNotice: DataNotice, Warnings: []Warning{}}
	if conf != nil {
		res.Confirmation, res.NextStep = conf, conf.NextStep
		return res, nil
	}
	n.Body = body
	var data []byte
	if isControl(rel) || !n.HasFM {
		data = []byte(body)
	} else {
		res.Warnings = append(res.Warnings, b.stampEdit(&n.FM, c, approved)...)
		data = n.Render()
	}
	op := newID()
	w := write{Op: op, Action: "patch-page", Approved: approved, Expect: map[string]string{rel: curDigest},
		Subject: fmt.Sprintf("patch-page: update %s: %s", typeOr(n.FM.Type), n.Title()),
		Lines:   []string{fmt.Sprintf("update %s: %s", typeOr(n.FM.Type), n.Title())},
		Changes: []change{{Path: rel, Data: data}}}
	commit, err := b.commit(ctx, c, w)
	if err != nil {
		return nil, err
	}
	res.Op, res.Path, res.Commit, res.Changed, res.Action = strp(op), strp(rel), strp(commit), true, strp("update")
	if n.FM.ID != "" {
		res.ID = strp(n.FM.ID)
	}
	res.NextStep = fmt.Sprintf("Patched. undo({ op: %q }) reverts it.", op)
	return res, nil
}

// RelateArgs are relate's args.
type RelateArgs struct {
	From string `json:"from"`
	To   string `json:"to"`
	Type string `json:"type"`
}

// Relation is relate's relation.
type Relation struct {
	From string `json:"from"`
	Type string `json:"type"`
	To   string `json:"to"`
	Link string `json:"link"`
}

// RelateResult is relate's answer.
type RelateResult struct {
	WriteResult
	Relation Relation `json:"relation"`
}

// Relate adds a typed relation from one note to another as a wikilink in
// the first note's frontmatter. Repeating it changes nothing.
func (b *Brain) Relate(ctx context.Context, c Call, a RelateArgs) (*RelateResult, error) {
	if !b.knownRelation(a.Type) {
		return nil, fail(CodeInvalidArgument, "Use one of: "+strings.Join(b.Config.RelationTypes, ", ")+".", "relation type %q is not known to this brain", a.Type)
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	from, err := b.resolveOne(ctx, a.From)
	if err != nil {
		return nil, err
	}
	to, err := b.resolveOne(ctx, a.To)
	if err != nil {
		return nil, err
	}
	if from.Archived || to.Archived {
		return nil, fail(CodeInvalidArgument, "Relate current notes; undo the forget first to use an archived one.", "an archived note cannot be related")
	}
	n, curDigest, err := b.readNote(from.Path)
	if err != nil {
		return nil, err
	}
	link := b.linkTo(ctx, to.Path)
	res := &RelateResult{WriteResult: WriteResult{DataNotice: DataNotice, Warnings: []Warning{}, Path: strp(from.Path), ID: strp(from.ID)},
		Relation: Relation{From: from.Path, Type: a.Type, To: to.Path, Link: link}}
	for _, l := range n.FM.Relations[a.Type] {
		if rows, _, _ := b.ix.Resolve(ctx, l); len(rows) > 0 && rows[0].Path == to.Path {
			res.NextStep = "The relation was already there; nothing changed."
			return res, nil
		}
	}
	reasons := elevation(from.Path, true, from.Type, "")
	if strings.HasPrefix(from.Path, "raw/") {
		reasons = []string{"raw/ keeps sources as they arrived; changing one rewrites the record"}
	}
	if isControl(from.Path) || !n.HasFM && strings.HasPrefix(from.Path, "raw/") {
		return nil, fail(CodeInvalidPath, "Relate from a note with frontmatter.", "%s has no frontmatter to hold relations", from.Path)
	}
	summary := fmt.Sprintf("Add relation %s %s %s.", from.Path, a.Type, to.Path)
	conf, approved, err := b.confirm(c, "relate", curDigest, reasons, summary)
	if err != nil {
		return nil, err
	}
	if conf != nil {
		res.Confirmation, res.NextStep = conf, conf.NextStep
		return res, nil
	}
	if n.FM.Relations == nil {
		n.FM.Relations = map[string][]string{}
	}
	n.FM.Relations[a.Type] = append(n.FM.Relations[a.Type], link)
	n.HasFM = true
	res.Warnings = append(res.Warnings, b.stampEdit(&n.FM, c, approved)...)
	op := newID()
	w := write{Op: op, Action: "relate", Approved: approved, Expect: map[string]string{from.Path: curDigest},
		Subject: fmt.Sprintf("relate: update %s: %s", typeOr(from.Type), n.Title()),
		Lines:   []string{fmt.Sprintf("update %s: %s (%s %s)", typeOr(from.Type), n.Title(), a.Type, link)},
		Changes: []change{{Path: from.Path, Data: n.Render()}}}
	commit, err := b.commit(ctx, c, w)
	if err != nil {
		return nil, err
	}
	res.Op, res.Commit, res.Changed, res.Action = strp(op), strp(commit), true, strp("update")
	res.NextStep = fmt.Sprintf("Related. undo({ op: %q }) removes the relation.", op)
	return res, nil
}

// HandoffArgs are handoff-save's args, as the host passes them: tool.yaml's
// defaults filled in and its bounds and enums checked (see plugin.go).
type HandoffArgs struct {
	Done      []string `json:"done"`
	Next      []string `json:"next"`
	Decisions []string `json:"decisions"`
	Gotchas   []string `json:"gotchas"`
	Scope     string   `json:"scope"`
	Title     string   `json:"title"`
}

// HandoffResult is handoff-save's answer.
type HandoffResult struct {
	DataNotice string    `json:"data_notice"`
	Op         string    `json:"op"`
	Commit     string    `json:"commit"`
	Handoff    NoteRef   `json:"handoff"`
	Episode    *NoteRef  `json:"episode"`
	Supersedes *NoteRef  `json:"supersedes"`
	ExpiresAt  string    `json:"expires_at"`
	Warnings   []Warning `json:"warnings"`
	NextStep   string    `json:"next_step"`
}

// listItem makes one item a single Markdown list line that cannot open a
// section or imitate frontmatter.
func listItem(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.HasPrefix(s, "#") || strings.HasPrefix(s, "---") || strings.HasPrefix(s, ">") || strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") {
		s = "\\" + s
	}
	return "- " + s
}

// HandoffSave writes the session's handoff (and its episode when done is
// not empty) in one commit; the previous current handoff of the scope stops
// being valid.
func (b *Brain) HandoffSave(ctx context.Context, c Call, a HandoffArgs) (*HandoffResult, error) {
	if c.Session == "" {
		return nil, fail(CodeInvalidArgument, "Pass the session_handle recall returned.", "session-handle is required")
	}
	if len(a.Done) == 0 && len(a.Next) == 0 {
		return nil, fail(CodeInvalidArgument, "Say what was done or what is next.", "done and next are both empty")
	}
	fields := map[string]string{"title": a.Title}
	for name, xs := range map[string][]string{"done": a.Done, "next": a.Next, "decisions": a.Decisions, "gotchas": a.Gotchas} {
		if len(xs) > 50 {
			return nil, fail(CodeInvalidArgument, "Keep each list to 50 items.", "%s has %d items", name, len(xs))
		}
		for _, x := range xs {
			if utf8.RuneCountInString(x) > 2000 {
				return nil, fail(CodeInvalidArgument, "Keep items under 2,000 characters.", "an item of %s is too long", name)
			}
		}
		listFields(name, xs, fields)
	}
	if err := validateScope(a.Scope); err != nil {
		return nil, err
	}
	if a.Title == "" {
		first := ""
		if len(a.Next) > 0 {
			first = a.Next[0]
		} else {
			first = a.Done[0]
		}
		a.Title = "Handoff: " + preview(strings.Join(strings.Fields(first), " "), 60)
	}
	if err := validateTitle(a.Title); err != nil {
		return nil, err
	}
	if err := scanFields(fields); err != nil {
		return nil, err
	}
	// Paths and the superseded note are chosen under the write lock, so
	// parallel writers neither collide on a path nor race to a conflict.
	unlock, err := b.lockFresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	today := b.today()
	days := b.Config.Policy.HandoffDays
	if days <= 0 {
		days = 30
	}
	expires := b.Now().Add(time.Duration(days) * 24 * time.Hour).Format(note.DateLayout)
	var body strings.Builder
	section := func(title string, xs []string) {
		if len(xs) == 0 {
			return
		}
		fmt.Fprintf(&body, "## %s\n\n", title)
		for _, x := range xs {
			body.WriteString(listItem(x) + "\n")
		}
		body.WriteString("\n")
	}
	section("Done", a.Done)
	section("Next", a.Next)
	section("Decisions", a.Decisions)
	section("Gotchas", a.Gotchas)
	op := newID()
	w := write{Op: op, Action: "handoff-save", Expect: map[string]string{}}
	res := &HandoffResult{DataNotice: DataNotice, Op: op, ExpiresAt: expires, Warnings: []Warning{}}
	h := &note.Note{HasFM: true, Body: body.String(), FM: note.Frontmatter{Type: "handoff", Title: a.Title, Scope: a.Scope, ExpiresAt: expires, Trust: b.agentTrust()}}
	b.stampNew(&h.FM, c, false)
	h.Path = b.uniquePath("memory/handoffs", today+"-"+note.Slug(a.Title, 50))
	w.Expect[h.Path] = ""
	prev, err := b.ix.List(ctx, index.Filter{Types: []string{"handoff"}, AsOf: today})
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	sort.Slice(prev, func(i, j int) bool { return prev[i].Path > prev[j].Path })
	for _, p := range prev {
		if p.Scope != a.Scope {
			continue
		}
		old, d, err := b.readNote(p.Path)
		if err != nil {
			continue
		}
		h.FM.Supersedes = []string{"[[" + strings.TrimSuffix(p.Path, ".md") + "]]"}
		old.FM.ValidUntil = today
		old.FM.SupersededBy = append(old.FM.SupersededBy, "[["+strings.TrimSuffix(h.Path, ".md")+"]]")
		res.Warnings = append(res.Warnings, b.stampEdit(&old.FM, c, false)...)
		w.Changes = append(w.Changes, change{Path: p.Path, Data: old.Render()})
		w.Expect[p.Path] = d
		res.Supersedes = &NoteRef{ID: p.ID, Path: p.Path}
		break
	}
	w.Changes = append(w.Changes, change{Path: h.Path, Data: h.Render()})
	w.Lines = append(w.Lines, "add handoff: "+a.Title)
	res.Handoff = NoteRef{ID: h.FM.ID, Path: h.Path}
	if len(a.Done) > 0 {
		etitle := "Session: " + preview(strings.Join(strings.Fields(a.Done[0]), " "), 60)
		var eb strings.Builder
		fmt.Fprintf(&eb, "Session %s.\n\n", c.Session)
		eb.WriteString("## Done\n\n")
		for _, x := range a.Done {
			eb.WriteString(listItem(x) + "\n")
		}
		e := &note.Note{HasFM: true, Body: eb.String(), FM: note.Frontmatter{Type: "episode", Title: etitle, Scope: a.Scope, Trust: b.agentTrust()}}
		b.stampNew(&e.FM, c, false)
		dir := "memory/episodes/" + b.Now().Format("2006/01")
		e.Path = b.uniquePath(dir, today+"-"+note.Slug(etitle, 60))
		w.Expect[e.Path] = ""
		w.Changes = append(w.Changes, change{Path: e.Path, Data: e.Render()})
		w.Lines = append(w.Lines, "add episode: "+etitle)
		res.Episode = &NoteRef{ID: e.FM.ID, Path: e.Path}
	}
	w.Subject = "handoff-save: " + a.Title
	commit, err := b.commitLocked(ctx, c, w)
	if err != nil {
		return nil, err
	}
	res.Commit = commit
	res.NextStep = fmt.Sprintf("Handoff saved; the next recall with scope %q delivers it until %s. To redo it, undo({ op: %q }) and save again.", a.Scope, expires, op)
	return res, nil
}

// ForgetArgs are forget's args.
type ForgetArgs struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// ForgetNote describes the note forget acts on.
type ForgetNote struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Title  string `json:"title"`
	Type   string `json:"type"`
	Scope  string `json:"scope"`
	Trust  string `json:"trust"`
	Origin string `json:"origin"`
}

// ForgetResult is forget's answer.
type ForgetResult struct {
	DataNotice     string     `json:"data_notice"`
	Status         string     `json:"status"`
	Note           ForgetNote `json:"note"`
	Summary        string     `json:"summary"`
	ConfirmToken   *string    `json:"confirm_token"`
	TokenExpiresAt *string    `json:"token_expires_at"`
	ConfirmedBy    *string    `json:"confirmed_by"`
	Op             *string    `json:"op"`
	Commit         *string    `json:"commit"`
	ArchivedPath   *string    `json:"archived_path"`
	Warnings       []Warning  `json:"warnings"`
	NextStep       string     `json:"next_step"`
}

// Forget archives a note into memory/_archive/ after the user confirms. It
// never deletes.
func (b *Brain) Forget(ctx context.Context, c Call, a ForgetArgs) (*ForgetResult, error) {
	if strings.ContainsAny(a.Reason, "\r\n") || utf8.RuneCountInString(a.Reason) > 500 {
		return nil, fail(CodeInvalidArgument, "Give the reason in one line of at most 500 characters.", "reason must be one line of at most 500 characters")
	}
	if strings.TrimSpace(a.Reason) == "" {
		return nil, fail(CodeInvalidArgument, "Say why the note should be archived.", "reason is empty")
	}
	if err := scanFields(map[string]string{"reason": a.Reason}); err != nil {
		return nil, err
	}
	// Paths and the superseded note are chosen under the write lock, so
	// parallel writers neither collide on a path nor race to a conflict.
	unlock, err := b.lockFresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	name := a.ID
	if strings.Contains(name, "/") || strings.HasSuffix(name, ".md") {
		rel, err := b.notePath(name)
		if err != nil {
			return nil, err
		}
		name = rel
	}
	row, err := b.resolveOne(ctx, name)
	if err != nil {
		return nil, err
	}
	if row.Archived {
		return nil, fail(CodeInvalidArgument, "It is already archived; undo the forget to bring it back.", "%s is already archived", row.Path)
	}
	if isControl(row.Path) {
		return nil, fail(CodeInvalidPath, "Control files are not archived.", "%s is a control file", row.Path)
	}
	n, curDigest, err := b.readNote(row.Path)
	if err != nil {
		return nil, err
	}
	res := &ForgetResult{DataNotice: DataNotice, Warnings: []Warning{},
		Note: ForgetNote{ID: row.ID, Path: row.Path, Title: row.Title, Type: row.Type, Scope: row.Scope, Trust: row.Trust, Origin: row.Origin}}
	res.Summary = fmt.Sprintf("Archive %s %q (%s, %d lines, origin %s, trust %s) into %s/. Reason: %s. The note leaves search and recall, stays in git, and undo brings it back.",
		typeOr(row.Type), row.Title, row.Path, row.Lines, row.Origin, orDash(row.Trust), note.ArchiveDir, a.Reason)
	conf, _, err := b.confirm(c, "forget", curDigest, []string{"forget archives a note"}, res.Summary)
	if err != nil {
		return nil, err
	}
	if conf != nil {
		res.Status = conf.Status
		res.ConfirmToken, res.TokenExpiresAt = strp(conf.ConfirmToken), strp(conf.TokenExpiresAt)
		res.NextStep = "Show the summary to the user. To archive, call forget again with the same id, the same reason, the same session_handle and confirm_token, within 5 minutes. Never write the token into a note."
		return res, nil
	}
	dest := note.ArchiveDir + "/" + strings.TrimPrefix(row.Path, "memory/")
	dest = b.uniquePath(strings.TrimSuffix(dest[:strings.LastIndexByte(dest, '/')], "/"), note.Stem(dest))
	n.FM.ForgetReason = a.Reason
	n.FM.ArchivedFrom = row.Path
	n.FM.ArchivedAt = b.stamp()
	n.HasFM = true
	if n.FM.ID == "" {
		n.FM.ID = newID()
	}
	op := newID()
	w := write{Op: op, Action: "forget", Approved: true, Expect: map[string]string{row.Path: curDigest, dest: ""},
		Subject: fmt.Sprintf("forget: archive %s: %s", typeOr(row.Type), row.Title),
		Lines:   []string{fmt.Sprintf("archive %s: %s (%s)", typeOr(row.Type), row.Title, a.Reason)},
		Changes: []change{{Path: row.Path, Data: nil}, {Path: dest, Data: n.Render()}}}
	commit, err := b.commitLocked(ctx, c, w)
	if err != nil {
		return nil, err
	}
	res.Status = "archived"
	res.ConfirmedBy, res.Op, res.Commit, res.ArchivedPath = strp("token"), strp(op), strp(commit), strp(dest)
	res.NextStep = fmt.Sprintf("Archived to %s; it no longer appears in search or recall. undo({ op: %q }) brings it back.", dest, op)
	return res, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
