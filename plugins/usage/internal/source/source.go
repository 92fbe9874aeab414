// Package source reads local AI-coding session logs. Each provider (Claude
// Code, Codex CLI, Gemini CLI, OpenCode and the other agents agents.go
// marks as read) sits behind the Provider interface in files named for it (Claude Code's: claude.go finds and sorts lines,
// claude_assistant.go reads responses, claude_usage.go their usage
// objects); steps.go classifies tool uses and timestamps.go reads times for
// all of them. The Store keeps per-file parse state keyed by path, size and
// modification time so a warm refresh reads only appended bytes, and
// deduplicates calls across files.
package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// StepKind classifies one tool use of an assistant call.
type StepKind uint8

// The step kinds.
const (
	StepOther StepKind = iota
	// StepRead reads without changing anything (Read, Grep, Glob, …).
	StepRead
	// StepEdit changes a file (Edit, MultiEdit, Write, NotebookEdit).
	StepEdit
	// StepShellRead is a shell command that only reads (ls, cat, git status…).
	StepShellRead
	// StepShell is any other shell command.
	StepShell
	// StepTest is a shell command that runs tests.
	StepTest
	// StepGit is a shell command that changes git state.
	StepGit
	// StepDelegate starts a sub-agent.
	StepDelegate
)

// Step is one tool use: its kind and, for edits, a hash of the file path.
type Step struct {
	Kind StepKind
	// call is the index in its file's Calls of the call that asked for it.
	call uint32
	File uint64
}

// Origin says where calls came from: provider, project, session, model and
// file. Calls of one file share one Origin until one of these changes.
type Origin struct {
	// Provider names the provider ("claude", "codex", …).
	Provider string
	// Project identifies the project (its working directory as logged); it
	// is never output: Name or a hash of it is.
	Project string
	// Name is the project's display name (the last path element).
	Name string
	// Session identifies the session; sub-agents roll into their parent.
	Session string
	// Model is the model name as logged.
	Model string
	// File numbers the file inside the Store.
	File uint32

	fs *FileState
}

// Call is one billed model request, kept to 56 bytes: a big log holds
// hundreds of thousands, and they are most of a cold scan's memory.
type Call struct {
	// Time is the request's time in Unix milliseconds.
	Time int64
	// Origin is where the call was logged, and by which model.
	Origin *Origin
	// Key identifies the request across lines and files (a hash of its
	// identity); 0 when the log gives no identity. For Claude Code it is
	// the hash of the response's message.id alone, which the sidechain
	// rule matches across request ids; sub then tells the requests apart.
	Key uint64
	// Token counts by bucket: input, output, cache writes (5 minutes and
	// 1 hour) and cache reads.
	In, Out, CW5m, CW1h, CR uint32
	// Turn numbers the turn (a user message and the calls after it) inside
	// the file.
	Turn uint32
	// sub: the low 31 bits hash what tells apart requests of one Key (a
	// Claude Code requestId, or the session when none is logged; 0 for
	// other providers); the top bit marks a sidechain line.
	sub uint32
	// idx is the call's index in its file's Calls (its steps carry it).
	idx uint32
}

// sidechainBit is the bit of Call.sub marking a Claude Code line with
// isSidechain: true.
const sidechainBit = 1 << 31

// subOf is the sub of a request told apart by id (hashed to 31 bits, never
// 0), on a sidechain line or not.
func subOf(sidechain bool, id ...[]byte) uint32 {
	h := uint32(keyOf(id...) & (sidechainBit - 1))
	if h == 0 {
		h = 1
	}
	if sidechain {
		h |= sidechainBit
	}
	return h
}

// Sidechain reports whether the call was logged on a Claude Code line with
// isSidechain: true.
func (c *Call) Sidechain() bool { return c.sub&sidechainBit != 0 }

// dedupKey is the key copies of one request share: Key, scoped by what
// tells requests of one Key apart.
func (c *Call) dedupKey() uint64 {
	if c.Key == 0 || c.sub&^sidechainBit == 0 {
		return c.Key
	}
	return keyMix(c.Key, uint64(c.sub&^sidechainBit))
}

// sameRequest reports whether c and o are copies of one request.
func (c *Call) sameRequest(o *Call) bool {
	return c.Key != 0 && c.Key == o.Key && c.sub&^sidechainBit == o.sub&^sidechainBit
}

// Model is the model name as logged.
func (c *Call) Model() string { return c.Origin.Model }

// Steps are the tool uses the request asked for: the run of its file's
// steps carrying its index (steps are stored in call order).
func (c *Call) Steps() []Step {
	steps := c.Origin.fs.steps
	i := sort.Search(len(steps), func(i int) bool { return steps[i].call >= c.idx })
	j := i
	for j < len(steps) && steps[j].call == c.idx {
		j++
	}
	if i == j {
		return nil
	}
	return steps[i:j:j]
}

// Tokens returns the call's tokens for pricing.
func (c *Call) Tokens() pricing.Tokens {
	return pricing.Tokens{Input: int64(c.In), Output: int64(c.Out), CacheWrite5m: int64(c.CW5m),
		CacheWrite1h: int64(c.CW1h), CacheRead: int64(c.CR)}
}

// Total is the request's token total.
func (c *Call) Total() int64 {
	return int64(c.In) + int64(c.Out) + int64(c.CW5m) + int64(c.CW1h) + int64(c.CR)
}

// TurnID identifies the call's turn across files.
func (c *Call) TurnID() uint64 { return uint64(c.Origin.File)<<32 | uint64(c.Turn) }

// tok clamps a token count into a call's field.
func tok(n int64) uint32 {
	if n <= 0 {
		return 0
	}
	if n > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(n)
}

// keyOf hashes a request's identity parts (FNV-1a, 64 bits; 0 is "none").
func keyOf(parts ...[]byte) uint64 {
	h := uint64(14695981039346656037)
	for i, p := range parts {
		if i > 0 {
			h ^= 0xff
			h *= 1099511628211
		}
		for _, c := range p {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	if h == 0 {
		h = 1
	}
	return h
}

// origin returns the file's Origin for these values, reusing the last one.
func (st *FileState) origin(provider, project, name, session, model string) *Origin {
	o := st.lastOrigin
	if o != nil && o.Model == model && o.Project == project && o.Session == session && o.Provider == provider && o.Name == name {
		return o
	}
	o = &Origin{Provider: provider, Project: project, Name: name, Session: session, Model: model, File: st.ID, fs: st}
	st.lastOrigin = o
	return o
}

// add appends a call; consecutive copies of one request (a response's
// content blocks, one line each) collapse into the largest.
func (st *FileState) add(c Call, steps []Step) {
	if n := len(st.Calls); n > 0 && c.sameRequest(&st.Calls[n-1]) {
		prev := &st.Calls[n-1]
		if c.Total() > prev.Total() {
			c.idx = prev.idx
			*prev = c
			st.replaced++
		}
		st.extendLast(steps)
		return
	}
	c.idx = uint32(len(st.Calls))
	st.Calls = append(st.Calls, c)
	st.addSteps(c.idx, steps)
}

// addSteps stores the tool uses of the call at index i, which is the last
// call: the file's steps stay in call order.
func (st *FileState) addSteps(i uint32, steps []Step) {
	for _, s := range steps {
		s.call = i
		st.steps = append(st.steps, s)
	}
}

// extendLast adds tool uses to the last call (another content block of the
// same response).
func (st *FileState) extendLast(steps []Step) {
	n := len(st.Calls)
	if n == 0 || len(steps) == 0 {
		return
	}
	st.addSteps(uint32(n-1), steps)
	st.replaced++
}

// Lineage is a log's session and the session it was forked from.
type Lineage struct {
	ID, Parent string
}

// Env reads the environment.
type Env func(key string) string

// Home returns $HOME.
func (e Env) Home() string { return e("HOME") }

// Dir returns the folder the variable key names, else the folder under
// $HOME that underHome names (".codex"), else "" (neither is set).
func (e Env) Dir(key string, underHome ...string) string {
	if v := e(key); v != "" {
		return v
	}
	if h := e.Home(); h != "" {
		return filepath.Join(append([]string{h}, underHome...)...)
	}
	return ""
}

// readWhole reads st's file whole, as one document (not appendable): it
// counts the bytes read and moves the offset past them. A file with
// nothing but white space (created, not yet written) gives nil: nothing to
// count.
func readWhole(st *FileState) ([]byte, error) {
	b, err := regular.ReadFile(st.Path, 0)
	if err != nil {
		return nil, err
	}
	st.BytesRead += int64(len(b))
	st.Offset = int64(len(b))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	return b, nil
}

// Source is one file (or database) a provider reads.
type Source struct {
	// Path is the file's absolute path.
	Path string
	// Appendable means the file only grows by appended lines, so a larger
	// file is read from where the last read stopped.
	Appendable bool
	// Session and Project, when set, name the call's session and project
	// fallback for every call of this file.
	Session string
	Project string
	// Rel is the path below the provider's root (Codex: a rollout's path
	// under sessions/ or archived_sessions/); two sources with one Rel are
	// copies of one log and only the first listed is read.
	Rel string
}

// Discovery is what a provider found.
type Discovery struct {
	// Sources are the files to read.
	Sources []Source
	// Dirs are the folders whose changes (new files, new folders) can add
	// sources: a resident store watches them instead of listing them again.
	Dirs []string
	// Found is false when the provider is not installed here (not an error).
	Found bool
	// LookedIn is where the provider looks for its logs (folders or a
	// database file), found or not: what a person checks when nothing is.
	LookedIn []string
	// Problems are folders or files that could not be listed: the rest was
	// still found, and each problem is reported in degraded.
	Problems []error
}

// Provider reads one tool's logs.
type Provider interface {
	// Name is the provider's name in outputs ("claude", "codex", …).
	Name() string
	// Discover lists the provider's sources. An error marks the provider
	// degraded.
	Discover(env Env) (Discovery, error)
	// Parse reads st's file from st.Offset, appending calls to st.Calls.
	Parse(ctx context.Context, st *FileState) error
}

// FileState is the parse state of one source.
type FileState struct {
	Source
	// ID numbers the file inside the Store (turn identities use it).
	ID uint32
	// Size and ModTime are the file's at the last parse.
	Size    int64
	ModTime int64
	// Offset is how far the file has been consumed (complete lines only).
	Offset int64
	// Calls are the calls parsed so far.
	Calls []Call
	// Lines counts lines seen, Skipped malformed ones, Oversized lines over
	// the line bound.
	Lines, Skipped, Oversized int64
	// BytesRead counts bytes read by the last parse.
	BytesRead int64
	// Carry is the provider's state between appended reads.
	Carry any
	// Lineage, when set by the provider, names the session this file
	// records (ID) and the session it was forked from (Parent): keys of
	// calls in one fork family are made equal across its files, so a
	// replayed parent event counts once.
	Lineage Lineage
	// Err is the last parse's error.
	Err error

	provider   Provider
	lastOrigin *Origin
	steps      []Step
	replaced   int // calls replaced in place by a larger copy
	// mergedLineage is the lineage the calls were last merged under.
	mergedLineage Lineage
	// slot is the file's place in Store.order.
	slot int32
}

// MaxLineBytes bounds the line buffer; longer lines are skipped unread.
var MaxLineBytes = 64 << 20

// bufPool recycles line buffers across files: allocating (and zeroing) a
// fresh megabyte per file would cost more than the parse.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1<<20); return &b }}

// readLines calls fn with each complete line of st's file from st.Offset and
// advances st.Offset past them. A final line without a newline is consumed
// only when it is a whole JSON value (the writer may still be writing it).
func readLines(ctx context.Context, st *FileState, fn func(line []byte)) error {
	f, err := regular.Open(st.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st.Offset > 0 {
		if _, err := f.Seek(st.Offset, io.SeekStart); err != nil {
			return err
		}
	}
	bp := bufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	defer func() {
		if cap(buf) <= 4<<20 {
			*bp = buf[:0]
			bufPool.Put(bp)
		}
	}()
	discarding := false
	for n := 0; ; n++ {
		if n%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		m, rerr := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		st.BytesRead += int64(m)
		start := 0
		for {
			i := bytes.IndexByte(buf[start:], '\n')
			if i < 0 {
				break
			}
			line := buf[start : start+i]
			if discarding {
				discarding = false
				st.Oversized++
				st.Lines++
			} else if len(line) > 0 {
				st.Lines++
				fn(line)
			}
			start += i + 1
			st.Offset += int64(i + 1)
		}
		rem := copy(buf, buf[start:])
		buf = buf[:rem]
		if rerr == io.EOF {
			if rem > 0 && !discarding && jsonscan.Valid(buf) {
				st.Lines++
				fn(buf)
				st.Offset += int64(rem)
			}
			return nil
		}
		if rerr != nil {
			return rerr
		}
		if rem == cap(buf) {
			if discarding || cap(buf) >= MaxLineBytes {
				discarding = true
				st.Offset += int64(rem)
				buf = buf[:0]
			} else {
				nb := make([]byte, rem, 2*cap(buf))
				copy(nb, buf)
				buf = nb
			}
		}
	}
}

// reason says why a file failed without naming its directory.
func reason(path string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if path == "" {
		return err.Error()
	}
	return filepath.Base(path) + ": " + err.Error()
}

// rootsOr is the folders the variable name lists (a comma list), or, when
// it is unset or blank, the folder at home's path elems; none without a
// home.
func rootsOr(env Env, name string, elems ...string) []string {
	if v := strings.TrimSpace(env(name)); v != "" {
		return roots(v)
	}
	if h := env.Home(); h != "" {
		return []string{filepath.Join(append([]string{h}, elems...)...)}
	}
	return nil
}

// roots splits a comma list of directories, dropping empties.
func roots(list string) []string {
	var out []string
	for _, r := range strings.Split(list, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// walkOptions say how walkRoots walks a provider's folders.
type walkOptions struct {
	// FollowRoot walks a root that is a symbolic link to a folder as the
	// folder it names.
	FollowRoot bool
	// Problem wraps an error met at path under root (root itself when it
	// could not be looked at); nil keeps the error as it is.
	Problem func(root, path string, err error) error
}

// walkRoots walks each root folder at any depth for a provider's
// Discover: it adds the root to dsc.LookedIn, marks the provider found
// when a root is a folder, adds every folder under it to dsc.Dirs (a
// resident store watches them) and calls file with each file and the root
// it was found under, which adds the file's sources. A folder that cannot
// be looked at or listed is added to dsc.Problems and the rest is still
// walked.
func walkRoots(dsc *Discovery, rootDirs []string, opt walkOptions, file func(root, path string, d fs.DirEntry)) {
	problem := func(root, path string, err error) {
		if opt.Problem != nil {
			err = opt.Problem(root, path, err)
		}
		dsc.Problems = append(dsc.Problems, err)
	}
	for _, r := range rootDirs {
		dsc.LookedIn = append(dsc.LookedIn, r)
		ok, err := isDir(r)
		if err != nil {
			problem(r, r, err)
			continue
		}
		if !ok {
			continue
		}
		dsc.Found = true
		if opt.FollowRoot {
			if real, err := filepath.EvalSymlinks(r); err == nil {
				r = real
			}
		}
		// The walk function returns nil: every error is a problem, never
		// the walk's.
		_ = filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				problem(r, p, err)
				return nil
			}
			if d.IsDir() {
				dsc.Dirs = append(dsc.Dirs, p)
			} else {
				file(r, p, d)
			}
			return nil
		})
	}
}

// isDir reports whether path is a directory; a stat error other than "not
// found" is returned.
func isDir(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return st.IsDir(), nil
}

// fnv64 hashes s (FNV-1a).
func fnv64(s []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range s {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// baseName is the last element of a slash or backslash path.
func baseName(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// lenientInt is a token count: a number; any other value (a string, null,
// a negative number) counts as 0 rather than losing the line, as ccusage
// reads it.
type lenientInt int64

// UnmarshalJSON reads a number, else 0.
func (n *lenientInt) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		*n = 0
		return nil
	}
	*n = lenientInt(f)
	return nil
}
