package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestConfirmationBelongsToItsCall runs two calls of one agent at once: a
// confirmed one that keeps its host client, and an unconfirmed one that
// makes an irreversible nested call through that kept client. The
// confirmation is the first call's, so the second is refused, whether it
// names its own call (its context) or none (a background context); a
// confirmed nested call made within the confirmed call itself still runs.
func TestConfirmationBelongsToItsCall(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	testplugin.InstallAgent(t, plugins)
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	reg.Scan()
	d := agentHost(t, reg)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kept := make(chan struct{})
	done := make(chan Outcome, 1)
	go func() {
		closed := false
		done <- d.Run(ctx, Call{Kind: manifests.KindAgent, Name: "testagent", Action: "keep-host", Args: json.RawMessage(`{}`),
			Confirmed: true, Caller: &wire.Caller{ClientName: "person"}}, func(*wire.Progress) {
			if !closed {
				closed = true
				close(kept)
			}
		})
	}()
	select {
	case <-kept:
	case o := <-done:
		t.Fatalf("the confirmed call ended before it kept its host client: %s", o.Body())
	case <-time.After(time.Minute):
		t.Fatal("the confirmed call never kept its host client")
	}

	for _, background := range []bool{false, true} {
		args, _ := json.Marshal(map[string]any{"tool": "testtool", "action": "delete-thing", "args": map[string]any{"text": "x"},
			"confirmed": true, "background": background})
		o := d.Run(context.Background(), Call{Kind: manifests.KindAgent, Name: "testagent", Action: "relay-kept", Args: args,
			Caller: &wire.Caller{ClientName: "agent"}}, nil)
		if !o.IsError() {
			t.Fatalf("background %v: an unconfirmed call of the agent ran an irreversible nested call under another call's confirmation: %s", background, o.Body())
		}
		if o.Code() != wire.CodeDenied || !strings.Contains(string(o.Body()), "belongs to") && !strings.Contains(string(o.Body()), "another call") {
			t.Fatalf("background %v: got %s, want denied naming the call the confirmation belongs to", background, o.Body())
		}
	}

	// Within the confirmed call the confirmation holds.
	args, _ := json.Marshal(map[string]any{"tool": "testtool", "action": "delete-thing", "args": map[string]any{"text": "ok"}, "confirmed": true})
	if o := d.Run(context.Background(), Call{Kind: manifests.KindAgent, Name: "testagent", Action: "relay", Args: args,
		Confirmed: true, Caller: &wire.Caller{ClientName: "person"}}, nil); o.IsError() {
		t.Fatalf("a confirmed agent call could not make its own confirmed nested call: %s", o.Body())
	}
	cancel()
	<-done
}
