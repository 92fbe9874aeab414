// Command hello is the smallest toolhost plugin: one action, greet, declared
// in the tool.yaml beside it. Built next to its manifest, it serves the host
// over go-plugin; run by hand, it is a command-line tool:
//
//	go build -o examples/hello/hello ./examples/hello
//	examples/hello/hello greet --name Ana
package main

import (
	"context"
	"strings"

	"github.com/toolhost/toolhost/sdk"
)

func main() {
	sdk.Main(sdk.Plugin{Actions: map[string]sdk.Handler{"greet": greet}})
}

// greetArgs are greet's args; the json tags are the kebab-case names of
// tool.yaml. The host has already checked them against the manifest.
type greetArgs struct {
	Name  string `json:"name"`
	Shout bool   `json:"shout"`
}

// greet returns {"greeting": "hello, NAME"} and the same line as Markdown.
func greet(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a greetArgs
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		return nil, &sdk.Error{Code: sdk.CodeInvalidArgs, Message: "name is empty",
			NextStep: "give the name of who to greet, e.g. --name Ana"}
	}
	greeting := "hello, " + name
	if a.Shout {
		greeting = strings.ToUpper(greeting) + "!"
	}
	return &sdk.Result{Data: map[string]any{"greeting": greeting}, Markdown: "**" + greeting + "**"}, nil
}
