package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// echoPlugin is a plugin call that answers with what reached it — the
// action, its args and the caller, the request id included — so that a
// difference in what the host hands a plugin shows in the answer. Path
// "progress" reports two steps first; path "markdown" answers Markdown
// too; path "bad-utf8" answers JSON that is not valid UTF-8; path "fail"
// answers a plugin error.
type echoPlugin struct{}

func (echoPlugin) Call(_ context.Context, _ *registry.Tool, req *wire.CallRequest, progress func(*wire.Progress)) *wire.Result {
	var args struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(req.GetArgsJson(), &args)
	switch args.Path {
	case "progress":
		progress(&wire.Progress{Progress: 1, Total: 2, Message: "half <way> & more"})
		progress(&wire.Progress{Progress: 1, Total: 2, Message: "again"})
	case "bad-utf8":
		return &wire.Result{Json: []byte("{\"s\":\"\xff\"}")}
	case "fail":
		return &wire.Result{Error: &wire.ErrorEnvelope{Code: "not_found", Message: "no such sheet: <x>"}}
	}
	c := req.GetCaller()
	b, _ := json.Marshal(map[string]any{"action": req.GetAction(), "args": json.RawMessage(req.GetArgsJson()),
		"caller": map[string]any{"client": c.GetClientName(), "version": c.GetClientVersion(), "request_id": c.GetRequestId(),
			"confirmed": c.GetConfirmed(), "channel": c.GetChannel()}})
	out := &wire.Result{Json: b}
	if args.Path == "markdown" {
		out.Markdown = "# Sheet\n\n| a | b |\n|---|---|\n| <1> | & |\n"
	}
	return out
}

// nested is a run_tool call whose args nest depth objects deep.
func nested(id, depth int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a","deep":%s1%s}}}}`,
		id, strings.Repeat(`{"x":`, depth), strings.Repeat("}", depth))
}

// fastPathCase is one request of TestFastPathAnswersAsTheSDK. fast says
// whether the fast path must take the call (else the SDK answers it).
type fastPathCase struct {
	name string
	line string
	fast bool
}

// fastPathCases are the requests of a session that initialises first,
// sent in order.
var fastPathCases = []fastPathCase{
	{"before initialize", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, false},
	{"initialize", `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"diff-client","version":"1.2"}}}`, false},
	{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
	{"run_tool", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a.xlsx","max-results":3}}}}`, true},
	{"string id", `{"jsonrpc":"2.0","id":"call-\u00e9","method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, true},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, true},
	{"huge id", `{"jsonrpc":"2.0","id":1e30,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, true},
	{"spaced out", `{ "jsonrpc" : "2.0" , "id" : 3 , "method" : "tools/call" , "params" : { "arguments" : { "args" : { "path" : "a" } , "action" : "read-sheet" , "tool" : "sheets" } , "name" : "run_tool" } }`, true},
	{"progress token", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":"p-1"},"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"progress"}}}}`, true},
	{"numeric progress token", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"progress"}},"_meta":{"progressToken":17}}}`, true},
	{"client sets the request id key", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"toolhost/requestId":"forged"},"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, true},
	{"_meta null", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":null,"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, false},
	{"_meta not an object", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":5,"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, false},
	{"_meta clientInfo", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"other","version":"3"}},"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, true},
	{"legacy version in _meta", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"},"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, false},
	{"unlisted version in _meta", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"},"name":"run_tool","arguments":{}}}`, false},
	{"markdown and html characters", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"markdown","note":"<b>&amp;</b> \u2028 é 😀 \"q\""}}}}`, true},
	{"plugin error", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"fail"}}}}`, true},
	{"invalid UTF-8 from the plugin", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"bad-utf8"}}}}`, true},
	{"unknown action", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-shet","args":{"path":"a"}}}}`, true},
	{"unknown tool arg", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","path":"a"}}}`, true},
	{"mistyped arg", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a","max-results":"many"}}}}`, true},
	{"no tool", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"run_tool","arguments":{}}}`, true},
	{"irreversible", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"delete-sheet","args":{"path":"a"}}}}`, true},
	{"confirmed", `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"run_tool_confirmed","arguments":{"tool":"sheets","action":"delete-sheet","args":{"path":"a"}}}}`, true},
	{"run_agent of a tool", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"run_agent","arguments":{"agent":"sheets","action":"read-sheet"}}}`, true},
	{"run_agent_confirmed", `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"run_agent_confirmed","arguments":{"agent":"nobody"}}}`, true},
	{"capabilities", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"capabilities","arguments":{}}}`, true},
	{"capabilities of an action", `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"capabilities","arguments":{"name":"sheets","action":"read-sheet"}}}`, true},
	{"capabilities search", `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"capabilities","arguments":{"search":"delete sheet"}}}`, true},
	{"capabilities without arguments", `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"capabilities"}}`, true},
	{"get_skill unknown", `{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"nope"}}}`, true},
	{"args nested 100 deep", nested(28, 100), true},
	{"args nested 300 deep", nested(29, 300), false},
	{"unknown tool", `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"run_tools","arguments":{}}}`, false},
	{"no name", `{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"arguments":{}}}`, false},
	{"name not a string", `{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":7,"arguments":{}}}`, false},
	{"name with escapes", `{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"name":"run\u005ftool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, false},
	{"name twice", `{"jsonrpc":"2.0","id":34,"method":"tools/call","params":{"name":"capabilities","name":"run_tool","arguments":{"tool":"sheets"}}}`, false},
	{"Name capitalised", `{"jsonrpc":"2.0","id":35,"method":"tools/call","params":{"Name":"run_tool","arguments":{}}}`, false},
	{"arguments an array", `{"jsonrpc":"2.0","id":36,"method":"tools/call","params":{"name":"run_tool","arguments":[1,2]}}`, false},
	{"arguments null", `{"jsonrpc":"2.0","id":37,"method":"tools/call","params":{"name":"capabilities","arguments":null}}`, false},
	{"arguments a string", `{"jsonrpc":"2.0","id":38,"method":"tools/call","params":{"name":"run_tool","arguments":"tool=sheets"}}`, false},
	{"another params key", `{"jsonrpc":"2.0","id":39,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}},"task":{"ttl":5}}}`, false},
	{"params null", `{"jsonrpc":"2.0","id":40,"method":"tools/call","params":null}`, false},
	{"params missing", `{"jsonrpc":"2.0","id":41,"method":"tools/call"}`, false},
	{"params an array", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":[]}`, false},
	{"tools/call as a notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_tool","arguments":{}}}`, false},
	{"ping between calls", `{"jsonrpc":"2.0","id":43,"method":"ping"}`, false},
	{"tools/list", `{"jsonrpc":"2.0","id":44,"method":"tools/list"}`, false},
	{"large args", `{"jsonrpc":"2.0","id":45,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a","blob":"` + strings.Repeat("0123456789", 20000) + `"}}}}`, true},
}

// discoverFirstCases are the requests of a session that probes with
// server/discover before it initialises, as Claude Code does: the SDK
// keeps the discover's modern version as the session's, and marks every
// result "resultType":"complete".
var discoverFirstCases = []fastPathCase{
	{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + fmt.Sprintf(modernMeta, "2026-07-28") + `}}`, false},
	{"initialize", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"cc","version":"1"}}}`, false},
	{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
	{"run_tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a.xlsx"}}}}`, true},
	{"progress token", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"progress"}}}}`, true},
	{"markdown", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"markdown"}}}}`, true},
	{"plugin error", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"fail"}}}}`, true},
	{"irreversible", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"delete-sheet","args":{"path":"a"}}}}`, true},
	{"capabilities", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"capabilities","arguments":{"search":"sheet"}}}`, true},
	{"invalid UTF-8 from the plugin", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"bad-utf8"}}}}`, true},
	{"unknown tool", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, false},
	{"a modern request", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{` + fmt.Sprintf(modernMeta, "2026-07-28") + `,"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`, false},
}

// TestFastPathAnswersAsTheSDK is the fast path's differential test: the same
// requests, in the same order, answered by the fast path and by the SDK
// (HOST_FASTPATH=0) give byte-equal lines — answers, progress
// notifications and errors alike — and the fast path takes exactly the
// calls it is meant to; for a session that initialises first and for one
// that probes with server/discover first.
func TestFastPathAnswersAsTheSDK(t *testing.T) {
	for _, seq := range []struct {
		name  string
		cases []fastPathCase
	}{{"initialize first", fastPathCases}, {"discover first", discoverFirstCases}} {
		t.Run(seq.name, func(t *testing.T) { compareFastPath(t, seq.cases) })
	}
}

// compareFastPath sends cases in order on a session with the fast path
// and on one without, and compares what each wrote.
func compareFastPath(t *testing.T, cases []fastPathCase) {
	run := func(t *testing.T, fast bool) (lines [][]string, took []bool) {
		if !fast {
			t.Setenv(mcpproto.FastPathEnv, "0")
		}
		reg := newTestServer(t, nil).opts.Registry
		s := New(Options{Registry: reg, Runner: &dispatch.Dispatcher{Registry: reg, Runner: echoPlugin{}}, Version: "test"})
		ws := startWire(t, s)
		for _, tc := range cases {
			before := s.FastCalls()
			lines = append(lines, ws.Exchange(tc.line))
			took = append(took, s.FastCalls() != before)
		}
		return lines, took
	}
	var sdkLines, fastLines [][]string
	var sdkTook, fastTook []bool
	t.Run("sdk", func(t *testing.T) { sdkLines, sdkTook = run(t, false) })
	t.Run("fast", func(t *testing.T) { fastLines, fastTook = run(t, true) })
	if len(sdkLines) != len(cases) || len(fastLines) != len(cases) {
		t.Fatal("a run did not finish")
	}
	for i, tc := range cases {
		if sdkTook[i] {
			t.Errorf("%s: the fast path took a call with %s=0", tc.name, mcpproto.FastPathEnv)
		}
		if fastTook[i] != tc.fast {
			t.Errorf("%s: fast path took it: %v, want %v", tc.name, fastTook[i], tc.fast)
		}
		if strings.Join(sdkLines[i], "\n") != strings.Join(fastLines[i], "\n") {
			t.Errorf("%s: the answers differ\nsdk:  %.600s\nfast: %.600s", tc.name, sdkLines[i], fastLines[i])
		}
	}
}
