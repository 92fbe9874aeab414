// Package scaffold writes a new plugin's folder for `host new-plugin`: a
// tool.yaml, the code of one action and its test, in Go (a main package on
// the SDK) or in Python (a script on the runtime of sdk/python, copied in).
// It writes files only; the caller builds, tests and approves.
package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"text/template"

	"github.com/toolhost/toolhost/sdk/python"
)

// Options say what to write.
type Options struct {
	// Name is the tool's name, kebab-case.
	Name string
	// Kind is "tool" or "agent".
	Kind string
	// Lang is "go" or "python".
	Lang string
	// Dir is the folder to create; it must not exist yet.
	Dir string
	// Replace, for a Go plugin outside the toolhost module, is the local
	// toolhost clone its go.mod points at; empty inside the module (no
	// go.mod is written).
	Replace string
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Write creates o.Dir with the plugin's files and returns their names.
func Write(o Options) ([]string, error) {
	if !kebab.MatchString(o.Name) {
		return nil, fmt.Errorf("scaffold: name %q: use lowercase kebab-case, e.g. word-count", o.Name)
	}
	if o.Kind != "tool" && o.Kind != "agent" {
		return nil, fmt.Errorf("scaffold: --kind %q: want tool or agent", o.Kind)
	}
	if o.Lang != "go" && o.Lang != "python" {
		return nil, fmt.Errorf("scaffold: --lang %q: want go or python", o.Lang)
	}
	if o.Lang == "python" && o.Kind == "agent" {
		return nil, errors.New("scaffold: agents are Go only for now (the Python runtime has no host client); use --lang go")
	}
	if _, err := os.Stat(o.Dir); err == nil {
		return nil, fmt.Errorf("scaffold: %s exists already: pick another name or remove it", o.Dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	files := map[string]string{"tool.yaml": manifestTmpl}
	mode := map[string]fs.FileMode{}
	switch o.Lang {
	case "go":
		files["main.go"] = goMainTmpl
		files["main_test.go"] = goTestTmpl
		if o.Replace != "" {
			files["go.mod"] = goModTmpl
		}
	case "python":
		files[o.Name] = pyLauncherTmpl
		mode[o.Name] = 0o755
		files[pyModule(o.Name)+".py"] = pyMainTmpl
		files["test_"+pyModule(o.Name)+".py"] = pyTestTmpl
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	data := map[string]any{"Name": o.Name, "Kind": o.Kind, "Lang": o.Lang, "Replace": o.Replace,
		"Module": pyModule(o.Name)}
	var names []string
	for name, text := range files {
		var buf bytes.Buffer
		if err := template.Must(template.New(name).Parse(text)).Execute(&buf, data); err != nil {
			return nil, fmt.Errorf("scaffold: %s: %w", name, err)
		}
		m := mode[name]
		if m == 0 {
			m = 0o644
		}
		if err := os.WriteFile(filepath.Join(o.Dir, name), buf.Bytes(), m); err != nil {
			return nil, fmt.Errorf("scaffold: %w", err)
		}
		names = append(names, name)
	}
	if o.Lang == "python" {
		runtime, err := python.WriteRuntime(o.Dir)
		if err != nil {
			return nil, fmt.Errorf("scaffold: %w", err)
		}
		names = append(names, runtime...)
	}
	return names, nil
}

// pyModule is the Python module name of a tool (hyphens are not allowed).
func pyModule(name string) string { return regexp.MustCompile(`-`).ReplaceAllString(name, "_") }

const manifestTmpl = `name: {{.Name}}
kind: {{.Kind}}
description: {{.Name}} — say here, for a model choosing a tool, what it does and returns.
version: 0.1.0
entrypoint: {{.Name}}
{{- if eq .Kind "agent"}}
# The tools (or tool/action) this agent may call through the host, e.g.
# uses: [text, notes/remember]. A nested call outside uses is refused.
{{- end}}
actions:
  - name: greet
    description: Greet someone by name; returns the greeting.
    read_only: true
    args:
      - {name: name, type: string, required: true, description: Who to greet}
      - {name: shout, type: boolean, default: false, description: Upper-case the greeting}
`

const goModTmpl = `module example.com/{{.Name}}

go 1.26

require github.com/toolhost/toolhost v0.0.0

replace github.com/toolhost/toolhost => {{.Replace}}
`

const goMainTmpl = `// Command {{.Name}} is a toolhost plugin{{if eq .Kind "agent"}} (an agent){{end}}. Its actions are declared in
// the tool.yaml beside it; build it there:
//
//	go build -o {{.Name}} .   (or from the toolhost module: go build -o plugins/{{.Name}}/{{.Name}} ./plugins/{{.Name}})
package main

import (
	"context"
	"strings"

	"github.com/toolhost/toolhost/sdk"
)

func main() {
	sdk.Main(sdk.Plugin{Actions: map[string]sdk.Handler{"greet": greet}})
}

// greet returns {"greeting": "hello, NAME"}.
func greet(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		Name  string ` + "`json:\"name\"`" + `
		Shout bool   ` + "`json:\"shout\"`" + `
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		return nil, &sdk.Error{Code: sdk.CodeInvalidArgs, Message: "name is empty", NextStep: "give --name"}
	}
{{- if eq .Kind "agent"}}
	// An agent calls other tools through the host (declare them in uses:):
	//	res, err := req.Host().Call(ctx, "text", "stats", map[string]any{"text": name}, false)
{{- end}}
	greeting := "hello, " + name
	if a.Shout {
		greeting = strings.ToUpper(greeting) + "!"
	}
	return &sdk.Result{Data: map[string]any{"greeting": greeting}, Markdown: "**" + greeting + "**"}, nil
}
`

const goTestTmpl = `package main

import (
	"context"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

func TestGreet(t *testing.T) {
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "Ana"}, "hello, Ana"},
		{map[string]any{"name": "Ana", "shout": true}, "HELLO, ANA!"},
	}
	for _, tt := range tests {
		req, err := sdk.NewRequest("greet", tt.args)
		if err != nil {
			t.Fatal(err)
		}
		res, err := greet(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Data.(map[string]any)["greeting"]; got != tt.want {
			t.Errorf("greet %v: got %q, want %q", tt.args, got, tt.want)
		}
	}
	req, _ := sdk.NewRequest("greet", map[string]any{"name": " "})
	if _, err := greet(context.Background(), req); err == nil {
		t.Error("a blank name was greeted; want invalid_args")
	}
}
`

const pyLauncherTmpl = `#!/bin/sh
# {{.Name}}'s entrypoint: runs {{.Module}}.py with the Python that has Debian's
# python3-grpcio, -protobuf, -cryptography and -yaml; -I isolates it (no
# user site-packages, no PYTHON* variables), -B writes no bytecode.
here=$(dirname "$0")
if [ -x /usr/bin/python3 ]; then
	exec /usr/bin/python3 -I -B "$here/{{.Module}}.py" "$@"
fi
exec python3 -I -B "$here/{{.Module}}.py" "$@"
`

const pyMainTmpl = `"""{{.Name}}: a toolhost plugin in Python. Its actions are declared in
tool.yaml beside it; toolhost_plugin serves them to the host or runs them
as a CLI (./{{.Name}} greet --name Ana)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toolhost_plugin as th  # noqa: E402


def greet(req):
    name = (req.args.get("name") or "").strip()
    if not name:
        raise th.ToolError("invalid_args", "name is empty", next_step="give --name")
    greeting = "hello, " + name
    if req.args.get("shout"):
        greeting = greeting.upper() + "!"
    return th.Result({"greeting": greeting}, markdown="**%s**" % greeting)


ACTIONS = {"greet": greet}

if __name__ == "__main__":
    th.main(ACTIONS)
`

const pyTestTmpl = `"""Tests of {{.Name}}'s actions: python3 -m unittest discover -s THIS_FOLDER."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toolhost_plugin as th  # noqa: E402
import {{.Module}}  # noqa: E402


class GreetTest(unittest.TestCase):
    def test_greets(self):
        res = {{.Module}}.greet(th.Request("greet", {"name": "Ana"}))
        self.assertEqual(res.data, {"greeting": "hello, Ana"})

    def test_shouts(self):
        res = {{.Module}}.greet(th.Request("greet", {"name": "Ana", "shout": True}))
        self.assertEqual(res.data["greeting"], "HELLO, ANA!")

    def test_blank_name(self):
        with self.assertRaises(th.ToolError) as e:
            {{.Module}}.greet(th.Request("greet", {"name": " "}))
        self.assertEqual(e.exception.code, "invalid_args")


if __name__ == "__main__":
    unittest.main()
`
