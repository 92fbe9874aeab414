package brain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
)

// MaxNoteFile bounds what any reader of a brain file takes in: a larger
// file is refused, never read whole (a link or a huge file must not be able
// to fill the plugin's memory).
const MaxNoteFile = 8 << 20

// unsafeFileError says a brain file was refused without being read: it is
// a symbolic link, goes through one, is not a regular file, or is too big.
type unsafeFileError struct {
	Rel string
	Why string
	// Big says the file is a regular file over MaxNoteFile.
	Big bool
}

func (e *unsafeFileError) Error() string { return e.Rel + ": " + e.Why }

// isUnsafeFile reports whether err is a refused brain file.
func isUnsafeFile(err error) bool {
	var u *unsafeFileError
	return errors.As(err, &u)
}

// isBigFile reports whether err refused a regular file for its size.
func isBigFile(err error) bool {
	var u *unsafeFileError
	return errors.As(err, &u) && u.Big
}

// unsafeFileFail is the answer an action gives for a refused file: the
// same unsafe_path read gives for a link named by an agent.
func unsafeFileFail(err error) error {
	var u *unsafeFileError
	if !errors.As(err, &u) {
		return err
	}
	return fail(CodeUnsafePath, "A note is a regular file inside the brain. Remove the link or special file (git rm it), then try again; lint lists every one as unsafe_file.",
		"%s is %s; it was not read", u.Rel, u.Why)
}

// readBrainFile is the one way a note file of the brain is read. rel is
// relative to root with forward slashes. Every folder on the way and the
// file itself are opened without following symbolic links (a link anywhere
// is refused, never followed), the file must be a regular file (a FIFO or a
// device is refused without blocking) and at most MaxNoteFile bytes. A
// missing file is fs.ErrNotExist; a refused one is *unsafeFileError.
func readBrainFile(root, rel string) ([]byte, error) {
	f, err := openBrainFile(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("brain: read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &unsafeFileError{Rel: rel, Why: "not a regular file (" + fi.Mode().Type().String() + ")"}
	}
	if fi.Size() > MaxNoteFile {
		return nil, &unsafeFileError{Rel: rel, Why: fmt.Sprintf("larger than %d MiB", MaxNoteFile>>20), Big: true}
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxNoteFile+1))
	if err != nil {
		return nil, fmt.Errorf("brain: read %s: %w", rel, err)
	}
	if len(raw) > MaxNoteFile {
		return nil, &unsafeFileError{Rel: rel, Why: fmt.Sprintf("larger than %d MiB", MaxNoteFile>>20), Big: true}
	}
	return raw, nil
}

// splitRel splits a brain-relative path into its segments, refusing
// absolute paths and '..'.
func splitRel(rel string) ([]string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return nil, &unsafeFileError{Rel: rel, Why: "not a path inside the brain"}
	}
	var parts []string
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return nil, &unsafeFileError{Rel: rel, Why: "a path leaving the brain"}
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return nil, &unsafeFileError{Rel: rel, Why: "the brain itself"}
	}
	return parts, nil
}

// notExist wraps fs.ErrNotExist for rel.
func notExist(rel string) error {
	return fmt.Errorf("brain: read %s: %w", rel, fs.ErrNotExist)
}

// UnsafeFile is a file of the brain no reader opens: a symbolic link, a
// submodule, a FIFO or device, or a file over MaxNoteFile. Sync reports
// them too.
type UnsafeFile = notesync.UnsafeFile

// treeUnsafe lists the entries of a commit's tree that are not plain
// files: symbolic links (mode 120000) and submodules (160000).
func treeUnsafe(ctx context.Context, g gitRunner, rev string) ([]UnsafeFile, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return nil, err
	}
	return unsafeEntries(out), nil
}

// unsafeEntries reads `git ls-tree -z` or `git ls-files -s -z` output and
// keeps the links and submodules.
func unsafeEntries(out string) []UnsafeFile {
	var bad []UnsafeFile
	for _, rec := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		switch strings.Fields(meta)[0] {
		case "120000":
			bad = append(bad, UnsafeFile{Path: path, Why: "a symbolic link"})
		case "160000":
			bad = append(bad, UnsafeFile{Path: path, Why: "a submodule"})
		}
	}
	return bad
}

// unsafeFiles lists the brain's links and special files: those git tracks
// as links or submodules, and those in the working tree (changed or new)
// that are not regular files or are too big. lint (unsafe_file), status
// and sync report them; no reader opens them.
func (b *Brain) unsafeFiles(ctx context.Context) ([]UnsafeFile, error) {
	g := gitRunner{dir: b.Root}
	out, err := g.run(ctx, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	bad := append([]UnsafeFile{}, unsafeEntries(out)...)
	seen := map[string]bool{}
	for _, u := range bad {
		seen[u.Path] = true
	}
	// git status does not show FIFOs or devices: walk the tree (.git
	// and .notes left out), looking at each entry's type, never following.
	_ = filepath.WalkDir(b.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == b.Root {
			return nil
		}
		rel, rerr := filepath.Rel(b.Root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == StateDir {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() || seen[rel] {
			return nil
		}
		why := "a symbolic link"
		if d.Type()&fs.ModeSymlink == 0 {
			why = "not a regular file (" + d.Type().String() + ")"
		}
		seen[rel] = true
		bad = append(bad, UnsafeFile{Path: rel, Why: why})
		return nil
	})
	sort.Slice(bad, func(i, j int) bool { return bad[i].Path < bad[j].Path })
	return bad, nil
}
