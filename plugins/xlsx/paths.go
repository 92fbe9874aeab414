package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/sdk"
)

// Codes of this plugin's errors, besides the SDK's.
const (
	codeNotFound          sdk.Code = "not_found"
	codePathNotAllowed    sdk.Code = "path_not_allowed"
	codeUnsupportedFormat sdk.Code = "unsupported_format"
	codeAlreadyExists     sdk.Code = "already_exists"
	codeInvalidWorkbook   sdk.Code = "invalid_workbook"
	codeEncryptedWorkbook sdk.Code = "encrypted_workbook"
	codeWorkbookTooLarge  sdk.Code = "workbook_too_large"
	codePermissionDenied  sdk.Code = "permission_denied"
)

// rootsEnv names the variable listing the folders the plugin may read and
// write under, separated by os.PathListSeparator.
const rootsEnv = "XLSX_ROOTS"

// allowedRoots returns the folders paths must resolve under: XLSX_ROOTS,
// or by default the user's home and the working directory; each with its
// symlinks resolved.
func allowedRoots() []string {
	var raw []string
	if v := os.Getenv(rootsEnv); strings.TrimSpace(v) != "" {
		raw = filepath.SplitList(v)
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
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		roots = append(roots, abs)
	}
	return roots
}

func under(p string, roots []string) bool {
	for _, r := range roots {
		if p == r {
			return true
		}
		rel, err := filepath.Rel(r, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

func notAllowed(p string, roots []string) *sdk.Error {
	return &sdk.Error{Code: codePathNotAllowed,
		Message:  "path " + p + " is outside the folders this tool may use",
		NextStep: "use a file under one of the allowed roots, or add its folder to " + rootsEnv,
		Details:  map[string]any{"allowed_roots": roots}}
}

// resolveWorkbook checks a workbook path: an .xlsx or .xlsm file that
// exists and, once its symlinks are resolved, lies under an allowed root.
func resolveWorkbook(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", &sdk.Error{Code: sdk.CodeInvalidArgs, Message: "path is required", NextStep: "pass --path with a local .xlsx or .xlsm file"}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", sdk.Errorf(sdk.CodeInvalidArgs, "path %s: %v", p, err)
	}
	roots := allowedRoots()
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if !under(abs, roots) {
				return "", notAllowed(abs, roots)
			}
			return "", &sdk.Error{Code: codeNotFound, Message: "file not found: " + p}
		}
		return "", sdk.Errorf(codeNotFound, "file %s cannot be read: %v", p, err)
	}
	if !under(real, roots) {
		return "", notAllowed(real, roots)
	}
	switch strings.ToLower(filepath.Ext(real)) {
	case ".xlsx", ".xlsm":
	default:
		return "", &sdk.Error{Code: codeUnsupportedFormat, Message: "not an .xlsx/.xlsm file: " + p,
			NextStep: "this tool reads Office Open XML workbooks (.xlsx, .xlsm); save other formats as .xlsx first"}
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", sdk.Errorf(codeNotFound, "file %s cannot be read: %v", p, err)
	}
	if !st.Mode().IsRegular() {
		return "", sdk.Errorf(sdk.CodeInvalidArgs, "%s is not a regular file", p)
	}
	return real, nil
}

// createOutput creates a new file for dump's save: its folder must resolve
// under an allowed root and the file must not exist yet (it is never
// overwritten, nor followed if it is a symlink).
func createOutput(p string) (*os.File, string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", sdk.Errorf(sdk.CodeInvalidArgs, "save %s: %v", p, err)
	}
	roots := allowedRoots()
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		if !under(abs, roots) {
			return nil, "", notAllowed(abs, roots)
		}
		return nil, "", &sdk.Error{Code: codeNotFound, Message: "folder of " + p + " does not exist",
			NextStep: "save into an existing folder"}
	}
	target := filepath.Join(dir, filepath.Base(abs))
	if !under(target, roots) {
		return nil, "", notAllowed(target, roots)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, "", &sdk.Error{Code: codeAlreadyExists, Message: "file already exists: " + target,
				NextStep: "choose a new file name; dump never overwrites"}
		}
		return nil, "", sdk.Errorf(sdk.CodeInternalError, "save %s: %v", target, err)
	}
	return f, target, nil
}
