package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// Flag is one arg as given on the command line: its name and its text.
type Flag struct {
	Name  string
	Value string
}

// ParsePair reads one `NAME=VALUE` (`host call --arg`).
func ParsePair(pair string) (Flag, *wire.Error) {
	name, value, ok := strings.Cut(pair, "=")
	if !ok || name == "" {
		return Flag{}, &wire.Error{Code: wire.CodeInvalidArgs, Message: fmt.Sprintf("--arg %q is not NAME=VALUE", pair),
			NextStep: "write each arg as --arg NAME=VALUE, e.g. --arg path=book.xlsx"}
	}
	return Flag{Name: name, Value: value}, nil
}

// BuildArgs turns the flags, or a whole JSON object (argsJSON), into the
// args of a call. Each flag whose name the action declares is typed by its
// manifest arg (an integer arg's "3" becomes 3, an array arg takes JSON or
// a comma list); a name it does not declare passes on as a string, so the
// host's arg checker answers it with did_you_mean and the schema, exactly
// as it answers an MCP client. a may be nil (tool or action unknown): every
// value is then a string. Giving both flags and argsJSON is a usage error.
func BuildArgs(a *manifests.Action, flags []Flag, argsJSON string) (json.RawMessage, *wire.Error) {
	if argsJSON != "" {
		if len(flags) > 0 {
			return nil, &wire.Error{Code: wire.CodeInvalidArgs, Message: "args given both as one JSON object and as single args",
				NextStep: "give either the JSON object or the single args, not both"}
		}
		return json.RawMessage(argsJSON), nil
	}
	obj := make(map[string]any, len(flags))
	for _, f := range flags {
		var v any = f.Value
		if arg := lookup(a, f.Name); arg != nil {
			conv, err := arg.FromString(f.Value)
			if err != nil {
				// FromString's error already names the arg and what it got.
				return nil, &wire.Error{Code: wire.CodeInvalidArgs, Message: err.Error(), NextStep: valueHint(arg)}
			}
			v = conv
		}
		obj[f.Name] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInternalError, "cli: encode args: %v", err)
	}
	return b, nil
}

// IsBoolean reports whether the action declares name as a boolean arg, so
// a front end may take `--name` alone as true.
func IsBoolean(a *manifests.Action, name string) bool {
	arg := lookup(a, name)
	return arg != nil && arg.Type == manifests.TypeBoolean
}

func lookup(a *manifests.Action, name string) *manifests.Arg {
	if a == nil {
		return nil
	}
	return a.Arg(name)
}

// valueHint is the next step for a value of the wrong type: what to give
// the arg instead, with an example (its default when it has one).
func valueHint(a *manifests.Arg) string {
	like := func(example string) string {
		if a.Default != nil {
			if b, err := json.Marshal(a.Default); err == nil {
				example = string(b)
			}
		}
		return " (e.g. " + example + ")"
	}
	var what string
	switch a.Type {
	case manifests.TypeInteger:
		what = "a whole number" + like("5")
	case manifests.TypeNumber:
		what = "a number" + like("2.5")
	case manifests.TypeBoolean:
		what = "true or false"
	case manifests.TypeArray:
		if it, _ := a.Items["type"].(string); it != "" && it != "string" {
			what = "a JSON array of " + it + like("[1,2]")
		} else {
			what = "a comma-separated list or a JSON array" + like("a,b")
		}
	case manifests.TypeObject:
		what = "a JSON object" + like(`{"key":"value"}`)
	default:
		what = "a " + string(a.Type)
	}
	return "give " + a.Name + " " + what
}
