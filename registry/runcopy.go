package registry

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrRunCopyChanged is wrapped by RunCopy's error when a run copy no longer
// matches the digest it was made for.
var ErrRunCopyChanged = errors.New("run copy changed")

// ApprovalError is RunCopy's error when the folder of an Unverified tool,
// read before its first launch, no longer matches its approval: the launch
// is refused as the scan would have refused it.
type ApprovalError struct {
	// Tool is the tool's name.
	Tool string
	// Reason is what the scan's Tool.NotReady would say: "changed — needs
	// approval: …".
	Reason string
	// NextStep is what a person does about it.
	NextStep string
}

// Error returns the reason.
func (e *ApprovalError) Error() string { return e.Reason }

// verifyFolder reads t's folder through hc (which then remembers it: only
// the files it has not seen are read) and checks it against the digest the
// scan found or, for an Unverified tool, took on trust.
func verifyFolder(t *Tool, hc *HashCache) error {
	d, err := DigestFolder(t.Dir, hc)
	if err != nil {
		return fmt.Errorf("registry: check %s before its first launch: %w", t.Name(), err)
	}
	if d.Sum != t.Digest {
		why := "changed files: " + strings.Join(ChangedFiles(t.Files, d.Files), " ")
		if t.approval != nil {
			why = changedSince(t, d)
		}
		c := Tool{Manifest: t.Manifest, Dir: t.Dir}
		notApproved(&c, ApprovalChanged, why)
		return &ApprovalError{Tool: t.Name(), Reason: c.NotReady, NextStep: c.NextStep}
	}
	// Only a cache: when it cannot be saved, the next start reads the
	// files again.
	_ = hc.Save()
	return nil
}

// runCopyDir is where the run copy of a folder with digest lives in runDir.
func runCopyDir(runDir, digest string) string {
	return filepath.Join(runDir, strings.TrimPrefix(digest, "sha256:"))
}

// RunCopy returns the entrypoint inside the run copy of t's folder in
// runDir: the whole folder (caches left out), read-only (folders and
// executables 0500, other files 0400), whose digest is t.Digest. It makes
// the copy when there is none, and checks an existing one every time (hc
// skips re-reading files whose stat is unchanged, ctime included). A copy
// that no longer matches is refused with ErrRunCopyChanged, never quietly
// replaced: `host approve` removes it. The folder of a tool with an
// approval is checked first (an Unverified one read, through hc), and one
// that no longer matches it is refused with an *ApprovalError.
func RunCopy(t *Tool, runDir string, hc *HashCache) (string, error) {
	if t.Digest == "" {
		return "", fmt.Errorf("registry: run copy of %s: the folder was not read: %s", t.Name(), t.NotReady)
	}
	if t.Unverified || t.approval != nil {
		if err := verifyFolder(t, hc); err != nil {
			return "", err
		}
	}
	rel, err := filepath.Rel(t.Dir, t.Binary)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("registry: run copy of %s: entrypoint %s is outside the plugin folder %s", t.Name(), t.Binary, t.Dir)
	}
	dst := runCopyDir(runDir, t.Digest)
	if _, err := os.Lstat(dst); err == nil {
		if err := verifyRunCopy(t, dst, hc, nil); err != nil {
			return "", err
		}
		return filepath.Join(dst, rel), nil
	}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return "", fmt.Errorf("registry: run copy of %s: %w", t.Name(), err)
	}
	tmp, err := os.MkdirTemp(runDir, ".copy-")
	if err != nil {
		return "", fmt.Errorf("registry: run copy of %s: %w", t.Name(), err)
	}
	if err := copyFolder(t.Dir, tmp); err != nil {
		RemoveRunCopy(tmp)
		return "", fmt.Errorf("registry: run copy of %s: %w", t.Name(), err)
	}
	d, err := DigestFolder(tmp, nil)
	if err == nil && d.Sum != t.Digest {
		err = fmt.Errorf("%s changed while it was copied (%s); the next scan sees the new contents, which need approval", t.Dir, strings.Join(ChangedFiles(t.Files, d.Files), " "))
	}
	if err != nil {
		RemoveRunCopy(tmp)
		return "", fmt.Errorf("registry: run copy of %s: %w", t.Name(), err)
	}
	if err := placeRunCopy(t, tmp, dst, hc); err != nil {
		return "", err
	}
	return filepath.Join(dst, rel), nil
}

// placeRunCopy renames the finished copy tmp to dst and checks what dst
// then holds. When another host process made the same copy between
// RunCopy's look for one and this rename, the rename fails: tmp is removed
// and theirs is used, checked like any existing copy.
func placeRunCopy(t *Tool, tmp, dst string, hc *HashCache) error {
	if err := os.Rename(tmp, dst); err != nil {
		RemoveRunCopy(tmp)
		if _, serr := os.Lstat(dst); serr != nil {
			return fmt.Errorf("registry: run copy of %s: %w", t.Name(), err)
		}
	}
	return verifyRunCopy(t, dst, hc, nil)
}

// verifyRunCopy checks that the run copy dst still has t's digest; with
// approved (a scan under Options.VerifyAtLaunch) it reads only the files
// the hash cache knows changed, as digestFolder does.
func verifyRunCopy(t *Tool, dst string, hc *HashCache, approved map[string]string) error {
	d, _, err := digestFolder(dst, hc, approved, nil)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRunCopyChanged, dst, err)
	}
	if d.Sum != t.Digest {
		return fmt.Errorf("%w: the run copy %s of %s no longer matches the approved folder (%s): something replaced it; `%s approve %s` removes it and makes it again",
			ErrRunCopyChanged, dst, t.Name(), strings.Join(ChangedFiles(t.Files, d.Files), " "), Command, t.Name())
	}
	return nil
}

// copyFolder copies src's files and folders (caches left out) into dst,
// then makes the copy read-only. Links and special files are refused.
func copyFolder(src, dst string) error {
	var dirs []string
	err := walkFolder(src, func(path, rel string, e fs.DirEntry) error {
		target := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			dirs = append(dirs, target)
			return os.Mkdir(target, 0o700)
		case !e.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file: a plugin folder holds only files and folders", path)
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o400)
		if info.Mode()&0o111 != 0 {
			mode = 0o500
		}
		return copyFile(path, target, mode)
	})
	if err != nil {
		return err
	}
	// Deepest first, so each folder is still writable while its children
	// are made read-only.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o500); err != nil {
			return err
		}
	}
	return os.Chmod(dst, 0o500)
}

// copyFile copies one file and gives it mode.
func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(dst, mode)
	}
	return err
}

// RemoveRunCopy deletes a run copy (read-only, see RunCopy), making its
// folders writable first.
func RemoveRunCopy(dir string) error {
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
