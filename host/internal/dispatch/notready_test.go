package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestNotReadyWithoutANextStepOfItsOwn checks a call to a plugin whose
// binary is missing (the registry gives no next step of its own):
// not_ready naming what is missing, and `host check` as the next step.
func TestNotReadyWithoutANextStepOfItsOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "testtool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(testplugin.Manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry.New(registry.Options{PluginDirs: []string{filepath.Dir(dir)}})
	reg.Scan()
	d := &Dispatcher{Registry: reg}
	o := d.Run(context.Background(), Call{Name: "testtool", Action: "echo", Args: json.RawMessage(`{"text":"a"}`)}, nil)
	e := bodyError(t, o)
	if e.Code != wire.CodeNotReady || !strings.Contains(e.Message, "testtool not found") || e.NextStep != "run `host check`, fix what it says, then call again" {
		t.Fatalf("got %s, want not_ready naming the missing binary, next step host check", o.Body())
	}
}
