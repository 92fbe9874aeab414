package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"
	"gopkg.in/yaml.v3"

	"github.com/toolhost/toolhost/manifests"
)

// SkillFile is the file name of a skill.
const SkillFile = "SKILL.md"

// Options configure a Registry. The zero value scans nothing.
type Options struct {
	// PluginDirs are the folders whose child folders hold tool.yaml files.
	PluginDirs []string
	// SkillDirs are folders whose child folders hold SKILL.md files; skills
	// inside plugin folders are found too.
	SkillDirs []string
	// Getenv resolves secrets for readiness; nil means os.Getenv.
	Getenv func(string) string
	// Logger receives scan and watch messages; nil discards them.
	Logger hclog.Logger
	// Debounce is how long the watcher waits for a burst of changes to end
	// (default 150ms).
	Debounce time.Duration
	// Rescan is the period of the safety-net rescan (default 30s).
	Rescan time.Duration
	// RequireApproval checks every tool against the lock file beside its
	// plugins folder (LockPath): a tool without a valid entry there is not
	// ready, "new — needs approval"; one whose folder, manifest or run copy
	// no longer matches its entry is "changed — needs approval". The host
	// turns it on unless HOST_DEV=1.
	RequireApproval bool
	// StateDir holds the user's approval key (default DefaultStateDir()).
	StateDir string
	// RunDir holds the run copies the supervisor launches (default
	// DefaultRunDir()); with RequireApproval a run copy that no longer
	// matches makes its tool changed.
	RunDir string
	// Hashes caches file hashes between scans (default: in memory).
	Hashes *HashCache
	// Manifests keeps parsed manifests between runs (default: none; a
	// rescan still parses only what changed since the last scan).
	Manifests *ManifestCache
	// VerifyAtLaunch, with RequireApproval, makes a scan read no file the
	// hash cache has not seen: such a file of an approved tool is taken at
	// its approved sum, the tool is marked Unverified, and RunCopy reads
	// the folder before its first launch, refusing it when it no longer
	// matches. A file the cache saw under another stat (changed since) is
	// still read, so a change made while the host runs shows in the scan.
	// `host serve` turns it on: a start never hashes a plugin it does not
	// launch. Without RequireApproval it changes nothing.
	VerifyAtLaunch bool
	// ListMCPTools starts an MCP server's plugin (protocol: mcp) from its
	// folder and lists its tool definitions, which Approve pins; without
	// it such a plugin cannot be approved.
	ListMCPTools func(ctx context.Context, t *Tool) ([]manifests.MCPTool, error)
}

// Command is the host command as the person runs it (`bin/host`, or
// `host` when on PATH), for the commands the registry's messages tell them
// to run; the host sets it at start.
var Command = "host"

// DefaultStateDir is $XDG_STATE_HOME/toolhost (default
// ~/.local/state/toolhost): the approval key, the audit log and the host's
// other records that outlive a session, such as disabled tools.
func DefaultStateDir() string { return xdgDir("XDG_STATE_HOME", ".local", "state") }

// DefaultDataDir is $XDG_DATA_HOME/toolhost (default
// ~/.local/share/toolhost): the user's own plugins/ and skills/, found
// after the installation's.
func DefaultDataDir() string { return xdgDir("XDG_DATA_HOME", ".local", "share") }

// xdgDir is toolhost/ in the folder the XDG base-directory variable names
// or, when it is unset, in the home folder's default for it.
func xdgDir(variable string, underHome ...string) string {
	if d := os.Getenv(variable); d != "" {
		return filepath.Join(d, "toolhost")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(append(append([]string{home}, underHome...), "toolhost")...)
}

// DefaultCacheDir is the user cache folder's toolhost/ (default
// ~/.cache/toolhost): run copies and the hash cache.
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "toolhost")
	}
	return filepath.Join(os.TempDir(), "toolhost-cache")
}

// HashCachePath is the persisted hash cache in a cache folder (such as
// DefaultCacheDir()): the file `host approve` fills and `host serve` reads.
func HashCachePath(cacheDir string) string { return filepath.Join(cacheDir, "hashes.json") }

// DefaultRunDir is DefaultCacheDir()'s run/, where plugins run from.
func DefaultRunDir() string { return filepath.Join(DefaultCacheDir(), "run") }

// Registry holds the current snapshot and keeps it up to date.
type Registry struct {
	opts Options
	cur  atomic.Pointer[Snapshot]

	scanMu sync.Mutex // one scan at a time
	// parsed holds the last scan's manifests by path, and skills the
	// last scan's skills, each with the sha256 of the bytes it was parsed
	// from: a rescan parses only what changed. Guarded by scanMu.
	parsed map[string]parsedManifest
	skills map[string]parsedSkill

	subMu sync.Mutex
	subs  []chan struct{}
}

// New returns a Registry with an empty snapshot; call Scan or Watch.
func New(opts Options) *Registry {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.Rescan <= 0 {
		opts.Rescan = 30 * time.Second
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir()
	}
	if opts.RunDir == "" {
		opts.RunDir = DefaultRunDir()
	}
	if opts.Hashes == nil {
		opts.Hashes = NewHashCache("", nil)
	}
	r := &Registry{opts: opts}
	r.cur.Store(newSnapshot(nil, nil, nil, ""))
	return r
}

// Snapshot returns the current snapshot. It never blocks.
func (r *Registry) Snapshot() *Snapshot { return r.cur.Load() }

// Changes returns a channel that receives a value (coalesced) after each
// scan that changed the digest.
func (r *Registry) Changes() <-chan struct{} {
	ch := make(chan struct{}, 1)
	r.subMu.Lock()
	r.subs = append(r.subs, ch)
	r.subMu.Unlock()
	return ch
}

// Scan reads every plugin and skill folder now and publishes the result.
func (r *Registry) Scan() *Snapshot {
	return r.publish(r.opts.RequireApproval && r.opts.VerifyAtLaunch)
}

// publish scans (lazy: as Options.VerifyAtLaunch says) and publishes the
// result, telling the subscribers when it changed.
func (r *Registry) publish(lazy bool) *Snapshot {
	r.scanMu.Lock()
	defer r.scanMu.Unlock()
	snap := r.scan(lazy)
	old := r.cur.Swap(snap)
	if old.Digest != snap.Digest {
		r.opts.Logger.Debug("registry changed", "tools", len(snap.Tools), "skills", len(snap.Skills), "broken", len(snap.Broken))
		r.subMu.Lock()
		for _, ch := range r.subs {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
		r.subMu.Unlock()
	}
	return snap
}

// parsedManifest is a manifest as one scan parsed it.
type parsedManifest struct {
	sum [sha256.Size]byte
	m   *manifests.Manifest
	err error
}

// parsedSkill is a SKILL.md as one scan parsed it.
type parsedSkill struct {
	sum [sha256.Size]byte
	sk  *Skill
	err error
}

// manifestRead is one plugin folder's tool.yaml as a scan read it.
type manifestRead struct {
	dir, path string
	// missing: the folder has no tool.yaml; readErr: it could not be read.
	missing bool
	readErr error
	p       parsedManifest
}

// readManifests reads and parses the tool.yaml of each of dirs, in order,
// up to GOMAXPROCS at once: parsing is most of a start's CPU. A manifest
// whose bytes the last scan parsed is not parsed again.
func (r *Registry) readManifests(dirs []string) []manifestRead {
	out := make([]manifestRead, len(dirs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, dir := range dirs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			out[i] = r.readManifest(dir)
		}()
	}
	wg.Wait()
	return out
}

// readManifest reads and parses dir's tool.yaml (r.parsed is only read).
func (r *Registry) readManifest(dir string) manifestRead {
	rm := manifestRead{dir: dir, path: filepath.Join(dir, manifests.FileName)}
	data, err := os.ReadFile(rm.path)
	rm.p.sum = sha256.Sum256(data)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rm.missing = true
	case err != nil:
		rm.readErr = err
	default:
		if p, ok := r.parsed[rm.path]; ok && p.sum == rm.p.sum {
			rm.p = p
		} else if m := r.opts.Manifests.get(rm.path, rm.p.sum); m != nil {
			rm.p.m = m
		} else {
			rm.p.m, rm.p.err = manifests.ParseBytes(rm.path, data)
			if rm.p.err == nil {
				r.opts.Manifests.put(rm.path, rm.p.sum, rm.p.m)
			}
		}
	}
	return rm
}

func (r *Registry) scan(lazy bool) *Snapshot {
	var tools []*Tool
	var broken []Broken
	seen := map[string]string{}
	parsed := make(map[string]parsedManifest, len(r.parsed))
	var skillDirs []string
	digest := sha256.New()
	var key []byte
	var keyErr error
	var seqs *sequences
	if r.opts.RequireApproval {
		key, keyErr = ReadKey(r.opts.StateDir)
		if keyErr == nil {
			seqs, keyErr = readSequences(r.opts.StateDir)
		}
	}
	for _, root := range r.opts.PluginDirs {
		entries, err := os.ReadDir(root)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				broken = append(broken, Broken{Path: root, Error: fmt.Sprintf("read plugin folder: %v", err)})
			}
			continue
		}
		var lk lockView
		if r.opts.RequireApproval {
			lk.path = LockPath(root)
			lk.abs = sequenceKey(root)
			lk.lock, lk.err = ReadLock(root)
			lk.key = key
			if seqs != nil {
				lk.latest = seqs.Latest[lk.abs]
			}
			if lk.err == nil {
				lk.err = keyErr
			}
		}
		var dirs []string
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if isDir(dir) {
				skillDirs = append(skillDirs, dir)
				dirs = append(dirs, dir)
			}
		}
		for _, rm := range r.readManifests(dirs) {
			if rm.missing {
				continue
			}
			dir, path, sum := rm.dir, rm.path, rm.p.sum
			fmt.Fprintf(digest, "manifest %s %x\n", path, sum)
			if rm.readErr != nil {
				broken = append(broken, Broken{Path: path, Error: rm.readErr.Error()})
				continue
			}
			parsed[path] = rm.p
			m, err := rm.p.m, rm.p.err
			if err != nil {
				broken = append(broken, Broken{Path: path, Error: err.Error()})
				continue
			}
			if first, dup := seen[m.Name]; dup {
				broken = append(broken, Broken{Path: path, Error: fmt.Sprintf("%s: name: %q is already taken by %s", path, m.Name, first)})
				continue
			}
			seen[m.Name] = path
			t := r.loadTool(m, dir, hex.EncodeToString(sum[:]), &lk, lazy)
			fmt.Fprintf(digest, "binary %s %s %s %v %s\n", t.Binary, t.SHA256, t.Digest, t.Ready, t.NotReady)
			tools = append(tools, t)
		}
	}
	r.parsed = parsed
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name() < tools[j].Name() })
	checkUses(tools)
	skills, skillBroken := r.scanSkills(append(append([]string{}, r.opts.SkillDirs...), skillDirs...), digest)
	broken = append(broken, skillBroken...)
	for _, b := range broken {
		fmt.Fprintf(digest, "broken %s %s\n", b.Path, b.Error)
	}
	if err := r.opts.Hashes.Save(); err != nil {
		r.opts.Logger.Debug("hash cache not saved; files are hashed again next run", "error", err)
	}
	if err := r.opts.Manifests.Save(); err != nil {
		r.opts.Logger.Debug("manifest cache not saved; manifests are parsed again next run", "error", err)
	}
	return newSnapshot(tools, skills, broken, hex.EncodeToString(digest.Sum(nil)))
}

// lockView is a plugins folder's lock as one scan reads it.
type lockView struct {
	path string
	// abs is the lock file's absolute path, which its entries' MACs sign.
	abs  string
	lock *Lock
	key  []byte
	// latest is each tool's latest approval number in this lock, from
	// the state folder's sequence record.
	latest map[string]uint64
	err    error
}

// checkUses marks an agent not ready when a tool or action its uses names
// is missing or not ready itself, saying which.
func checkUses(tools []*Tool) {
	byName := map[string]*Tool{}
	ready := map[string]bool{}
	for _, t := range tools {
		byName[t.Name()] = t
		ready[t.Name()] = t.Ready
	}
	for _, t := range tools {
		if !t.Ready || len(t.Manifest.Uses) == 0 {
			continue
		}
		var why []string
		for _, u := range t.Manifest.Uses {
			used := byName[u.Tool]
			switch {
			case used == nil:
				why = append(why, fmt.Sprintf("it uses %s, which is not installed (%s: uses)", u.Tool, t.Manifest.Path))
			case u.Action != "" && used.Manifest.Action(u.Action) == nil:
				why = append(why, fmt.Sprintf("it uses %s, but %s has no action %q (%s: uses)", u, u.Tool, u.Action, t.Manifest.Path))
			case !ready[u.Tool]:
				why = append(why, fmt.Sprintf("it uses %s, which is not ready", u.Tool))
			}
		}
		if len(why) > 0 {
			t.Ready = false
			t.NotReady = strings.Join(why, "; ")
		}
	}
}

// entrypointFile is the file the manifest's entrypoint names in dir. On
// Windows, where a program's file ends in .exe and no file is marked
// executable, an entrypoint without an extension names NAME.exe when no
// file NAME exists: the same tool.yaml serves every system.
func entrypointFile(dir, entrypoint, goos string) string {
	p := filepath.Join(dir, filepath.FromSlash(entrypoint))
	if goos != "windows" || filepath.Ext(p) != "" {
		return p
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return p + ".exe"
}

// loadTool resolves a manifest's binary, folder digest and readiness;
// manifestSum is the hex sha256 of the tool.yaml bytes m was parsed from;
// lazy reads only what Options.VerifyAtLaunch says.
func (r *Registry) loadTool(m *manifests.Manifest, dir, manifestSum string, lk *lockView, lazy bool) *Tool {
	t := &Tool{Manifest: m, Dir: dir, Binary: entrypointFile(dir, m.Entrypoint, runtime.GOOS), Approval: ApprovalOff}
	st, err := os.Stat(t.Binary)
	switch {
	case err != nil:
		t.NotReady = fmt.Sprintf("%s not found — run make (or build the plugin into its folder)", t.Binary)
		return t
	case st.IsDir():
		t.NotReady = fmt.Sprintf("%s is a folder; want the entrypoint file", t.Binary)
		return t
	case runtime.GOOS != "windows" && st.Mode()&0o111 == 0 && m.Interpreter == "":
		t.NotReady = fmt.Sprintf("%s is not an executable file — chmod +x it or rebuild it", t.Binary)
		return t
	}
	if r.opts.RequireApproval {
		t.approval = r.lockEntry(t, lk)
		if t.approval == nil && lazy {
			// Not approved: it cannot run, and there is nothing to check
			// its files against; `host approve` reads them.
			return t
		}
	}
	var approvedFiles map[string]string
	if lazy {
		approvedFiles = t.approval.Files
	}
	d, unverified, err := digestFolder(dir, r.opts.Hashes, approvedFiles, map[string]string{manifests.FileName: manifestSum})
	if err != nil {
		t.NotReady = err.Error()
		return t
	}
	t.Digest, t.Files, t.Unverified = d.Sum, d.Files, unverified
	// The plugin runs from its run copy, which holds the digest's files: an
	// entrypoint the digest leaves out (an interpreter cache's name) is not
	// in it, nor covered by the approval.
	rel, err := filepath.Rel(dir, t.Binary)
	sum := d.Files[filepath.ToSlash(rel)]
	if err != nil || sum == "" {
		t.NotReady = fmt.Sprintf("%s is left out of the plugin's run copy, as every interpreter cache is (__pycache__, *.pyc, .DS_Store and the like) — rename it and its entrypoint in tool.yaml", t.Binary)
		return t
	}
	t.SHA256 = strings.TrimSuffix(sum, executableMark)
	if m.SHA256 != "" && !strings.EqualFold(m.SHA256, t.SHA256) {
		t.NotReady = fmt.Sprintf("%s has sha256 %s but tool.yaml pins %s — rebuild it or update the pin", t.Binary, t.SHA256, m.SHA256)
		return t
	}
	if m.MCP() && !pinnedActions(t) {
		return t
	}
	if r.opts.RequireApproval && (t.approval == nil || !r.matches(t, d, lazy)) {
		return t
	}
	var missing []string
	for _, s := range m.Secrets {
		if s.Required && r.opts.Getenv(s.Env) == "" {
			missing = append(missing, fmt.Sprintf("secret %s needs environment variable %s", s.Name, s.Env))
		}
	}
	if len(missing) > 0 {
		t.NotReady = strings.Join(missing, "; ")
		return t
	}
	t.Ready = true
	return t
}

// pinnedActions gives an MCP server's tool its actions: the tool
// definitions its approval pinned, through the manifest's overrides. It
// reports false, with t not ready, when there are none to give.
func pinnedActions(t *Tool) bool {
	if t.approval == nil {
		if t.NotReady == "" {
			t.NotReady = "an MCP server's actions are its tools as approved, and it has no approval"
			t.NextStep = fmt.Sprintf("a person checks %s and approves it with `%s approve %s`, which lists its tools", t.Dir, Command, t.Name())
		}
		return false
	}
	acts, err := t.Manifest.MCPActions(t.approval.MCPTools)
	if err != nil {
		t.NotReady = err.Error()
		t.NextStep = "fix the manifest's actions, then approve it again"
		return false
	}
	m := *t.Manifest
	m.Actions = acts
	t.Manifest = &m
	t.MCPTools = t.approval.MCPTools
	return true
}

// notApproved marks t not approved, in state, saying why and how a person
// approves it.
func notApproved(t *Tool, state ApprovalState, why string) {
	t.Approval = state
	t.NotReady = fmt.Sprintf("%s — needs approval: %s", state, why)
	t.NextStep = fmt.Sprintf("a person checks %s and approves it with `%s approve %s`", t.Dir, Command, t.Name())
}

// lockEntry returns t's valid, signed entry in its lock, or nil after
// marking t new or changed.
func (r *Registry) lockEntry(t *Tool, lk *lockView) *Approval {
	name := t.Name()
	if lk.err != nil {
		notApproved(t, ApprovalChanged, lk.err.Error())
		return nil
	}
	a := lk.lock.Tools[name]
	switch {
	case a == nil:
		notApproved(t, ApprovalNew, fmt.Sprintf("%s has no approval for it", lk.path))
		return nil
	case a.unboundMAC(name, lk.key):
		notApproved(t, ApprovalChanged, fmt.Sprintf("its entry in %s was signed by an older toolhost that did not bind an entry to its lock file", lk.path))
		return nil
	case !a.valid(lk.abs, name, lk.key):
		notApproved(t, ApprovalChanged, fmt.Sprintf("its entry in %s is not signed with this user's approval key for this lock file (edited by hand, approved by another user, or approved in another lock file and copied here)", lk.path))
		return nil
	case a.Seq < lk.latest[name]:
		notApproved(t, ApprovalChanged, fmt.Sprintf("its entry in %s is approval %d, older than its latest approval (%d, %s): an older lock file was put back, so the folder it approved runs only when a person approves it again",
			lk.path, a.Seq, lk.latest[name], SequenceFile))
		return nil
	}
	return a
}

// matches checks t's folder digest d and its run copy against its lock
// entry, setting t.Approval, and NotReady and NextStep when they differ.
// lazy checks the run copy as the scan checks the folder.
func (r *Registry) matches(t *Tool, d *FolderDigest, lazy bool) bool {
	if d.Sum != t.approval.Digest {
		notApproved(t, ApprovalChanged, changedSince(t, d))
		return false
	}
	copyDir := runCopyDir(r.opts.RunDir, d.Sum)
	if _, err := os.Lstat(copyDir); err == nil {
		var approvedFiles map[string]string
		if lazy {
			approvedFiles = t.approval.Files
		}
		if err := verifyRunCopy(t, copyDir, r.opts.Hashes, approvedFiles); err != nil {
			notApproved(t, ApprovalChanged, err.Error())
			return false
		}
	}
	t.Approval = ApprovalOK
	return true
}

// changedSince says what differs between t's approval and its folder as d
// found it, and who approved it when.
func changedSince(t *Tool, d *FolderDigest) string {
	a := t.approval
	return strings.Join(describeChange(a, approvalOf(t, d, "", time.Time{})), "; ") + " since " + a.ApprovedBy + " approved it at " + a.ApprovedAt.Format(time.RFC3339)
}

// scanSkills reads SKILL.md in each dir's child folders and in the dirs
// themselves (plugin folders).
func (r *Registry) scanSkills(dirs []string, digest io.Writer) ([]*Skill, []Broken) {
	var skills []*Skill
	var broken []Broken
	seen := map[string]bool{}
	parsed := make(map[string]parsedSkill, len(r.skills))
	defer func() { r.skills = parsed }()
	add := func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		data, err := os.ReadFile(path)
		if err != nil {
			return
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(digest, "skill %s %x\n", path, sum)
		p, ok := r.skills[path]
		if !ok || p.sum != sum {
			p = parsedSkill{sum: sum}
			p.sk, p.err = parseSkill(path, data)
		}
		parsed[path] = p
		sk, err := p.sk, p.err
		if err != nil {
			broken = append(broken, Broken{Path: path, Error: err.Error()})
			return
		}
		skills = append(skills, sk)
	}
	for _, d := range dirs {
		add(filepath.Join(d, SkillFile))
		add(filepath.Join(d, "skills", SkillFile))
		for _, sub := range []string{d, filepath.Join(d, "skills")} {
			entries, _ := os.ReadDir(sub)
			for _, e := range entries {
				if e.IsDir() {
					add(filepath.Join(sub, e.Name(), SkillFile))
				}
			}
		}
	}
	// Stable: of two skills with one name, the one found first is served.
	sort.SliceStable(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	var out []*Skill
	names := map[string]string{}
	for _, sk := range skills {
		if first, dup := names[sk.Name]; dup {
			broken = append(broken, Broken{Path: sk.Path, Error: fmt.Sprintf("%s: name: %q is already taken by %s", sk.Path, sk.Name, first)})
			continue
		}
		names[sk.Name] = sk.Path
		out = append(out, sk)
	}
	return out, broken
}

// parseSkill reads a SKILL.md's frontmatter (name and description).
func parseSkill(path string, data []byte) (*Skill, error) {
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, fmt.Errorf("%s:1: frontmatter: a skill starts with a --- block holding name and description", path)
	}
	front, _, ok := bytes.Cut(rest, []byte("\n---"))
	if !ok {
		return nil, fmt.Errorf("%s:1: frontmatter: the --- block is not closed", path)
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal(front, &fm); err != nil {
		return nil, fmt.Errorf("%s: frontmatter: %w", path, err)
	}
	if fm.Name == "" || fm.Description == "" {
		return nil, fmt.Errorf("%s:2: frontmatter: name and description are required", path)
	}
	return &Skill{Name: fm.Name, Description: strings.TrimSpace(fm.Description), Path: path}, nil
}

// Body returns the skill's whole Markdown.
func (s *Skill) Body() (string, error) {
	b, err := os.ReadFile(s.Path)
	if err != nil {
		return "", fmt.Errorf("registry: read skill %s: %w", s.Name, err)
	}
	return string(b), nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Watch scans, then keeps the snapshot current until ctx ends: fsnotify
// events (debounced) trigger a rescan, and a periodic rescan catches what
// the watcher misses.
func (r *Registry) Watch(ctx context.Context) error {
	w, err := r.StartWatch()
	if err != nil {
		return err
	}
	return w.Run(ctx)
}

// Watcher keeps a registry's snapshot current; StartWatch makes one.
type Watcher struct {
	r *Registry
	w *fsnotify.Watcher
}

// StartWatch watches the plugin and skill folders, then scans once and
// publishes the snapshot, so a change made once it is out is always seen:
// the start's one scan, which Run goes on from without scanning again.
// The caller must Run or Close the Watcher.
func (r *Registry) StartWatch() (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("registry: watch: %w", err)
	}
	r.rewatch(w)
	r.Scan()
	r.rewatch(w)
	return &Watcher{r: r, w: w}, nil
}

// Close stops watching, for a Watcher that is not Run.
func (w *Watcher) Close() error { return w.w.Close() }

// Run rescans on each debounced burst of changes and periodically, until
// ctx ends; then it closes the watcher.
func (w *Watcher) Run(ctx context.Context) error {
	r := w.r
	defer w.w.Close()
	ticker := time.NewTicker(r.opts.Rescan)
	defer ticker.Stop()
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.w.Events:
			if !ok {
				return nil
			}
			if !r.relevant(ev.Name) {
				continue
			}
			r.opts.Logger.Trace("fs event", "event", ev.String())
			debounce = time.After(r.opts.Debounce)
		case err, ok := <-w.w.Errors:
			if !ok {
				return nil
			}
			r.opts.Logger.Warn("watcher error; relying on periodic rescan", "error", err)
		case <-debounce:
			debounce = nil
			r.Scan()
			r.rewatch(w.w)
		case <-ticker.C:
			r.Scan()
			r.rewatch(w.w)
		}
	}
}

// relevant reports whether a change at path can change the snapshot: a
// plugin or skill folder, something inside one, or a lock file.
func (r *Registry) relevant(path string) bool {
	path = filepath.Clean(path)
	for _, root := range r.opts.PluginDirs {
		root = filepath.Clean(root)
		if path == root || strings.HasPrefix(path, root+string(filepath.Separator)) || path == LockPath(root) {
			return true
		}
	}
	for _, root := range r.opts.SkillDirs {
		root = filepath.Clean(root)
		if path == root || strings.HasPrefix(path, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// rewatch makes the watcher cover every root and child folder (new plugin
// folders appear as children of a root).
func (r *Registry) rewatch(w *fsnotify.Watcher) {
	want := map[string]bool{}
	if r.opts.RequireApproval {
		// A lock file lives beside its plugins folder: watch the folder
		// holding it (relevant drops its other events).
		for _, root := range r.opts.PluginDirs {
			if p := filepath.Dir(filepath.Clean(root)); isDir(p) {
				want[p] = true
			}
		}
	}
	for _, root := range append(append([]string{}, r.opts.PluginDirs...), r.opts.SkillDirs...) {
		if !isDir(root) {
			// Watch the nearest existing parent so the root's creation is seen.
			if p := filepath.Dir(root); isDir(p) {
				want[p] = true
			}
			continue
		}
		want[root] = true
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.IsDir() {
				want[filepath.Join(root, e.Name())] = true
			}
		}
	}
	have := map[string]bool{}
	for _, p := range w.WatchList() {
		have[p] = true
		if !want[p] {
			_ = w.Remove(p)
		}
	}
	for p := range want {
		if !have[p] {
			if err := w.Add(p); err != nil {
				r.opts.Logger.Debug("watch folder", "path", p, "error", err)
			}
		}
	}
}
