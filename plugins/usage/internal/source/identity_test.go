package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// identityLine is an assistant line in Claude Code's layout (as in
// ccusage's data-loader fixtures): one response, message id, request id,
// sidechain flag, output tokens and tool uses of its content block.
func identityLine(side bool, msg, req string, out int, tools string) string {
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":%v,"userType":"external","cwd":"/home/dev/shop","sessionId":"s1","version":"2.1.50",`+
		`"message":{"model":"claude-sonnet-4-5-20250929","id":%q,"type":"message","role":"assistant","content":[%s],"usage":{"input_tokens":10,"output_tokens":%d}},`+
		`"requestId":%q,"type":"assistant","uuid":"u-%s-%s","timestamp":"2026-06-05T10:00:00.000Z"}`+"\n", side, msg, tools, out, req, msg, req)
}

const editTool = `{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/home/dev/shop/a.go"}}`

// TestClaudeRequestIdentity: which lines are one request, the way ccusage
// counts them — message id and request id together, across lines and
// files; a sidechain line replaying another line's message id goes.
func TestClaudeRequestIdentity(t *testing.T) {
	type file struct{ rel, body string }
	tests := []struct {
		name      string
		files     []file
		wantOut   []uint32 // output tokens of the calls counted, in file order
		wantSteps []int    // tool uses of each
	}{
		{"one message id and two request ids are two requests", []file{
			{"s1.jsonl", identityLine(false, "msg_A", "req_1", 5, "") + identityLine(false, "msg_A", "req_2", 7, "")},
		}, []uint32{5, 7}, []int{0, 0}},
		{"content blocks of one response are one call with every block's tool uses", []file{
			{"s1.jsonl", identityLine(false, "msg_A", "req_1", 5, editTool) + identityLine(false, "msg_A", "req_1", 9, editTool) + identityLine(false, "msg_B", "req_2", 1, "")},
		}, []uint32{9, 1}, []int{2, 0}},
		{"a resumed session's copy in another file counts once", []file{
			{"s1.jsonl", identityLine(false, "msg_A", "req_1", 5, "")},
			{"s2.jsonl", identityLine(false, "msg_A", "req_1", 5, "") + identityLine(false, "msg_C", "req_3", 3, "")},
		}, []uint32{5, 3}, []int{0, 0}},
		{"a sidechain replay of a parent in another file goes", []file{
			{"s1.jsonl", identityLine(false, "msg_A", "req_1", 5, "")},
			{"s1/subagents/agent-aside_question-1.jsonl", identityLine(true, "msg_A", "req_9", 5, "") + identityLine(true, "msg_D", "req_10", 2, "")},
		}, []uint32{5, 2}, []int{0, 0}},
		{"of sidechain copies with no parent the largest stays", []file{
			{"s1/subagents/agent-1.jsonl", identityLine(true, "msg_E", "req_1", 4, "") + identityLine(true, "msg_E", "req_2", 6, "")},
		}, []uint32{6}, []int{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() // no comma: CLAUDE_CONFIG_DIR is a comma list
			proj := filepath.Join(dir, "projects", "-home-dev-shop")
			for _, f := range tc.files {
				p := filepath.Join(proj, filepath.FromSlash(f.rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := Env(func(k string) string {
				if k == "CLAUDE_CONFIG_DIR" {
					return dir
				}
				return ""
			})
			s := NewStore(env, 1, Claude{})
			s.Refresh(context.Background(), nil)
			var gotOut []uint32
			var gotSteps []int
			s.View(func(snap *Snapshot) {
				for _, c := range snap.Calls {
					gotOut = append(gotOut, c.Out)
					gotSteps = append(gotSteps, len(c.Steps()))
				}
			})
			if fmt.Sprint(gotOut) != fmt.Sprint(tc.wantOut) || fmt.Sprint(gotSteps) != fmt.Sprint(tc.wantSteps) {
				t.Errorf("got output tokens %v with %v tool uses, want %v with %v", gotOut, gotSteps, tc.wantOut, tc.wantSteps)
			}
		})
	}
}

// TestCallSize: the call record is most of a cold scan's memory (170,000
// of them on 1 GB of logs); the bench's memory goal was met at 56 bytes.
func TestCallSize(t *testing.T) {
	if got := unsafe.Sizeof(Call{}); got > 56 {
		t.Errorf("got a %d-byte Call, want at most 56", got)
	}
}
