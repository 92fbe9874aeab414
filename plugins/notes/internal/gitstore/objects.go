package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Objects is a repository's two long-lived git processes that write
// objects: git hash-object -w --stdin-paths writes the blobs of the files a
// commit takes (through the repository's attributes, as git add writes
// them) and git mktree --batch writes its folders. They start with the
// first commit and serve the commits after it, which then start neither.
// Whatever could change what they write restarts them first: the
// repository's configuration, an attributes file git reads for the
// committed paths (the system's, .git/info/attributes,
// core.attributesFile, each .gitattributes on the paths' way), or the set
// of packs git mktree looks entries up in. Close ends them.
type Objects struct {
	dir string

	mu      sync.Mutex // held by the commit using the processes
	hashObj *server
	mktree  *server
	seen    map[string]fileStamp // attributes and configuration files as the processes last saw them
}

// NewObjects returns the object writers of the repository whose working
// tree is dir; nothing starts until a commit needs them.
func NewObjects(dir string) *Objects {
	return &Objects{dir: dir}
}

// Close ends the processes; a nil Objects has none.
func (o *Objects) Close() error {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stop()
	return nil
}

func (o *Objects) stop() {
	for _, s := range []*server{o.hashObj, o.mktree} {
		if s != nil {
			s.close()
		}
	}
	o.hashObj, o.mktree, o.seen = nil, nil, nil
}

// acquire holds o for one commit whose paths lie in dirs and returns its
// processes, restarted when anything they depend on changed or one of
// them ended. ctx ending meanwhile kills them. release gives them back.
func (o *Objects) acquire(ctx context.Context, g Runner, dirs []string) (hashObj, mktree *server, err error) {
	o.mu.Lock()
	now := o.stamps(ctx, g, dirs)
	if o.hashObj == nil || o.hashObj.exited() || o.mktree.exited() || changed(o.seen, now) {
		o.stop()
		if o.hashObj, err = startServer(g, "hash-object", "-w", "--stdin-paths"); err == nil {
			o.mktree, err = startServer(g, "mktree", "--batch", "-z")
		}
		if err != nil {
			o.stop()
			o.mu.Unlock()
			return nil, nil, err
		}
		o.seen = map[string]fileStamp{}
	}
	for p, st := range now {
		o.seen[p] = st
	}
	o.hashObj.watch(ctx)
	o.mktree.watch(ctx)
	return o.hashObj, o.mktree, nil
}

// release gives the processes back after a commit; broken says they were
// left mid-conversation (or ctx killed them), so they are ended.
func (o *Objects) release(broken bool) {
	for _, s := range []*server{o.hashObj, o.mktree} {
		if s != nil && s.unwatch() {
			broken = true
		}
	}
	if broken {
		o.stop()
	}
	o.mu.Unlock()
}

// fileStamp is what a file's stat says, to tell it changed.
type fileStamp struct {
	exists bool
	size   int64
	mtime  time.Time
	mode   os.FileMode
}

func stampOf(p string) fileStamp {
	fi, err := os.Stat(p)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
}

// stamps reads the state of every file the processes' answers depend on
// for a commit in dirs. A .git that is not a folder (a linked worktree)
// stamps as changed each time, so the processes serve one commit.
func (o *Objects) stamps(ctx context.Context, g Runner, dirs []string) map[string]fileStamp {
	gitDir := filepath.Join(o.dir, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return map[string]fileStamp{gitDir: {mtime: time.Now()}}
	}
	files := []string{
		filepath.Join(gitDir, "config"),
		filepath.Join(gitDir, "info", "attributes"),
		filepath.Join(gitDir, "objects", "pack"),
		"/etc/gitattributes",
	}
	if bin, err := Binary(); err == nil {
		files = append(files, filepath.Join(filepath.Dir(filepath.Dir(bin)), "etc", "gitattributes"))
	}
	if cfg, ok := repoConfig(ctx, g, gitDir); !ok {
		return map[string]fileStamp{gitDir: {mtime: time.Now()}}
	} else if cfg.attributesFile != "" {
		p := cfg.attributesFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.dir, p)
		}
		files = append(files, p)
	}
	for _, d := range dirs {
		files = append(files, filepath.Join(o.dir, filepath.FromSlash(d), ".gitattributes"))
	}
	out := make(map[string]fileStamp, len(files))
	for _, f := range files {
		out[f] = stampOf(f)
	}
	return out
}

// changed reports whether a file both maps know differs.
func changed(before, now map[string]fileStamp) bool {
	for p, st := range now {
		if prev, ok := before[p]; ok && prev != st {
			return true
		}
	}
	return false
}

// server is a long-lived git process spoken to through its stdin and
// stdout.
type server struct {
	args []string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	errb bytes.Buffer
	done chan struct{} // closed when the process ended
	err  error         // how it ended, once done is closed

	stopWatch func() bool
	killed    chan struct{}
}

// startServer starts git with args for good: not tied to any call's
// context, ended by close.
func startServer(g Runner, args ...string) (*server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	cmd := exec.Command(bin, append(append([]string{}, Hardening...), args...)...)
	cmd.Dir = g.Dir
	cmd.Env = append(Env(), g.Env...)
	cmd.SysProcAttr = procAttr()
	s := &server{args: args, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &lockedWriter{w: &s.errb}
	if s.in, err = cmd.StdinPipe(); err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	s.out = bufio.NewReader(outPipe)
	if err := cmd.Start(); err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// watch kills the process if ctx ends before unwatch.
func (s *server) watch(ctx context.Context) {
	killed := make(chan struct{})
	s.killed = killed
	s.stopWatch = context.AfterFunc(ctx, func() {
		close(killed)
		_ = s.cmd.Process.Kill()
	})
}

// unwatch stops watching the call's context; true when it killed the
// process.
func (s *server) unwatch() bool {
	if s.stopWatch == nil {
		return false
	}
	if !s.stopWatch() {
		<-s.killed
		s.stopWatch = nil
		return true
	}
	s.stopWatch = nil
	return false
}

// ask writes req and reads one answer line per expected answer.
func (s *server) ask(req []byte, answers int) ([]string, error) {
	if _, err := s.in.Write(req); err != nil {
		return nil, s.fail(err)
	}
	out := make([]string, 0, answers)
	for range answers {
		line, err := s.out.ReadString('\n')
		if err != nil {
			return nil, s.fail(err)
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out, nil
}

// fail is a git_failed error for a broken conversation, with what git
// said on stderr once it ended.
func (s *server) fail(err error) error {
	_ = s.cmd.Process.Kill()
	<-s.done
	return &Error{Args: s.args, Stderr: strings.TrimSpace(s.stderr()), Err: fmt.Errorf("%w (%v)", err, s.err)}
}

func (s *server) stderr() string {
	lw := s.cmd.Stderr.(*lockedWriter)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return s.errb.String()
}

// close ends the process: its input closes (git ends when it reads EOF),
// and it is killed if it has not ended within a second.
func (s *server) close() {
	_ = s.in.Close()
	select {
	case <-s.done:
	case <-time.After(time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// lockedWriter is a writer safe for git's stderr copier and a reader.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
