package supervisor

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Bounds of what a launch error quotes of a plugin's stderr.
const (
	tailLines = 10
	tailBytes = 2048
)

// stderrTail keeps the last lines a plugin wrote on stderr, so a launch
// that fails says why (a Python traceback, a missing library) instead of
// leaving it in a debug log. go-plugin writes each stderr line to it, in
// pieces, as ClientConfig.Stderr.
type stderrTail struct {
	mu    sync.Mutex
	lines []string
	cur   strings.Builder
}

func (t *stderrTail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := string(b); s != ""; {
		line, rest, nl := strings.Cut(s, "\n")
		if t.cur.Len() < tailBytes {
			t.cur.WriteString(line[:min(len(line), tailBytes-t.cur.Len())])
		}
		if !nl {
			break
		}
		if l := strings.TrimRight(t.cur.String(), "\r"); strings.TrimSpace(l) != "" {
			t.lines = append(t.lines, l)
			if len(t.lines) > tailLines {
				t.lines = t.lines[len(t.lines)-tailLines:]
			}
		}
		t.cur.Reset()
		s = rest
	}
	return len(b), nil
}

// String is the last lines, at most tailLines and about tailBytes, the
// newest kept whole when they must be cut.
func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := append([]string{}, t.lines...)
	if l := strings.TrimSpace(t.cur.String()); l != "" {
		lines = append(lines, t.cur.String())
	}
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	n := 0
	for i := len(lines) - 1; i >= 0; i-- {
		n += len(lines[i]) + 1
		if n > tailBytes && i < len(lines)-1 {
			lines = lines[i+1:]
			break
		}
	}
	return strings.Join(lines, "\n")
}

// launchError is a failed launch with what the plugin last wrote on stderr
// and what to do about it.
type launchError struct {
	err      error
	stderr   string
	nextStep string
}

func (e *launchError) Error() string {
	if e.stderr == "" {
		return e.err.Error()
	}
	return fmt.Sprintf("%v\nthe plugin's last lines on stderr:\n  %s", e.err, strings.ReplaceAll(e.stderr, "\n", "\n  "))
}

func (e *launchError) Unwrap() error { return e.err }

// pythonModules are the Debian packages of the Python modules the toolhost
// Python SDK imports (scripts/debian-packages.txt installs them).
var pythonModules = map[string]string{
	"grpc":         "python3-grpcio",
	"google":       "python3-protobuf",
	"yaml":         "python3-yaml",
	"cryptography": "python3-cryptography",
}

var missingModule = regexp.MustCompile(`ModuleNotFoundError: No module named '([^'.]+)`)

// launchNextStep says what to do about a launch whose stderr ended with
// stderr, or "" when there is nothing more specific than `host check`.
func launchNextStep(stderr string) string {
	m := missingModule.FindAllStringSubmatch(stderr, -1)
	if len(m) == 0 {
		return ""
	}
	mod := m[len(m)-1][1]
	if pkg, ok := pythonModules[mod]; ok {
		return fmt.Sprintf("the plugin's Python lacks the module %s: install the Debian package %s (sudo apt-get install %s, or sh scripts/debian-deps.sh from the toolhost repository), then call again", mod, pkg, pkg)
	}
	return fmt.Sprintf("the plugin's Python lacks the module %s: install it for the python3 the plugin's entrypoint runs, then call again", mod)
}
