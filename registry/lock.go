package registry

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/manifests"
)

// KeyFile is the name of the approval key in the host's state folder.
const KeyFile = "approval.key"

// lockComment heads every lock file, for the person who opens it.
const lockComment = "toolhost approvals for the plugin folders beside this file: written by `host approve`, checked before every launch; entries are signed with this user's approval key, so an edit here approves nothing"

// LockPath returns the lock file of a plugins folder: beside it, named after
// it (plugins/ → plugins.lock).
func LockPath(root string) string {
	root = filepath.Clean(root)
	return filepath.Join(filepath.Dir(root), filepath.Base(root)+".lock")
}

// Lock is a plugins folder's lock file: the approved state of each tool.
type Lock struct {
	// Comment says what the file is.
	Comment string `json:"comment"`
	// Tools maps a tool's name to its approval.
	Tools map[string]*Approval `json:"tools"`
}

// Approval is what a person approved of one tool: its whole folder's
// digest, its files, what its manifest declares, who approved it and when.
type Approval struct {
	// Folder is the plugin folder's name inside the plugins folder.
	Folder string `json:"folder"`
	// Digest is the FolderDigest's Sum.
	Digest string `json:"digest"`
	// Files are the FolderDigest's Files, so a change can name them.
	Files map[string]string `json:"files"`
	// Actions are the manifest's actions and their flags.
	Actions []ApprovedAction `json:"actions"`
	// Secrets are the names of the secrets the manifest declares.
	Secrets []string `json:"secrets,omitempty"`
	// Declares is the rest of what the manifest declares that a person
	// must judge, one line each; nil in entries written before it existed.
	Declares []string `json:"declares,omitempty"`
	// MCPTools, for an MCP server, are the tool definitions it listed when
	// approved (name, title, description, schemas, annotations): a launch
	// that lists others is refused until a person approves them.
	MCPTools []manifests.MCPTool `json:"mcp_tools,omitempty"`
	// ApprovedBy is the user and the command that approved it.
	ApprovedBy string `json:"approved_by"`
	// ApprovedAt is when.
	ApprovedAt time.Time `json:"approved_at"`
	// Seq is the approval's number in this user's approval sequence (kept
	// in the state folder, see SequenceFile): an entry older than its
	// tool's latest approval is refused. Zero in entries written before
	// the sequence existed.
	Seq uint64 `json:"seq,omitempty"`
	// MAC is the hex HMAC-SHA256, under the user's approval key, of the
	// lock file's absolute path, the tool's name and every field above: an
	// entry is valid only in the lock file it was approved in, so one
	// copied into another plugins folder, where the sequence has no latest
	// approval to compare it with, approves nothing.
	MAC string `json:"mac"`
}

// ApprovedAction is one action as approved.
type ApprovedAction struct {
	Name         string `json:"name"`
	ReadOnly     bool   `json:"read_only"`
	Irreversible bool   `json:"irreversible"`
}

// mac signs lock (the lock file's absolute path, see sequenceKey), name
// and a's fields (all but MAC) with key.
func (a *Approval) mac(lock, name string, key []byte) string {
	c := *a
	c.MAC = ""
	body, _ := json.Marshal(struct {
		Lock string    `json:"lock"`
		Name string    `json:"name"`
		A    *Approval `json:"approval"`
	}{lock, name, &c})
	return macHex(key, body)
}

// valid reports whether a was signed for name in lock with key.
func (a *Approval) valid(lock, name string, key []byte) bool {
	return len(key) > 0 && a.MAC != "" && hmac.Equal([]byte(a.MAC), []byte(a.mac(lock, name, key)))
}

// unboundMAC reports whether a was signed for name with key by a host
// that did not yet sign the lock file's path: such an entry is refused
// like any other that does not verify, but the refusal says why.
func (a *Approval) unboundMAC(name string, key []byte) bool {
	c := *a
	c.MAC = ""
	body, _ := json.Marshal(struct {
		Name string    `json:"name"`
		A    *Approval `json:"approval"`
	}{name, &c})
	return len(key) > 0 && a.MAC != "" && hmac.Equal([]byte(a.MAC), []byte(macHex(key, body)))
}

// ReadLock reads root's lock file; a missing one is an empty lock.
func ReadLock(root string) (*Lock, error) {
	l := &Lock{Comment: lockComment, Tools: map[string]*Approval{}}
	raw, err := os.ReadFile(LockPath(root))
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("registry: read lock: %w", err)
	}
	if err := json.Unmarshal(raw, l); err != nil {
		return nil, fmt.Errorf("registry: read lock: %s is not a toolhost lock file (%v): delete it and approve the plugins again with `%s approve --all`", LockPath(root), err, Command)
	}
	if l.Tools == nil {
		l.Tools = map[string]*Approval{}
	}
	return l, nil
}

// write saves the lock beside root, readable by its owner and group.
func (l *Lock) write(root string) error {
	l.Comment = lockComment
	raw, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("registry: write lock: %w", err)
	}
	if err := writeAtomic(LockPath(root), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("registry: write lock: %w", err)
	}
	return nil
}

// listMCP starts t's MCP server, lists its tools and returns t with them
// as its actions and pinned definitions, and what changed in them since
// the approval t runs under (nil when nothing did).
func (r *Registry) listMCP(t *Tool) (*Tool, []string, error) {
	if r.opts.ListMCPTools == nil {
		return nil, nil, fmt.Errorf("registry: approve %s: this command cannot start an MCP server to list its tools", t.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tools, err := r.opts.ListMCPTools(ctx, t)
	if err != nil {
		return nil, nil, fmt.Errorf("registry: approve %s: list its tools: %w", t.Name(), err)
	}
	acts, err := t.Manifest.MCPActions(tools)
	if err != nil {
		return nil, nil, fmt.Errorf("registry: approve %s: %w", t.Name(), err)
	}
	var changed []string
	if t.approval != nil {
		changed = manifests.DiffMCPTools(t.approval.MCPTools, tools)
	}
	c := *t
	m := *t.Manifest
	m.Actions = acts
	c.Manifest, c.MCPTools = &m, tools
	return &c, changed, nil
}

// ReadKey returns the approval key in stateDir, or nil when there is none.
func ReadKey(stateDir string) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(stateDir, KeyFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("registry: read approval key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("registry: read approval key: %s is damaged: delete it and approve the plugins again", filepath.Join(stateDir, KeyFile))
	}
	return key, nil
}

// ensureKey returns the approval key in stateDir, making one (0600) when
// there is none.
func ensureKey(stateDir string) ([]byte, error) {
	key, err := ReadKey(stateDir)
	if err != nil || key != nil {
		return key, err
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("registry: make approval key: %w", err)
	}
	if err := writeAtomic(filepath.Join(stateDir, KeyFile), []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("registry: make approval key: %w", err)
	}
	return key, nil
}

// approvalOf describes tool as it is now, to be approved.
func approvalOf(t *Tool, d *FolderDigest, by string, at time.Time) *Approval {
	a := &Approval{Folder: filepath.Base(t.Dir), Digest: d.Sum, Files: d.Files, ApprovedBy: by, ApprovedAt: at.UTC().Truncate(time.Second)}
	for i := range t.Manifest.Actions {
		act := &t.Manifest.Actions[i]
		irr, _ := t.Manifest.Irreversible(act)
		a.Actions = append(a.Actions, ApprovedAction{Name: act.Name, ReadOnly: act.ReadOnly, Irreversible: irr})
	}
	for _, s := range t.Manifest.Secrets {
		a.Secrets = append(a.Secrets, s.Name)
	}
	a.Declares = declares(t.Manifest)
	a.MCPTools = t.MCPTools
	return a
}

// declares renders, one "field: value" line each in a fixed order, what a
// manifest declares beyond its actions that a person approving it must
// judge: what runs, what it gets from the environment, and its limits.
func declares(m *manifests.Manifest) []string {
	list := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, ", ")
	}
	orNone := func(d time.Duration, none string) string {
		if d == 0 {
			return none
		}
		return d.String()
	}
	var secrets []string
	for _, s := range m.Secrets {
		req := ""
		if s.Required {
			req = ", required"
		}
		secrets = append(secrets, fmt.Sprintf("%s from $%s%s", s.Name, s.Env, req))
	}
	path := "the system's fixed PATH"
	switch {
	case len(m.ExecPath) > 0:
		path = strings.Join(m.ExecPath, string(filepath.ListSeparator))
	case slices.Contains(m.Env, "PATH"):
		path = "the host's PATH (env lists PATH)"
	}
	memory := "no limit"
	if m.Memory > 0 {
		memory = fmt.Sprintf("%d MiB", m.Memory>>20)
	}
	var mcp []string
	if m.MCP() {
		interp := m.Interpreter
		if interp == "" {
			interp = "none (the entrypoint runs itself)"
		}
		mcp = []string{"protocol: mcp", "interpreter: " + interp, "args: " + list(m.Args), "roots: " + list(m.Roots)}
	}
	return append(mcp,
		"entrypoint: "+m.Entrypoint,
		"env: "+list(m.Env),
		"secrets: "+list(secrets),
		"PATH: "+path,
		"uses: "+list(m.UseNames()),
		"timeout: "+m.Timeout.String(),
		"concurrency: "+fmt.Sprint(m.Concurrency),
		"memory: "+memory,
		"cpu_time: "+orNone(m.CPUTime, "no limit"),
		"idle: "+orNone(m.Idle, "the host's"),
		fmt.Sprintf("eager: %v", m.Eager),
	)
}

// withheld says, one line each, which variables the manifest asks for that
// the host never passes to a plugin.
func withheld(m *manifests.Manifest) []string {
	var out []string
	for _, k := range m.WithheldEnv() {
		out = append(out, fmt.Sprintf("withheld: %s is the host's own (HOST_*): no plugin gets it, whatever its manifest asks", k))
	}
	return out
}

// describeChange says, one line each, what differs between an approval and
// the tool as it is now; old nil means the tool is new.
func describeChange(old, cur *Approval) []string {
	var out []string
	flags := func(a ApprovedAction) string {
		switch {
		case a.ReadOnly:
			return "read-only"
		case a.Irreversible:
			return "irreversible"
		}
		return "reversible"
	}
	if old == nil {
		var acts []string
		for _, a := range cur.Actions {
			acts = append(acts, fmt.Sprintf("%s (%s)", a.Name, flags(a)))
		}
		out = append(out, fmt.Sprintf("actions: %s", strings.Join(acts, ", ")))
		out = append(out, cur.Declares...)
		out = append(out, fmt.Sprintf("files: %d", len(cur.Files)))
		return out
	}
	oldActs := map[string]ApprovedAction{}
	for _, a := range old.Actions {
		oldActs[a.Name] = a
	}
	for _, a := range cur.Actions {
		o, ok := oldActs[a.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("new action: %s (%s)", a.Name, flags(a)))
		case flags(o) != flags(a):
			out = append(out, fmt.Sprintf("action %s was %s, is now %s", a.Name, flags(o), flags(a)))
		}
		delete(oldActs, a.Name)
	}
	var gone []string
	for name := range oldActs {
		gone = append(gone, name)
	}
	sort.Strings(gone)
	for _, name := range gone {
		out = append(out, "removed action: "+name)
	}
	for _, s := range cur.Secrets {
		if !slices.Contains(old.Secrets, s) {
			out = append(out, "new secret: "+s)
		}
	}
	for _, s := range old.Secrets {
		if !slices.Contains(cur.Secrets, s) {
			out = append(out, "removed secret: "+s)
		}
	}
	out = append(out, declaresDiff(old.Declares, cur.Declares)...)
	if files := ChangedFiles(old.Files, cur.Files); len(files) > 0 {
		out = append(out, "changed files: "+strings.Join(files, " "))
	}
	if len(out) == 0 && old.Digest != cur.Digest {
		// The digest covers folders too, which the approval does not list.
		out = append(out, "folders added or removed (every file is as approved)")
	}
	return out
}

// declaresDiff gives the lines of old that cur changed as "- line" and
// their new form as "+ line", field by field; an approval that recorded
// nothing (written before Declares existed) shows every line of cur.
func declaresDiff(old, cur []string) []string {
	field := func(line string) string { f, _, _ := strings.Cut(line, ": "); return f }
	was := map[string]string{}
	for _, l := range old {
		was[field(l)] = l
	}
	var out []string
	for _, l := range cur {
		o, ok := was[field(l)]
		switch {
		case len(old) == 0:
			out = append(out, "+ "+l+" (the old approval did not record it)")
		case !ok:
			out = append(out, "+ "+l)
		case o != l:
			out = append(out, "- "+o, "+ "+l)
		}
	}
	return out
}

// Change is what `host approve` did for one tool.
type Change struct {
	// Tool is the tool's name; Lock the lock file written.
	Tool string
	Lock string
	// Was is the tool's approval state before: new, changed or approved.
	Was ApprovalState
	// What lists what changed (or, for a new tool, what it declares).
	What []string
	// Skipped, when set, says why the tool was not approved (with --all:
	// its folder could not be read, e.g. its binary is not built).
	Skipped string
}

// ApprovalState is a tool's standing against its lock file.
type ApprovalState string

// The approval states a tool can be in.
const (
	// ApprovalOK: the folder and its run copy match the lock.
	ApprovalOK ApprovalState = "approved"
	// ApprovalNew: the lock has no entry for the tool.
	ApprovalNew ApprovalState = "new"
	// ApprovalChanged: the folder, manifest or run copy no longer match
	// the lock, or the entry is not signed with the user's key.
	ApprovalChanged ApprovalState = "changed"
	// ApprovalOff: the lock is off (HOST_DEV=1).
	ApprovalOff ApprovalState = "unchecked"
)

// Approve records the named tools (every tool when names is empty) in the
// lock files of their plugins folders as they are now, signed with the
// user's approval key (made on first use), removes run copies that no
// longer match (they are made again at the next launch), and rescans. by
// says who approved and how. A tool already approved and unchanged is
// reported with Was ApprovalOK and left as it is. It reads every file of
// the folders it approves (whatever Options.VerifyAtLaunch says), and the
// persisted hash cache keeps their sums, so the next start reads none.
func (r *Registry) Approve(names []string, by string) ([]Change, error) {
	return r.approve(names, by, nil)
}

// ApproveDigests is Approve for the named tools only as their folders are
// in want (tool name to FolderDigest Sum): a named tool whose folder, as
// this call reads it, has another digest is reported Skipped and left
// unapproved. The digest compared is the one the approval records, so a
// folder changed after a caller's own check is never approved in its place.
func (r *Registry) ApproveDigests(names []string, want map[string]string, by string) ([]Change, error) {
	if want == nil {
		want = map[string]string{}
	}
	return r.approve(names, by, want)
}

// approve is Approve, and ApproveDigests when want is not nil.
func (r *Registry) approve(names []string, by string, want map[string]string) ([]Change, error) {
	key, err := ensureKey(r.opts.StateDir)
	if err != nil {
		return nil, err
	}
	r.opts.Hashes.useKey(key)
	r.opts.Manifests.useKey(key)
	snap := r.publish(false)
	todo := snap.Tools
	if len(names) > 0 {
		todo = nil
		for _, n := range names {
			t, near := snap.Tool(n)
			if t == nil {
				msg := fmt.Sprintf("registry: approve: no tool or agent named %q", n)
				if len(near) > 0 {
					msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
				}
				return nil, errors.New(msg)
			}
			todo = append(todo, t)
		}
	}
	seqs, err := readSequences(r.opts.StateDir)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	locks := map[string]*Lock{}
	var changes []Change
	for _, t := range todo {
		if t.Digest == "" {
			if len(names) > 0 {
				return nil, fmt.Errorf("registry: approve %s: %s", t.Name(), t.NotReady)
			}
			changes = append(changes, Change{Tool: t.Name(), Was: t.Approval, Skipped: t.NotReady})
			continue
		}
		if sum, ok := want[t.Name()]; want != nil && (!ok || sum != t.Digest) {
			changes = append(changes, Change{Tool: t.Name(), Was: t.Approval, Skipped: "its folder's digest " + t.Digest + " is not the expected " + sum})
			continue
		}
		root := filepath.Dir(t.Dir)
		l := locks[root]
		if l == nil {
			if l, err = ReadLock(root); err != nil {
				return nil, err
			}
			locks[root] = l
		}
		ch := Change{Tool: t.Name(), Lock: LockPath(root), Was: t.Approval}
		var toolsNow []string
		if t.Manifest.MCP() {
			if t, toolsNow, err = r.listMCP(t); err != nil {
				return nil, err
			}
		}
		if t.Approval == ApprovalOK && len(toolsNow) == 0 {
			changes = append(changes, ch)
			continue
		}
		if len(toolsNow) > 0 {
			ch.Was = ApprovalChanged
		}
		old := l.Tools[t.Name()]
		if old != nil && !old.valid(sequenceKey(root), t.Name(), key) {
			ch.What = append(ch.What, "its old entry was not signed with this user's approval key: ignored")
			old = nil
		}
		cur := approvalOf(t, &FolderDigest{Sum: t.Digest, Files: t.Files}, by, now)
		cur.Seq = seqs.next(sequenceKey(root), t.Name())
		cur.MAC = cur.mac(sequenceKey(root), t.Name(), key)
		l.Tools[t.Name()] = cur
		ch.What = append(ch.What, describeChange(old, cur)...)
		ch.What = append(ch.What, toolsNow...)
		ch.What = append(ch.What, withheld(t.Manifest)...)
		copyDir := runCopyDir(r.opts.RunDir, t.Digest)
		if _, err := os.Lstat(copyDir); err == nil {
			if verifyRunCopy(t, copyDir, r.opts.Hashes, nil) != nil {
				if err := RemoveRunCopy(copyDir); err != nil {
					return nil, fmt.Errorf("registry: approve %s: remove the modified run copy: %w", t.Name(), err)
				}
				r.opts.Hashes.Forget(copyDir)
				ch.What = append(ch.What, "its run copy "+copyDir+" had been modified: removed, it is made again at the next launch")
			}
		}
		changes = append(changes, ch)
	}
	// The sequence is saved before the locks: a lock left unwritten then
	// holds an entry older than the record, which is refused (approve
	// again), never an older approval taken as the latest.
	if len(locks) > 0 {
		if err := seqs.write(r.opts.StateDir); err != nil {
			return nil, err
		}
	}
	for root, l := range locks {
		if err := l.write(root); err != nil {
			return nil, err
		}
	}
	r.publish(false)
	return changes, nil
}
