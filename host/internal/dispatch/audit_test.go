package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhost/toolhost/host/internal/audit"
	"github.com/toolhost/toolhost/host/internal/supervisor"
	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestAuditKeepsTheCallsThatNeedAnAccount checks which calls reach the
// audit log: a confirmed call, an irreversible one, and any call to a tool
// whose folder is not approved as it is (new or changed since approval);
// a plain reversible call to an approved (or unchecked) tool does not.
func TestAuditKeepsTheCallsThatNeedAnAccount(t *testing.T) {
	// One registry that checks approval: testtool approved, then changed.
	plugins, state := t.TempDir(), t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	approving := registry.New(registry.Options{PluginDirs: []string{plugins}, RequireApproval: true,
		StateDir: filepath.Join(state, "toolhost"), RunDir: t.TempDir()})
	sup := supervisor.New(supervisor.Options{CacheDir: t.TempDir()})
	t.Cleanup(sup.Close)
	var got []audit.Entry
	audited := &Dispatcher{Registry: approving, Runner: sup, Audit: func(e audit.Entry) { got = append(got, e) }}
	// One that does not check approval (unchecked), as in dev mode.
	plain := registry.New(registry.Options{PluginDirs: []string{plugins}})
	plain.Scan()
	unchecked := &Dispatcher{Registry: plain, Runner: sup, Audit: func(e audit.Entry) { got = append(got, e) }}

	echo := Call{Name: "testtool", Action: "echo", Args: json.RawMessage(`{"text":"a"}`), Caller: &wire.Caller{ClientName: "test"}}
	confirmedEcho := echo
	confirmedEcho.Confirmed = true
	deleteThing := Call{Name: "testtool", Action: "delete-thing", Args: json.RawMessage(`{"text":"a"}`), Confirmed: true, Caller: &wire.Caller{ClientName: "test"}}

	steps := []struct {
		name   string
		before func(t *testing.T) // changes the folder's approval state
		d      *Dispatcher
		call   Call
		want   []audit.Entry
	}{
		{"new: no approval yet", func(*testing.T) { approving.Scan() }, audited, echo,
			[]audit.Entry{{Client: "test", Tool: "testtool", Action: "echo", Args: []string{"text"}, Outcome: string(wire.CodeNotReady)}}},
		{"approved, plain reversible", func(t *testing.T) {
			if _, err := approving.Approve(nil, "test"); err != nil {
				t.Fatal(err)
			}
			approving.Scan()
		}, audited, echo, nil},
		{"approved, confirmed", nil, audited, confirmedEcho,
			[]audit.Entry{{Client: "test", Tool: "testtool", Action: "echo", Args: []string{"text"}, Confirmed: true, Outcome: "ok"}}},
		{"approved, irreversible", nil, audited, deleteThing,
			[]audit.Entry{{Client: "test", Tool: "testtool", Action: "delete-thing", Args: []string{"text"}, Confirmed: true, Irreversible: true, Outcome: "ok"}}},
		{"unchecked, plain reversible", nil, unchecked, echo, nil},
		{"changed since approval", func(t *testing.T) {
			yaml := filepath.Join(dir, "tool.yaml")
			b, err := os.ReadFile(yaml)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(yaml, []byte(strings.Replace(string(b), "description:", "description: changed", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			approving.Scan()
		}, audited, echo,
			[]audit.Entry{{Client: "test", Tool: "testtool", Action: "echo", Args: []string{"text"}, Outcome: string(wire.CodeNotReady)}}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.before != nil {
				s.before(t)
			}
			got = nil
			o := s.d.Run(context.Background(), s.call, nil)
			if diff := cmp.Diff(s.want, got, cmpopts.IgnoreFields(audit.Entry{}, "Time")); diff != "" {
				t.Fatalf("audit entries after a call answering %s (-want +got):\n%s", o.Body(), diff)
			}
		})
	}
}
