package brain

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The in-process commit: what `git add -A -- PATHS` + `git commit -- PATHS`
// do for a brain write, without starting git. It writes loose objects
// (zlib + SHA-1), updates .git/index for PATHS only (whatever else a person
// staged stays staged), and moves the branch with git's lock protocol
// (<ref>.lock created exclusively, written, renamed) plus its reflog lines.
// Hooks do not run, as they do not for the git path (core.hooksPath is
// /dev/null there). Anything it does not handle — no branch yet, a detached
// HEAD, an index version 4 or with a required extension (split index,
// sparse), unmerged entries, .gitattributes (filters, eol), a symlink, a
// lock held by someone else — makes it step aside before changing anything
// (errSlowPath) and the write goes through the git command line instead.

// errSlowPath says the in-process commit does not handle this repository's
// state; nothing was changed and the caller runs git.
var errSlowPath = errors.New("brain: in-process commit does not apply")

func slowPath(why string) error { return fmt.Errorf("%w: %s", errSlowPath, why) }

// gitIdent is the fixed identity of every commit the brain makes (the same
// as gitEnv gives the git command line).
const gitIdent = "notes <notes@toolhost.local>"

type oid [20]byte

func (o oid) String() string { return hex.EncodeToString(o[:]) }

func parseOID(s string) (oid, bool) {
	var o oid
	if len(s) != 40 {
		return o, false
	}
	if _, err := hex.Decode(o[:], []byte(s)); err != nil {
		return o, false
	}
	return o, true
}

// treeEntry is one name in a tree object.
type treeEntry struct {
	mode string // as git writes it in a tree: 100644, 100755, 120000, 40000, 160000
	id   oid
}

func (e treeEntry) isTree() bool { return e.mode == "40000" }

// headTree is the tree of one commit, folder by folder ("" is the root),
// as `git ls-tree -r -t` lists it.
type headTree struct {
	commit string
	root   oid
	dirs   map[string]map[string]treeEntry
}

// treeCache keeps the last commit's tree so consecutive writes need no git
// process at all; a HEAD moved by anyone else reloads it.
type treeCache struct {
	mu sync.Mutex
	t  *headTree
}

// load returns the tree of commit, from the cache or from git ls-tree.
func (c *treeCache) load(ctx context.Context, g gitRunner, commit string) (*headTree, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t != nil && c.t.commit == commit {
		return c.t, nil
	}
	out, err := g.run(ctx, "ls-tree", "-r", "-t", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	t := &headTree{commit: commit, dirs: map[string]map[string]treeEntry{"": {}}}
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("brain: read tree of %s: unexpected line %q", commit, rec)
		}
		id, ok := parseOID(f[2])
		if !ok {
			return nil, fmt.Errorf("brain: read tree of %s: unexpected object id %q", commit, f[2])
		}
		mode := strings.TrimLeft(f[0], "0")
		if f[1] == "tree" {
			mode = "40000"
			if t.dirs[p] == nil {
				t.dirs[p] = map[string]treeEntry{}
			}
		}
		dir, name := splitPath(p)
		if t.dirs[dir] == nil {
			t.dirs[dir] = map[string]treeEntry{}
		}
		t.dirs[dir][name] = treeEntry{mode: mode, id: id}
	}
	t.root = hashObject("tree", treeBytes(t.dirs[""]))
	c.t = t
	return t, nil
}

// put records the tree of a commit just made, so the next write starts
// from it.
func (c *treeCache) put(t *headTree) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func splitPath(p string) (dir, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// treeBytes serialises a folder as a git tree object: entries in git's
// order, where a folder's name sorts as if it ended in "/".
func treeBytes(entries map[string]treeEntry) []byte {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	key := func(n string) string {
		if entries[n].isTree() {
			return n + "/"
		}
		return n
	}
	sort.Slice(names, func(i, j int) bool { return key(names[i]) < key(names[j]) })
	var b bytes.Buffer
	for _, n := range names {
		e := entries[n]
		b.WriteString(e.mode)
		b.WriteByte(' ')
		b.WriteString(n)
		b.WriteByte(0)
		b.Write(e.id[:])
	}
	return b.Bytes()
}

func hashObject(kind string, data []byte) oid {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	var o oid
	copy(o[:], h.Sum(nil))
	return o
}

// writeObject stores a loose object unless the repository has it loose
// already (a packed copy is harmless: git prefers neither).
func writeObject(gitDir, kind string, data []byte) (oid, error) {
	id := hashObject(kind, data)
	hexID := id.String()
	dir := filepath.Join(gitDir, "objects", hexID[:2])
	final := filepath.Join(dir, hexID[2:])
	if _, err := os.Stat(final); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return id, fmt.Errorf("brain: write object %s: %w", hexID, err)
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	fmt.Fprintf(zw, "%s %d\x00", kind, len(data))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return id, fmt.Errorf("brain: write object %s: %w", hexID, err)
	}
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return id, fmt.Errorf("brain: write object %s: %w", hexID, err)
	}
	_, werr := tmp.Write(z.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o444)); err != nil {
		os.Remove(tmp.Name())
		return id, fmt.Errorf("brain: write object %s: %w", hexID, err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return id, fmt.Errorf("brain: write object %s: %w", hexID, err)
	}
	return id, nil
}

// cleanMessage is git's whitespace clean-up of a commit message given with
// -m: trailing spaces cut, blank lines at the ends dropped, runs of blank
// lines collapsed to one, a final newline.
func cleanMessage(msg string) string {
	var out []string
	blank := false
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimRight(l, " \t\r\v\f")
		if l == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// gitTime is a signature's time as git writes it: seconds and the local
// offset.
func gitTime(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%d %c%02d%02d", t.Unix(), sign, off/3600, off/60%60)
}

// indexEntry is one entry of .git/index: its fixed-size head (stat data,
// mode, object id, flags) kept as read, and its path.
type indexEntry struct {
	head []byte // 62 bytes, 64 with extended flags
	name string
}

func (e indexEntry) stage() int { return int(binary.BigEndian.Uint16(e.head[60:62])>>12) & 3 }

// gitIndex is .git/index in versions 2 and 3, without its optional
// extensions (the cache tree, the untracked cache, …), which git rebuilds.
type gitIndex struct {
	version uint32
	entries []indexEntry
}

// readIndex parses .git/index; errSlowPath for what it does not handle.
func readIndex(file string) (*gitIndex, error) {
	raw, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return &gitIndex{version: 2}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("brain: read git index: %w", err)
	}
	if len(raw) < 32 || string(raw[:4]) != "DIRC" {
		return nil, slowPath("the index is not a git index")
	}
	body, sum := raw[:len(raw)-20], raw[len(raw)-20:]
	if got := sha1.Sum(body); !bytes.Equal(got[:], sum) && !bytes.Equal(sum, make([]byte, 20)) {
		return nil, slowPath("the index checksum does not match")
	}
	ix := &gitIndex{version: binary.BigEndian.Uint32(raw[4:8])}
	if ix.version != 2 && ix.version != 3 {
		return nil, slowPath("index version is not 2 or 3")
	}
	n := int(binary.BigEndian.Uint32(raw[8:12]))
	off := 12
	for i := 0; i < n; i++ {
		if off+62 > len(body) {
			return nil, slowPath("the index ends early")
		}
		flags := binary.BigEndian.Uint16(body[off+60 : off+62])
		hl := 62
		if flags&0x4000 != 0 {
			if ix.version < 3 {
				return nil, slowPath("extended flags in a version 2 index")
			}
			hl = 64
		}
		end := bytes.IndexByte(body[off+hl:], 0)
		if end < 0 {
			return nil, slowPath("an index entry without its name's end")
		}
		e := indexEntry{head: append([]byte(nil), body[off:off+hl]...), name: string(body[off+hl : off+hl+end])}
		if e.stage() != 0 {
			return nil, slowPath("unmerged entries (a merge in progress)")
		}
		ix.entries = append(ix.entries, e)
		off += (hl + end + 8) &^ 7
	}
	for off+8 <= len(body) {
		sig := body[off : off+4]
		size := int(binary.BigEndian.Uint32(body[off+4 : off+8]))
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, slowPath("a required index extension (split or sparse index)")
		}
		off += 8 + size
	}
	return ix, nil
}

// bytes serialises the index with its checksum.
func (ix *gitIndex) bytes() []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, ix.version)
	binary.Write(&b, binary.BigEndian, uint32(len(ix.entries)))
	for _, e := range ix.entries {
		b.Write(e.head)
		b.WriteString(e.name)
		pad := (len(e.head)+len(e.name)+8)&^7 - len(e.head) - len(e.name)
		b.Write(make([]byte, pad))
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// set puts name's entry (nil head removes it), keeping git's order.
func (ix *gitIndex) set(name string, head []byte) {
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].name >= name })
	found := i < len(ix.entries) && ix.entries[i].name == name
	switch {
	case head == nil && found:
		ix.entries = append(ix.entries[:i], ix.entries[i+1:]...)
	case head == nil:
	case found:
		ix.entries[i] = indexEntry{head: head, name: name}
	default:
		ix.entries = append(ix.entries, indexEntry{})
		copy(ix.entries[i+1:], ix.entries[i:])
		ix.entries[i] = indexEntry{head: head, name: name}
	}
}

// entryHead builds an index entry's head for a file as git add records it:
// the stat data (so a later git status need not read it), mode and id.
func entryHead(st fileStat, mode uint32, id oid, name string) []byte {
	h := make([]byte, 62)
	for i, v := range []uint32{st.ctimeS, st.ctimeNS, st.mtimeS, st.mtimeNS, st.dev, st.ino, mode, st.uid, st.gid, st.size} {
		binary.BigEndian.PutUint32(h[i*4:], v)
	}
	copy(h[40:60], id[:])
	binary.BigEndian.PutUint16(h[60:62], uint16(min(len(name), 0xFFF)))
	return h
}

// createLock creates a git lock file exclusively; someone else's lock means
// the slow path (git then reports it as it always has).
func createLock(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, slowPath("a lock file held by someone else")
	}
	if err != nil {
		return nil, fmt.Errorf("brain: lock %s: %w", filepath.Base(p), err)
	}
	return f, nil
}

// commitPaths commits paths as they are in the working tree on top of
// oldHead, as `git add -A -- paths` then `git commit -m msg -- paths`
// would, and returns the new commit. errSlowPath means nothing was changed
// and git must do it. The crash points are those of the git path: git-add
// (objects written, index locked), add (paths staged), git-commit (branch
// locked) — a kill at any of them leaves what a killed git leaves.
func (b *Brain) commitPaths(ctx context.Context, oldHead string, paths []string, msg string) (string, error) {
	if b.gitCLI {
		return "", slowPath("gitCLI")
	}
	gitDir := filepath.Join(b.Root, ".git")
	rawHead, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", slowPath("no .git/HEAD")
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(rawHead)), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") || !isHex40(oldHead) {
		return "", slowPath("HEAD is not a branch")
	}
	if contentAttributes(filepath.Join(gitDir, "info", "attributes")) {
		return "", slowPath(".git/info/attributes changes content")
	}
	if cfg, err := os.ReadFile(filepath.Join(gitDir, "config")); err != nil || bytes.Contains(bytes.ToLower(cfg), []byte("attributesfile")) {
		return "", slowPath(".git/config names an attributes file")
	}
	msg = cleanMessage(msg)
	if msg == "" {
		return "", slowPath("an empty message")
	}
	g := gitRunner{dir: b.Root}
	base, err := b.trees.load(ctx, g, oldHead)
	if err != nil {
		return "", slowPath("the tree of HEAD is not readable")
	}
	for dir, entries := range base.dirs {
		if _, ok := entries[".gitattributes"]; ok && contentAttributes(filepath.Join(b.Root, filepath.FromSlash(path.Join(dir, ".gitattributes")))) {
			return "", slowPath(".gitattributes changes content") // filters and eol rules: git applies them
		}
	}
	indexFile := filepath.Join(gitDir, "index")
	lock, err := createLock(indexFile + ".lock")
	if err != nil {
		return "", err
	}
	locked := true
	defer func() {
		if locked {
			lock.Close()
			os.Remove(indexFile + ".lock")
		}
	}()
	ix, err := readIndex(indexFile)
	if err != nil {
		return "", err
	}
	// The new tree: the base's folders, copied where a path changes.
	next := &headTree{dirs: make(map[string]map[string]treeEntry, len(base.dirs))}
	for d, e := range base.dirs {
		next.dirs[d] = e
	}
	dirty := map[string]bool{"": true}
	own := map[string]bool{}
	folder := func(d string) map[string]treeEntry {
		if !own[d] {
			cp := make(map[string]treeEntry, len(next.dirs[d])+1)
			for k, v := range next.dirs[d] {
				cp[k] = v
			}
			next.dirs[d] = cp
			own[d] = true
		}
		return next.dirs[d]
	}
	type staged struct {
		name string
		head []byte
	}
	var stage []staged
	for _, p := range paths {
		if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.HasPrefix(p, ".git/") {
			return "", slowPath("a path outside the working tree")
		}
		abs := filepath.Join(b.Root, filepath.FromSlash(p))
		data, st, mode, err := readForCommit(abs)
		if errors.Is(err, fs.ErrNotExist) {
			dir, name := splitPath(p)
			if e, ok := next.dirs[dir][name]; ok && !e.isTree() {
				delete(folder(dir), name)
				for d := dir; ; d, _ = splitPath(d) {
					dirty[d] = true
					if d == "" {
						break
					}
				}
			}
			stage = append(stage, staged{name: p})
			continue
		}
		if err != nil {
			return "", err
		}
		id, err := writeObject(gitDir, "blob", data)
		if err != nil {
			return "", err
		}
		stage = append(stage, staged{name: p, head: entryHead(st, mode, id, p)})
		dir, name := splitPath(p)
		if e, ok := next.dirs[dir][name]; ok && e.isTree() {
			return "", slowPath("a folder becomes a file")
		}
		// Every folder on the way exists (or is made) and is rewritten.
		for d := dir; ; d, _ = splitPath(d) {
			if _, ok := next.dirs[d]; !ok {
				next.dirs[d] = map[string]treeEntry{}
				own[d] = true
			}
			dirty[d] = true
			if d == "" {
				break
			}
		}
		folder(dir)[name] = treeEntry{mode: strconv.FormatUint(uint64(mode), 8), id: id}
	}
	crashPoint("git-add")
	for _, s := range stage {
		ix.set(s.name, s.head)
	}
	if _, err := lock.Write(ix.bytes()); err != nil {
		return "", fmt.Errorf("brain: write git index: %w", err)
	}
	if err := lock.Close(); err != nil {
		return "", fmt.Errorf("brain: write git index: %w", err)
	}
	if err := os.Rename(indexFile+".lock", indexFile); err != nil {
		return "", fmt.Errorf("brain: write git index: %w", err)
	}
	locked = false
	crashPoint("add")
	// Trees, deepest folder first: each parent then names its child's id;
	// a folder left empty disappears from its parent, as in git.
	order := make([]string, 0, len(dirty))
	for d := range dirty {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		di, dj := strings.Count(order[i], "/")+btoi(order[i] != ""), strings.Count(order[j], "/")+btoi(order[j] != "")
		if di != dj {
			return di > dj
		}
		return order[i] < order[j]
	})
	for _, d := range order {
		entries := next.dirs[d]
		if d != "" {
			parent, name := splitPath(d)
			if len(entries) == 0 {
				delete(folder(parent), name)
				delete(next.dirs, d)
				continue
			}
			id, err := writeObject(gitDir, "tree", treeBytes(entries))
			if err != nil {
				return "", err
			}
			folder(parent)[name] = treeEntry{mode: "40000", id: id}
			continue
		}
		id, err := writeObject(gitDir, "tree", treeBytes(entries))
		if err != nil {
			return "", err
		}
		next.root = id
	}
	if next.root == base.root {
		// What `git commit -- paths` says when the paths hold no change.
		return "", fmt.Errorf("brain: commit: nothing to commit (%s unchanged)", strings.Join(paths, ", "))
	}
	now := gitTime(time.Now())
	var c strings.Builder
	fmt.Fprintf(&c, "tree %s\nparent %s\nauthor %s %s\ncommitter %s %s\n\n%s", next.root, oldHead, gitIdent, now, gitIdent, now, msg)
	cid, err := writeObject(gitDir, "commit", []byte(c.String()))
	if err != nil {
		return "", err
	}
	next.commit = cid.String()
	if err := updateRef(ctx, gitDir, ref, oldHead, next.commit, now, "commit: "+strings.SplitN(msg, "\n", 2)[0]); err != nil {
		return "", err
	}
	b.trees.put(next)
	autoGC(ctx, g, gitDir)
	return next.commit, nil
}

// autoGC does what git commit does after each commit: git gc --auto, which
// packs loose objects once there are too many. It starts git only when
// git's own estimate (the objects in folder 17, times 256, over gc.auto's
// default 6,700) says it may act; git then decides (and detaches). The
// commit is in, so a failure here is only logged.
func autoGC(ctx context.Context, g gitRunner, gitDir string) {
	entries, err := os.ReadDir(filepath.Join(gitDir, "objects", "17"))
	if err != nil || len(entries) <= (6700+255)/256 {
		return
	}
	if _, err := g.run(ctx, "gc", "--auto", "--quiet"); err != nil {
		sdkLogError("notes: git gc --auto after a commit", "gc", err)
	}
}

// contentAttributes reports whether an attributes file sets anything that
// changes what git add stores (eol conversion, filters, ident, encodings);
// merge and diff rules, like the brain's own for index.md and log.md, do
// not. An unreadable file counts as changing content.
func contentAttributes(file string) bool {
	raw, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		for _, a := range f[1:] {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-!"), "=")
			switch name {
			case "text", "eol", "crlf", "filter", "ident", "working-tree-encoding", "binary":
				return true
			}
		}
	}
	return false
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// updateRef moves ref from old to new under ref.lock, as git update-ref
// does, and appends the move to the branch's and HEAD's reflogs.
func updateRef(ctx context.Context, gitDir, ref, old, new, when, reason string) error {
	file := filepath.Join(gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("brain: update %s: %w", ref, err)
	}
	lock, err := createLock(file + ".lock")
	if errors.Is(err, errSlowPath) {
		return fmt.Errorf("brain: update %s: %s.lock exists: another git process is running, or one was killed (remove the file if none is)", ref, ref)
	}
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			lock.Close()
			os.Remove(file + ".lock")
		}
	}()
	if cur, err := (gitRunner{dir: filepath.Dir(gitDir)}).headFast(ctx); err != nil || cur != old {
		return fmt.Errorf("brain: update %s: it moved to %s while the commit was being made (expected %s)", ref, cur, old)
	}
	crashPoint("git-commit")
	if _, err := lock.WriteString(new + "\n"); err != nil {
		return fmt.Errorf("brain: update %s: %w", ref, err)
	}
	if err := lock.Close(); err != nil {
		return fmt.Errorf("brain: update %s: %w", ref, err)
	}
	if err := os.Rename(file+".lock", file); err != nil {
		return fmt.Errorf("brain: update %s: %w", ref, err)
	}
	done = true
	line := fmt.Sprintf("%s %s %s %s\t%s\n", old, new, gitIdent, when, reason)
	for _, l := range []string{ref, "HEAD"} {
		// The commit is in; a reflog line that cannot be written costs
		// only `git reflog` history.
		p := filepath.Join(gitDir, "logs", filepath.FromSlash(l))
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
				f.WriteString(line)
				f.Close()
			}
		}
	}
	return nil
}
