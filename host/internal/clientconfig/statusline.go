package clientconfig

import (
	"bytes"
	"encoding/json"
	"path/filepath"
)

// StatusLinePath is Claude Code's user settings file, where its status
// line is set: settings.json in CLAUDE_CONFIG_DIR (claudeDir) when set,
// else in ~/.claude.
func StatusLinePath(e Env, claudeDir string) string {
	if claudeDir != "" {
		return filepath.Join(claudeDir, "settings.json")
	}
	return filepath.Join(e.Home, ".claude", "settings.json")
}

// StatusLineEntry is the statusLine setting that runs command (Claude
// Code's settings: code.claude.com/docs/en/statusline).
func StatusLineEntry(command string) map[string]any {
	return map[string]any{"type": "command", "command": command, "padding": 0}
}

// InstallStatusLine makes Claude Code's settings at path run command as
// its status line, changing nothing else in the file (a status line set
// before is replaced; the file as it was is kept as path.bak).
func InstallStatusLine(path, command string, dryRun bool) (Outcome, error) {
	return edit(path, dryRun, func(doc []byte) ([]byte, bool, error) {
		return SetTop(doc, "statusLine", StatusLineEntry(command))
	})
}

// SetTop makes doc's top-level name hold value, changing nothing else; it
// reports whether doc changed.
func SetTop(doc []byte, name string, value any) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		b, err := json.MarshalIndent(map[string]any{name: value}, "", "  ")
		return append(b, '\n'), true, err
	}
	root, top, err := parseObject(doc)
	if err != nil {
		return nil, false, err
	}
	changed, err := putMember(doc, top, name, value, "", indentUnit(doc, top))
	if err != nil || !changed {
		return doc, false, err
	}
	return root.Pack(), true, nil
}
