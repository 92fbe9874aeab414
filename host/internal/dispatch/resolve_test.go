package dispatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestACallWithoutAnAction checks the action a call names by leaving it
// out: a tool with one action runs it; a tool with several is refused with
// invalid_args naming how many, listing them, and pointing at capabilities.
func TestACallWithoutAnAction(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	one := filepath.Join(plugins, "onetool")
	if err := os.MkdirAll(one, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := testplugin.Manifest[:strings.Index(testplugin.Manifest, "  - name: slow")]
	if err := os.WriteFile(filepath.Join(one, "tool.yaml"), []byte(strings.Replace(manifest, "name: testtool", "name: onetool", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	testplugin.CopyBinary(t, testplugin.Build(t, "1"), filepath.Join(one, "testtool"))
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	reg.Scan()
	d := &Dispatcher{Registry: reg}

	_, action, args, o := d.Resolve(Call{Name: "onetool", Args: json.RawMessage(`{"text":"a"}`)})
	if o != nil || action.Name != "echo" || args["text"] != "a" {
		t.Fatalf("a one-action tool without an action: got action %v, args %v, failure %v", action, args, o)
	}

	_, _, _, o = d.Resolve(Call{Name: "testtool", Args: json.RawMessage(`{"text":"a"}`)})
	if o == nil {
		t.Fatal("a many-action tool without an action resolved")
	}
	var body struct {
		Error struct {
			Code       wire.Code `json:"code"`
			Message    string    `json:"message"`
			DidYouMean []string  `json:"did_you_mean"`
		} `json:"error"`
	}
	if err := json.Unmarshal(o.Body(), &body); err != nil {
		t.Fatal(err)
	}
	n := strings.Count(testplugin.Manifest, "\n  - name: ")
	e := body.Error
	if e.Code != wire.CodeInvalidArgs || e.Message != fmt.Sprintf("testtool has %d actions: name one with action", n) ||
		len(e.DidYouMean) != n || e.DidYouMean[0] != "echo" {
		t.Fatalf("got %s, want invalid_args naming the %d actions", o.Body(), n)
	}
}
