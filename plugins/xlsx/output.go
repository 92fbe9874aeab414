package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/sdk"
)

// outputEnv names the variable holding the one folder dump saves into.
const outputEnv = "XLSX_OUTPUT_DIR"

// defaultOutput is the output folder under the home folder when outputEnv
// is unset: a visible folder of its own, so a save can touch nothing else.
var defaultOutput = filepath.Join("toolhost-output", "xlsx")

// outputDir returns the folder dump saves into, with its symlinks
// resolved, creating it (0700) when missing. It refuses a folder that is
// /, the home folder or one of its ancestors, a system folder, or inside a
// dot-folder: the output folder must be dedicated to dumps.
func outputDir() (string, error) {
	dir := strings.TrimSpace(os.Getenv(outputEnv))
	if dir == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", &sdk.Error{Code: codeInvalidConfig, Message: "save: no home folder to hold the output folder: " + err.Error(),
				NextStep: "set " + outputEnv + " to a folder for dumps"}
		}
		dir = filepath.Join(h, defaultOutput)
	}
	abs, err := filepath.Abs(expandHome(dir))
	if err != nil {
		return "", sdk.Errorf(codeInvalidConfig, "save: %s %q: %v", outputEnv, dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", sdk.Errorf(codeInvalidConfig, "save: create the output folder %s: %v", abs, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", sdk.Errorf(codeInvalidConfig, "save: the output folder %s: %v", abs, err)
	}
	h, _ := os.UserHomeDir()
	if systemFolder(real) || (h != "" && filepath.Clean(h) == real) {
		return "", &sdk.Error{Code: codeInvalidConfig,
			Message:  "save: the output folder " + real + " is not a folder of its own (it is /, the home folder, a system folder or inside a dot-folder)",
			NextStep: "set " + outputEnv + " to a folder kept for dumps, such as ~/" + defaultOutput}
	}
	return real, nil
}

// saveName checks dump's save argument and returns its components below
// the output folder out: a file name or a relative path (taken from the
// output folder), or an absolute path inside it. No component may be
// empty, "..", or a dotfile or dot-folder.
func saveName(save, out string) ([]string, error) {
	p := expandHome(save)
	if filepath.IsAbs(p) {
		rel, ok := relUnder(out, filepath.Clean(p))
		if !ok {
			if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				rel, ok = relUnder(out, filepath.Join(real, filepath.Base(p)))
			}
		}
		if !ok || rel == "." {
			return nil, &sdk.Error{Code: codePathNotAllowed,
				Message:  "save " + save + " is outside the output folder " + out,
				NextStep: "give a file name: dump saves only into " + out + " (" + outputEnv + ")",
				Details:  map[string]any{"output_folder": out}}
		}
		p = rel
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	for _, c := range parts {
		switch {
		case c == "" || c == "." || c == "..":
			return nil, sdk.Errorf(sdk.CodeInvalidArgs, "save %q: an empty, . or .. component is not allowed; give a file name inside the output folder %s", save, out)
		case strings.HasPrefix(c, "."):
			return nil, &sdk.Error{Code: codePathNotAllowed,
				Message:  "save " + save + " names a dotfile or dot-folder (" + c + "), which dump never writes",
				NextStep: "choose a name that does not start with a dot"}
		case strings.ContainsRune(c, 0):
			return nil, sdk.Errorf(sdk.CodeInvalidArgs, "save %q: a NUL byte in the name", save)
		}
	}
	return parts, nil
}

// saveError turns an error of creating or linking the save target into
// the plugin's error codes.
func saveError(target string, err error) error {
	switch {
	case errors.Is(err, errSymlink):
		return &sdk.Error{Code: codePathNotAllowed, Message: "save " + target + ": a folder on the way is a symlink or not a folder",
			NextStep: "save into a real folder inside the output folder; dump never follows a symlink"}
	case errors.Is(err, fs.ErrExist):
		return &sdk.Error{Code: codeAlreadyExists, Message: "file already exists: " + target,
			NextStep: "choose a new file name; dump never overwrites"}
	case errors.Is(err, fs.ErrNotExist):
		return &sdk.Error{Code: sdk.CodeNotFound, Message: "folder of " + target + " does not exist",
			NextStep: "save into the output folder or a folder that exists inside it"}
	case errors.Is(err, fs.ErrPermission):
		return sdk.Errorf(codePermissionDenied, "save %s: permission denied", target)
	}
	return sdk.Errorf(sdk.CodeInternalError, "save %s: %v", target, err)
}

// errSymlink is a save path with a symlink (or a file) where a folder
// should be.
var errSymlink = errors.New("not a real folder")
