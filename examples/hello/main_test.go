package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

func TestGreet(t *testing.T) {
	tests := []struct {
		name     string
		args     map[string]any
		want     string
		wantCode sdk.Code
	}{
		{"plain", map[string]any{"name": "Ana"}, "hello, Ana", ""},
		{"shout", map[string]any{"name": "Ana", "shout": true}, "HELLO, ANA!", ""},
		{"blank name", map[string]any{"name": "  "}, "", sdk.CodeInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := sdk.NewRequest("greet", tt.args)
			if err != nil {
				t.Fatal(err)
			}
			res, err := greet(context.Background(), req)
			if tt.wantCode != "" {
				var e *sdk.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode {
					t.Fatalf("got error %v, want code %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Data.(map[string]any)["greeting"]; got != tt.want {
				t.Errorf("got greeting %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCLIMode builds the plugin beside a copy of its tool.yaml and runs it
// by hand, as its author would: the result JSON on stdout, exit 0.
func TestCLIMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "hello")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	manifest, err := os.ReadFile("tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantExit int
		want     string // in stdout
	}{
		{"greets", []string{"greet", "--name", "Ana"}, 0, `"greeting":"hello, Ana"`},
		{"missing arg is a usage error", []string{"greet"}, 2, `"invalid_args"`},
		{"blank name is a usage error", []string{"greet", "--name", " "}, 2, `"name is empty"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command(bin, tt.args...).Output()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantExit {
				t.Errorf("exit %d, want %d; stdout %s", code, tt.wantExit, out)
			}
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			compact, _ := json.Marshal(v)
			if !strings.Contains(string(compact), tt.want) {
				t.Errorf("stdout %s lacks %s", compact, tt.want)
			}
		})
	}
}
