package source

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// contentSteps reads a message's content array in one pass, appending its
// tool uses to out.
func contentSteps(d *jsonscan.Dec, out []Step) []Step {
	d.Array(func() {
		if d.Peek() != '{' {
			return
		}
		var typ, name, input []byte
		d.Object(func(k []byte) {
			switch string(k) {
			case "type":
				typ = d.Raw()
			case "name":
				name = d.Raw()
			case "input":
				input = d.Raw()
			}
		})
		if string(typ) == `"tool_use"` {
			out = append(out, toolStep(name, input))
		}
	})
	return out
}

// rawString is a raw JSON string's bytes when it has no escapes, without
// copying; else it is decoded.
func rawString(v []byte) []byte {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	s, _ := jsonscan.String(v)
	return []byte(s)
}

// toolStep classifies one tool use by its name and input.
func toolStep(name, input []byte) Step {
	s := Step{Kind: StepOther}
	switch string(rawString(name)) {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		s.Kind = StepEdit
		_ = jsonscan.Fields(input, func(k, v []byte) bool {
			if string(k) == "file_path" || string(k) == "notebook_path" {
				s.File = fnv64(v)
				return false
			}
			return true
		})
	case "Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite":
		s.Kind = StepRead
	case "Task", "Agent":
		s.Kind = StepDelegate
	case "Bash":
		s.Kind = StepShell
		_ = jsonscan.Fields(input, func(k, v []byte) bool {
			if string(k) == "command" {
				s.Kind = shellKind(rawString(v))
				return false
			}
			return true
		})
	}
	return s
}

// shellKind is ShellKind without copying an ASCII command.
func shellKind(cmd []byte) StepKind {
	for _, c := range cmd {
		if c >= utf8.RuneSelf {
			return ShellKind(string(cmd))
		}
	}
	// ASCII: strings.Fields splits at these bytes.
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	word := func(i int) (w []byte, next int) {
		for i < len(cmd) && isSpace(cmd[i]) {
			i++
		}
		j := i
		for j < len(cmd) && !isSpace(cmd[j]) {
			j++
		}
		return cmd[i:j], j
	}
	first, i := word(0)
	if len(first) == 0 {
		return StepShell
	}
	switch string(first) {
	case "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree", "less", "file", "stat", "du", "df":
		return StepShellRead
	case "go", "npm", "pnpm", "yarn", "cargo", "pytest", "make", "bun", "deno":
		for {
			var w []byte
			if w, i = word(i); len(w) == 0 {
				break
			}
			if bytes.HasPrefix(w, []byte("test")) || string(w) == "vet" {
				return StepTest
			}
		}
	case "git":
		if w, _ := word(i); len(w) > 0 {
			switch string(w) {
			case "status", "diff", "log", "show", "branch", "blame":
				return StepShellRead
			}
		}
		return StepGit
	}
	if bytes.Contains(cmd, []byte("pytest")) || bytes.Contains(cmd, []byte("jest")) || bytes.Contains(cmd, []byte("vitest")) {
		return StepTest
	}
	return StepShell
}

// ShellKind classifies a shell command by its first word(s).
func ShellKind(cmd string) StepKind {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return StepShell
	}
	switch f[0] {
	case "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree", "less", "file", "stat", "du", "df":
		return StepShellRead
	case "go", "npm", "pnpm", "yarn", "cargo", "pytest", "make", "bun", "deno":
		for _, w := range f[1:] {
			if w == "test" || w == "vet" || strings.HasPrefix(w, "test") {
				return StepTest
			}
		}
	case "git":
		if len(f) > 1 {
			switch f[1] {
			case "status", "diff", "log", "show", "branch", "blame":
				return StepShellRead
			}
		}
		return StepGit
	}
	if strings.Contains(cmd, "pytest") || strings.Contains(cmd, "jest") || strings.Contains(cmd, "vitest") {
		return StepTest
	}
	return StepShell
}
