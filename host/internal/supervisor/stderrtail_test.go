//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestAPluginThatExitsBeforeTheHandshakeSaysWhy: a plugin whose launcher
// writes an error on stderr and exits before the handshake answers
// not_ready quoting that stderr, with a next step for the cause when the
// host knows one (a Python module missing: the Debian package).
func TestAPluginThatExitsBeforeTheHandshakeSaysWhy(t *testing.T) {
	tests := []struct {
		name     string
		stderr   string
		wantMsg  []string
		wantNext string
	}{
		{"python without grpc",
			"Traceback (most recent call last):\n  File \"text.py\", line 3, in <module>\nModuleNotFoundError: No module named 'grpc'\n",
			[]string{"testtool could not start", "testtool did not complete the plugin handshake", "the plugin's last lines on stderr", "ModuleNotFoundError: No module named 'grpc'", `File "text.py", line 3`},
			"install the Debian package python3-grpcio"},
		{"python without an unknown module",
			"ModuleNotFoundError: No module named 'numpy.linalg'\n",
			[]string{"No module named 'numpy.linalg'"},
			"lacks the module numpy: install it"},
		{"a missing library",
			"testtool: error while loading shared libraries: libfoo.so.1: cannot open shared object file\n",
			[]string{"libfoo.so.1: cannot open shared object file"},
			"host check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil, Options{})
			script := "#!/bin/sh\necho 'starting' >&2\nprintf '%s' \"$ERR\" >&2\nexit 1\n"
			bin := filepath.Join(f.plugins, "testtool", "testtool")
			testplugin.WriteFile(t, bin, "#!/bin/sh\nERR='"+strings.ReplaceAll(tt.stderr, "'", `'"'"'`)+"'\n"+strings.TrimPrefix(script, "#!/bin/sh\n"))
			if err := os.Chmod(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			f.reg.Scan()
			r := f.call(t, context.Background(), "echo", map[string]any{"text": "x"})
			wantCode(t, r, wire.CodeNotReady)
			e := r.GetError()
			for _, w := range tt.wantMsg {
				if !strings.Contains(e.GetMessage(), w) {
					t.Errorf("message lacks %q:\n%s", w, e.GetMessage())
				}
			}
			if !strings.Contains(e.GetNextStep(), tt.wantNext) {
				t.Errorf("next step %q, want it to say %q", e.GetNextStep(), tt.wantNext)
			}
		})
	}
}

// TestStderrTailIsBounded: the tail keeps the last tailLines lines, none
// longer than tailBytes, the whole under about tailBytes, whatever pieces
// they arrive in.
func TestStderrTailIsBounded(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   func(string) error
	}{
		{"last lines", func() (w []string) {
			for i := range 25 {
				w = append(w, fmt.Sprintf("line %d\n", i))
			}
			return w
		}(), func(s string) error {
			if !strings.HasPrefix(s, "line 15\n") || !strings.HasSuffix(s, "line 24") || strings.Count(s, "\n") != tailLines-1 {
				return fmt.Errorf("want lines 15 to 24")
			}
			return nil
		}},
		{"pieces of a line", []string{"Module", "NotFound", "Error", "\n", "\n", "tail"}, func(s string) error {
			if s != "ModuleNotFoundError\ntail" {
				return fmt.Errorf("want the pieces joined, the blank line dropped")
			}
			return nil
		}},
		{"long lines", []string{strings.Repeat("a", 5000) + "\n", strings.Repeat("b", 1500) + "\n", strings.Repeat("c", 1000) + "\n"}, func(s string) error {
			if len(s) > tailBytes || !strings.HasSuffix(s, strings.Repeat("c", 1000)) || strings.Contains(s, "a") {
				return fmt.Errorf("want at most %d bytes ending with the newest line whole", tailBytes)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tail stderrTail
			for _, w := range tt.writes {
				if _, err := tail.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.want(tail.String()); err != nil {
				t.Errorf("%v; got %d bytes:\n%.300s", err, len(tail.String()), tail.String())
			}
		})
	}
}
