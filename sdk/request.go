package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/manifests"
)

// NewRequestFor builds the Request the host would send for a call of action
// with args (nil means {}): the args are checked against the action in the
// plugin's tool.yaml and its defaults filled in, so a handler's tests see
// exactly what the host passes and a handler need not repeat a default the
// manifest declares. The tool.yaml is the one in the working directory or
// the nearest folder above it (`go test` runs in the package's folder). A
// call the host would refuse returns the invalid_args or unknown_action
// *Error it would answer.
func NewRequestFor(action string, args any) (*Request, error) {
	m, err := nearestManifest()
	if err != nil {
		return nil, err
	}
	a := m.Action(action)
	if a == nil {
		return nil, &Error{Code: CodeUnknownAction, Message: fmt.Sprintf("%s has no action %q", m.Name, action),
			DidYouMean: manifests.Suggest(action, m.ActionNames())}
	}
	raw := json.RawMessage("{}")
	if args != nil {
		if raw, err = json.Marshal(args); err != nil {
			return nil, fmt.Errorf("sdk: marshal args: %w", err)
		}
	}
	return newCheckedRequest(a, raw)
}

// newCheckedRequest checks raw against the action, as the host does before
// any call, and builds the Request with the checked args.
func newCheckedRequest(a *manifests.Action, raw json.RawMessage) (*Request, error) {
	checked, err := a.Check(raw)
	if err != nil {
		var ae *manifests.ArgError
		if errors.As(err, &ae) {
			e := &Error{Code: CodeInvalidArgs, Message: ae.Message, DidYouMean: ae.DidYouMean}
			if ae.Schema != nil {
				e.Schema = ae.Schema
			}
			return nil, e
		}
		return nil, Errorf(CodeInvalidArgs, "%v", err)
	}
	b, err := json.Marshal(checked)
	if err != nil {
		return nil, Errorf(CodeInvalidArgs, "encode args: %v", err)
	}
	return &Request{Action: a.Name, Args: b, Caller: Caller{ClientName: "unknown"}}, nil
}

// nearestManifest parses the tool.yaml of the working directory or the
// nearest folder above it.
func nearestManifest() (*manifests.Manifest, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("sdk: find tool.yaml: %w", err)
	}
	for {
		path := filepath.Join(dir, manifests.FileName)
		if _, err := os.Stat(path); err == nil {
			m, err := manifests.Parse(path)
			if err != nil {
				return nil, fmt.Errorf("sdk: read %s: %w", path, err)
			}
			return m, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("sdk: no %s in the working directory or above it: run the test from the plugin's folder", manifests.FileName)
		}
		dir = parent
	}
}
