package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/toolhost/toolhost/sdk"
)

// Codes of this plugin's errors, besides the SDK's.
const (
	codePathNotAllowed    sdk.Code = "path_not_allowed"
	codeUnsupportedFormat sdk.Code = "unsupported_format"
	codeAlreadyExists     sdk.Code = "already_exists"
	codeInvalidWorkbook   sdk.Code = "invalid_workbook"
	codeEncryptedWorkbook sdk.Code = "encrypted_workbook"
	codeWorkbookTooLarge  sdk.Code = "workbook_too_large"
	codePermissionDenied  sdk.Code = "permission_denied"
	codeInvalidConfig     sdk.Code = "invalid_config"
)

// rootsEnv names the variable listing the folders the plugin may read and
// write under, separated by os.PathListSeparator.
const rootsEnv = "XLSX_ROOTS"

// workbookExts are the extensions of the workbooks this tool reads, as
// openpyxl does: workbooks and templates, with or without macros; Excel
// binary workbooks (.xlsb); legacy Excel workbooks and templates (.xls,
// .xlt); OpenDocument spreadsheets and templates (.ods, .ots).
var workbookExts = []string{".xlsx", ".xlsm", ".xltx", ".xltm", ".xlsb", ".xls", ".xlt", ".ods", ".ots"}

// allowedRoots returns the folders paths must resolve under: XLSX_ROOTS,
// or by default the user's home and the working directory; each with its
// symlinks resolved. A default root that is a system folder (see
// systemFolder) is left out: a host started in / must not open the whole
// disk to its agents.
func allowedRoots() []string {
	var raw []string
	explicit := false
	if v := os.Getenv(rootsEnv); strings.TrimSpace(v) != "" {
		raw, explicit = filepath.SplitList(v), true
	} else {
		if h, err := os.UserHomeDir(); err == nil {
			raw = append(raw, h)
		}
		if wd, err := os.Getwd(); err == nil {
			raw = append(raw, wd)
		}
	}
	var roots []string
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		abs, err := filepath.Abs(expandHome(r))
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if !explicit && systemFolder(abs) {
			continue
		}
		roots = append(roots, abs)
	}
	return roots
}

// systemFolders are the folders (and, but for /, everything beneath them)
// that are never a default root nor an output folder.
var systemFolders = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/boot", "/dev", "/proc", "/sys", "/run", "/var/lib", "/var/spool"}

// systemFolder reports whether p is /, an ancestor of the home folder (such
// as /home), a system folder or beneath one, or lies in a dot-folder (the
// home's .ssh, .config, …).
func systemFolder(p string) bool {
	p = filepath.Clean(p)
	if filepath.Dir(p) == p {
		return true
	}
	if h, err := os.UserHomeDir(); err == nil {
		if rel, ok := relUnder(p, filepath.Clean(h)); ok && rel != "." {
			return true
		}
	}
	for _, s := range systemFolders {
		if _, ok := relUnder(s, p); ok {
			return true
		}
	}
	return hiddenIn(p) != ""
}

// hiddenIn returns the first component of the path p that names a dotfile
// or dot-folder ("" when none does).
func hiddenIn(p string) string {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" && c != "." && c != ".." && strings.HasPrefix(c, ".") {
			return c
		}
	}
	return ""
}

// expandHome replaces a leading ~ (alone or before a separator) with the
// user's home folder, as a shell would.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(h, p[1:])
}

// relUnder returns p relative to root when p lies lexically under it.
func relUnder(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func notAllowed(p string, roots []string) *sdk.Error {
	return &sdk.Error{Code: codePathNotAllowed,
		Message:  "path " + p + " is outside the folders this tool may use",
		NextStep: "use a file under one of the allowed roots, or add its folder to " + rootsEnv,
		Details:  map[string]any{"allowed_roots": roots}}
}

// openBeneath opens abs with flag through an os.Root of an allowed root,
// never by its name: the kernel resolves every component beneath the
// root's open folder, so a folder swapped for a symlink between a check
// and the open cannot lead outside (there is no separate check). A path
// that reaches a root only through symlinks (a link from one root into
// another, or a root given through a symlinked folder) is tried again by
// its resolved name, still opened beneath a root. The error is the most
// telling of the attempts': exists, not found, permission, then
// path_not_allowed.
func openBeneath(abs string, roots []string, flag int, perm fs.FileMode) (*os.File, error) {
	var f *os.File
	err := beneath(abs, roots, flag&os.O_CREATE != 0, func(root *os.Root, rel string) error {
		var err error
		f, err = root.OpenFile(rel, flag, perm)
		return err
	})
	return f, err
}

// beneath calls fn with the os.Root of the first allowed root that holds
// abs and abs's name inside it, until fn succeeds; then with the root that
// holds abs's resolved name, for paths that reach a root through symlinks
// (for a new file, only its folder exists to be resolved). The root is
// closed when fn returns. The error is fn's first of not-exist, exists or
// permission, else errOutside.
func beneath(abs string, roots []string, create bool, fn func(root *os.Root, rel string) error) error {
	var errs []error
	try := func(p string) bool {
		for _, r := range roots {
			rel, ok := relUnder(r, p)
			if !ok {
				continue
			}
			if hiddenIn(rel) != "" {
				errs = append(errs, errHidden)
				continue
			}
			root, err := os.OpenRoot(r)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			err = fn(root, rel)
			root.Close()
			if err == nil {
				return true
			}
			errs = append(errs, err)
		}
		return false
	}
	if try(abs) {
		return nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil && create {
		if dir, derr := filepath.EvalSymlinks(filepath.Dir(abs)); derr == nil {
			real, err = filepath.Join(dir, filepath.Base(abs)), nil
		}
	}
	if err == nil && real != abs {
		if try(real) {
			return nil
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, target := range []error{errHidden, fs.ErrExist, fs.ErrNotExist, fs.ErrPermission} {
		for _, e := range errs {
			if errors.Is(e, target) {
				return e
			}
		}
	}
	return errOutside
}

// errOutside is openBeneath's answer when no root holds the path.
var errOutside = errors.New("outside the allowed roots")

// errHidden is beneath's answer for a path that passes through a dotfile
// or dot-folder below its root: those hold keys and settings, never
// workbooks an agent is meant to open.
var errHidden = errors.New("a dotfile or dot-folder")

func hiddenNotAllowed(p string) *sdk.Error {
	return &sdk.Error{Code: codePathNotAllowed,
		Message:  "path " + p + " passes through a dotfile or dot-folder (" + hiddenIn(p) + "), which this tool never opens",
		NextStep: "move or copy the workbook out of the hidden folder, or add the folder itself to " + rootsEnv}
}

// openWorkbookFile opens a workbook for reading beneath an allowed root:
// a regular file with a workbook's extension. The caller owns the file.
func openWorkbookFile(p string) (*os.File, error) {
	if strings.TrimSpace(p) == "" {
		return nil, &sdk.Error{Code: sdk.CodeInvalidArgs, Message: "path is required", NextStep: "pass --path with a local .xlsx, .xlsm, .xlsb, .xls or .ods file"}
	}
	abs, err := filepath.Abs(expandHome(p))
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidArgs, "path %s: %v", p, err)
	}
	roots := allowedRoots()
	// O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
	// below as not a regular file.
	f, err := openBeneath(abs, roots, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, errOutside):
		return nil, notAllowed(abs, roots)
	case errors.Is(err, errHidden):
		return nil, hiddenNotAllowed(abs)
	case errors.Is(err, fs.ErrNotExist):
		return nil, &sdk.Error{Code: sdk.CodeNotFound, Message: "file not found: " + p,
			NextStep: "check the path; a relative path is taken from the working directory"}
	case errors.Is(err, fs.ErrPermission):
		return nil, sdk.Errorf(codePermissionDenied, "%s cannot be read: permission denied", p)
	case err != nil:
		return nil, sdk.Errorf(sdk.CodeNotFound, "file %s cannot be read: %v", p, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, sdk.Errorf(sdk.CodeNotFound, "file %s cannot be read: %v", p, err)
	}
	if st.IsDir() {
		e := &sdk.Error{Code: sdk.CodeInvalidArgs, Message: p + " is a folder, not a workbook",
			NextStep: "pass the path of an .xlsx, .xlsm, .xlsb, .xls or .ods file inside it"}
		if names := workbooksIn(f); len(names) > 0 {
			e.DidYouMean = names
		}
		f.Close()
		return nil, e
	}
	if !slices.Contains(workbookExts, strings.ToLower(filepath.Ext(abs))) {
		f.Close()
		return nil, &sdk.Error{Code: codeUnsupportedFormat, Message: "not a workbook this tool reads: " + p,
			NextStep: "this tool reads Excel workbooks (.xlsx, .xlsm, .xltx, .xltm, .xlsb, .xls, .xlt) and OpenDocument spreadsheets (.ods, .ots); save other formats as .xlsx first"}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, sdk.Errorf(sdk.CodeInvalidArgs, "%s is not a regular file", p)
	}
	return f, nil
}

// workbooksIn lists up to five workbooks in an open folder, by path.
func workbooksIn(dir *os.File) []string {
	ents, err := dir.ReadDir(1000)
	if err != nil && len(ents) == 0 {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && slices.Contains(workbookExts, strings.ToLower(filepath.Ext(e.Name()))) {
			out = append(out, filepath.Join(dir.Name(), e.Name()))
		}
	}
	slices.Sort(out)
	return out[:min(len(out), 5)]
}
