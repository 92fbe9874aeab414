package sdk_test

import (
	"context"
	"fmt"

	"github.com/toolhost/toolhost/sdk"
)

// A handler binds its kebab-case args into a struct and returns structured
// data, optionally with a Markdown rendering.
func ExampleHandler() {
	hello := func(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
		var args struct {
			Name string `json:"name"`
		}
		if err := req.Bind(&args); err != nil {
			return nil, err
		}
		if args.Name == "" {
			return nil, &sdk.Error{Code: sdk.CodeInvalidArgs, Message: "name is empty", NextStep: "pass --name"}
		}
		return &sdk.Result{Data: map[string]any{"greeting": "hello " + args.Name}}, nil
	}
	req, _ := sdk.NewRequest("say-hello", map[string]any{"name": "Ana"})
	res, _ := hello(context.Background(), req)
	fmt.Println(res.Data)
	// Output: map[greeting:hello Ana]
}

// Errors carry a code, a message and what to do next; they cross the
// process boundary as data.
func ExampleErrorf() {
	err := sdk.Errorf("path_not_allowed", "%s is outside the allowed roots", "/etc/passwd")
	fmt.Println(err)
	// Output: path_not_allowed: /etc/passwd is outside the allowed roots
}

// Main serves the plugin to the host, or runs it as a CLI when started by
// hand; it is the whole of a plugin's main function.
func ExampleMain() {
	plugin := sdk.Plugin{Actions: map[string]sdk.Handler{
		"say-hello": func(context.Context, *sdk.Request) (*sdk.Result, error) {
			return &sdk.Result{Data: map[string]any{"greeting": "hello"}}, nil
		},
	}}
	_ = plugin // in package main: sdk.Main(plugin)
}
