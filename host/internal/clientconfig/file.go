package clientconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ServerName is the key of the host's entry in every client's config.
const ServerName = "toolhost"

// Outcome says what Install or Uninstall did to one config file.
type Outcome struct {
	// Path is the config file.
	Path string
	// Changed is false when the file already said what was asked
	// (installed and equal, or not installed).
	Changed bool
	// Diff is what changed (or, on a dry run, would change).
	Diff string
	// Backup is the copy of the file before the first change, kept once:
	// a later change never overwrites it. Empty when the file was new.
	Backup string
}

// Install puts the host's entry (exe serve) into c's config at path. With
// dryRun it only computes the diff.
func Install(c Client, path, exe string, dryRun bool) (Outcome, error) {
	return edit(path, dryRun, func(doc []byte) ([]byte, bool, error) {
		return Set(doc, c.Key, ServerName, c.Entry(exe))
	})
}

// Uninstall takes the host's entry out of c's config at path.
func Uninstall(c Client, path string, dryRun bool) (Outcome, error) {
	return edit(path, dryRun, func(doc []byte) ([]byte, bool, error) {
		return Remove(doc, c.Key, ServerName)
	})
}

func edit(path string, dryRun bool, change func([]byte) ([]byte, bool, error)) (Outcome, error) {
	return editBackup(path, dryRun, func(p string) string { return p + ".bak" }, change)
}

// editBackup is edit keeping the file as it was at backup(path) when no
// file is there yet.
func editBackup(path string, dryRun bool, backup func(string) string, change func([]byte) ([]byte, bool, error)) (Outcome, error) {
	o := Outcome{Path: path}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return o, fmt.Errorf("read %s: %w", path, err)
	}
	if exists {
		if _, err := Standard(old); err != nil {
			return o, fmt.Errorf("%s: %w; fix it, or add the entry by hand (see --print)", path, err)
		}
	}
	doc, changed, err := change(old)
	if err != nil {
		return o, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := Standard(doc); err != nil {
		return o, fmt.Errorf("%s: the edit would not be valid (%w); nothing written", path, err)
	}
	o.Changed = changed
	if !changed {
		return o, nil
	}
	o.Diff = Diff(path, old, doc)
	if dryRun {
		return o, nil
	}
	if exists {
		o.Backup = backup(path)
		if _, err := os.Stat(o.Backup); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(o.Backup, old, 0o600); err != nil {
				return o, fmt.Errorf("back up %s: %w", path, err)
			}
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return o, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	mode := fs.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmp := path + ".toolhost-tmp"
	if err := os.WriteFile(tmp, doc, mode); err != nil {
		return o, fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return o, fmt.Errorf("write %s: %w", path, err)
	}
	return o, nil
}
