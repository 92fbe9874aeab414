package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// Codex reads Codex CLI's ${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/
// rollout-*.jsonl and archived_sessions/ logs.
type Codex struct{}

var _ Provider = Codex{}

// Name returns "codex".
func (Codex) Name() string { return "codex" }

// Discover walks sessions/ and archived_sessions/ under CODEX_HOME. A
// symlinked folder is followed; a folder that cannot be listed is reported
// in Problems and the rest is still found. A rollout in both folders (one
// archived later) is listed once, from sessions/.
func (Codex) Discover(env Env) (Discovery, error) {
	home := env.Dir("CODEX_HOME", ".codex")
	var dsc Discovery
	if home == "" {
		return dsc, nil
	}
	opt := walkOptions{FollowRoot: true, Problem: func(root, p string, err error) error {
		return fmt.Errorf("%s: %w (check its permissions)", relName(filepath.Base(root), root, p), unwrapPath(err))
	}}
	walkRoots(&dsc, []string{filepath.Join(home, "sessions"), filepath.Join(home, "archived_sessions")}, opt,
		func(_, p string, d fs.DirEntry) {
			if strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
				dsc.Sources = append(dsc.Sources, Source{Path: p, Appendable: true,
					Session: strings.TrimSuffix(d.Name(), ".jsonl"), Rel: d.Name()})
			}
		})
	return dsc, nil
}

// relName names a folder below a provider's root by its path there (the
// user's home is never printed).
func relName(sub, root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && r != "." {
		return filepath.ToSlash(filepath.Join(sub, r))
	}
	return sub
}

// unwrapPath drops a path error's path (it may hold the user's name).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// codexUsage is one token_usage object.
type codexUsage struct {
	input, cached, output, reasoning, total int64
}

type codexCarry struct {
	model, cwd, name, session string
	turn                      uint32
	max                       codexUsage
	metaSeen                  bool
	// pending are the tool calls of the response whose token_count
	// event comes next.
	pending []Step
}

var (
	needleTokenCount  = []byte(`"token_count"`)
	needleTurnContext = []byte(`"turn_context"`)
	needleSessionMeta = []byte(`"session_meta"`)
	needleUserMessage = []byte(`"user_message"`)
	needleToolCalls   = [][]byte{[]byte(`"function_call"`), []byte(`"custom_tool_call"`), []byte(`"local_shell_call"`)}
)

// codexToolLine says whether a line's head is a response item calling a
// tool.
func codexToolLine(head []byte) bool {
	for _, n := range needleToolCalls {
		if bytes.Contains(head, n) {
			return true
		}
	}
	return false
}

// Parse reads appended lines of one Codex rollout. Token counts come from
// token_count events: last_token_usage, else the difference of cumulative
// totals; an event whose cumulative total does not exceed the largest seen
// (a re-emit or a replayed burst) is ignored. input_tokens includes cached
// input, so the cached part is moved to the cache-read bucket.
func (c Codex) Parse(ctx context.Context, st *FileState) error {
	carry, _ := st.Carry.(*codexCarry)
	if carry == nil {
		carry = &codexCarry{session: st.Session}
		st.Carry = carry
	}
	return readLines(ctx, st, func(line []byte) {
		head := line
		if len(head) > 256 {
			head = head[:256]
		}
		switch {
		case bytes.Contains(line, needleTokenCount):
		case bytes.Contains(head, needleTurnContext), bytes.Contains(head, needleSessionMeta):
		case bytes.Contains(line, needleUserMessage):
		case codexToolLine(head):
		default:
			return
		}
		c.line(st, carry, line)
	})
}

func (Codex) line(st *FileState, carry *codexCarry, line []byte) {
	var typ, ts, payload []byte
	if err := jsonscan.Fields(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "timestamp":
			ts = v
		case "payload":
			payload = v
		}
		return true
	}); err != nil {
		st.Skipped++
		return
	}
	switch string(typ) {
	case `"response_item"`:
		carry.pending = codexSteps(payload, carry.pending)
	case `"session_meta"`, `"turn_context"`:
		// Only a rollout's first session_meta is its own: a fork replays
		// its parent's lines after it.
		meta := string(typ) == `"session_meta"`
		own := meta && !carry.metaSeen
		if meta {
			carry.metaSeen = true
		}
		_ = jsonscan.Fields(payload, func(k, v []byte) bool {
			switch string(k) {
			case "model":
				carry.model, _ = jsonscan.String(v)
			case "cwd":
				carry.cwd, _ = jsonscan.String(v)
				carry.name = baseName(carry.cwd)
			case "id":
				if own {
					carry.session, _ = jsonscan.String(v)
					st.Lineage.ID = carry.session
				}
			case "forked_from_id":
				if own {
					st.Lineage.Parent, _ = jsonscan.String(v)
				}
			case "source":
				// A sub-agent thread: source.subagent.thread_spawn.parent_thread_id.
				if own && st.Lineage.Parent == "" {
					if p := codexSpawnParent(v); p != "" {
						st.Lineage.Parent = p
					}
				}
			}
			return true
		})
	case `"event_msg"`:
		var ptype, info []byte
		_ = jsonscan.Fields(payload, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				ptype = v
			case "info":
				info = v
			}
			return true
		})
		switch string(ptype) {
		case `"user_message"`:
			carry.turn++
		case `"token_count"`:
			if len(info) == 0 || info[0] != '{' {
				return
			}
			var total, last codexUsage
			var infoModel string
			hasTotal, hasLast := false, false
			_ = jsonscan.Fields(info, func(k, v []byte) bool {
				switch string(k) {
				case "total_token_usage":
					total, hasTotal = readCodexUsage(v), true
				case "last_token_usage":
					last, hasLast = readCodexUsage(v), v[0] == '{'
				case "model":
					infoModel, _ = jsonscan.String(v)
				}
				return true
			})
			if !hasTotal || total.total <= carry.max.total {
				return
			}
			if !hasLast {
				last = codexUsage{input: total.input - carry.max.input, cached: total.cached - carry.max.cached,
					output: total.output - carry.max.output}
			}
			carry.max = total
			t, ok := parseTime(ts)
			if !ok {
				st.Skipped++
				return
			}
			model := carry.model
			if infoModel != "" {
				model = infoModel
			}
			if model == "" {
				model = "gpt-5"
			}
			call := Call{Time: t, Origin: st.origin("codex", carry.cwd, carry.name, carry.session, model), Turn: carry.turn}
			// The event's identity: its cumulative and last counts. A fork
			// replays its parent's events with these (re-stamped or not);
			// the store scopes the key to the fork family.
			call.Key = codexKey(total, last)
			call.CR = tok(last.cached)
			call.In = tok(last.input - last.cached)
			call.Out = tok(last.output)
			st.add(call, carry.pending)
			carry.pending = carry.pending[:0]
		}
	}
}

// codexSteps classifies a response item's tool call (openai/codex
// codex-rs/protocol models.rs ResponseItem: function_call with JSON
// arguments — shell's command array, exec_command's cmd string,
// shell_command's command string —, custom_tool_call apply_patch with the
// patch as input, local_shell_call with action.command) and appends its
// steps: a patch edits each file it names.
func codexSteps(payload []byte, out []Step) []Step {
	var typ, name, args, input, action string
	_ = jsonscan.Fields(payload, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ, _ = jsonscan.String(v)
		case "name":
			name, _ = jsonscan.String(v)
		case "arguments":
			args, _ = jsonscan.String(v)
		case "input":
			input, _ = jsonscan.String(v)
		case "action":
			action = string(v)
		}
		return true
	})
	switch typ {
	case "custom_tool_call":
		if name == "apply_patch" {
			return patchSteps(input, out)
		}
		return append(out, Step{Kind: StepOther})
	case "local_shell_call":
		return append(out, commandStep(codexCommand([]byte(action))))
	case "function_call":
	default:
		return out
	}
	switch name {
	case "shell", "exec_command", "shell_command", "container.exec", "local_shell":
		return append(out, commandStep(codexCommand([]byte(args))))
	case "apply_patch":
		_ = jsonscan.Fields([]byte(args), func(k, v []byte) bool {
			if string(k) == "input" || string(k) == "patch" {
				input, _ = jsonscan.String(v)
			}
			return true
		})
		return patchSteps(input, out)
	case "read_file", "list_dir", "grep_files", "view_image", "web_search":
		return append(out, Step{Kind: StepRead})
	case "spawn_agent":
		return append(out, Step{Kind: StepDelegate})
	}
	return append(out, Step{Kind: StepOther})
}

// codexCommand is a shell call's command line: "cmd" or "command" (a
// string, or an argv whose "bash -lc SCRIPT" form gives SCRIPT).
func codexCommand(args []byte) string {
	var cmd string
	_ = jsonscan.Fields(args, func(k, v []byte) bool {
		if string(k) != "cmd" && string(k) != "command" {
			return true
		}
		if len(v) > 0 && v[0] == '[' {
			var argv []string
			_ = json.Unmarshal(v, &argv)
			if n := len(argv); n >= 3 && (argv[n-2] == "-lc" || argv[n-2] == "-c") {
				cmd = argv[n-1]
			} else {
				cmd = strings.Join(argv, " ")
			}
		} else {
			cmd, _ = jsonscan.String(v)
		}
		return false
	})
	return cmd
}

// commandStep classifies a command line; "apply_patch <<EOF …" edits.
func commandStep(cmd string) Step {
	if strings.HasPrefix(strings.TrimSpace(cmd), "apply_patch") {
		s := patchSteps(cmd, nil)
		if len(s) > 0 {
			return s[0]
		}
		return Step{Kind: StepEdit}
	}
	return Step{Kind: ShellKind(cmd)}
}

// patchSteps appends an edit per file an apply_patch patch names
// ("*** Update File: p", "*** Add File: p", "*** Delete File: p").
func patchSteps(patch string, out []Step) []Step {
	n := len(out)
	for line := range strings.SplitSeq(patch, "\n") {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(line, p); ok {
				out = append(out, Step{Kind: StepEdit, File: fnv64([]byte(strings.TrimSpace(f)))})
			}
		}
	}
	if len(out) == n {
		out = append(out, Step{Kind: StepEdit})
	}
	return out
}

func readCodexUsage(v []byte) codexUsage {
	var u codexUsage
	_ = jsonscan.Fields(v, func(k, v []byte) bool {
		switch string(k) {
		case "input_tokens":
			u.input, _ = jsonscan.Int(v)
		case "cached_input_tokens":
			u.cached, _ = jsonscan.Int(v)
		case "output_tokens":
			u.output, _ = jsonscan.Int(v)
		case "reasoning_output_tokens":
			u.reasoning, _ = jsonscan.Int(v)
		case "total_tokens":
			u.total, _ = jsonscan.Int(v)
		}
		return true
	})
	if u.total == 0 {
		u.total = u.input + u.output
	}
	return u
}

// codexKey hashes a token_count event's counts.
func codexKey(total, last codexUsage) uint64 {
	var b [10 * 8]byte
	for i, n := range []int64{total.input, total.cached, total.output, total.reasoning, total.total,
		last.input, last.cached, last.output, last.reasoning, last.total} {
		for j := 0; j < 8; j++ {
			b[i*8+j] = byte(n >> (8 * j))
		}
	}
	return keyOf([]byte("codex"), b[:])
}

// codexSpawnParent reads source.subagent.thread_spawn.parent_thread_id.
func codexSpawnParent(src []byte) string {
	var parent string
	_ = jsonscan.Fields(src, func(k, v []byte) bool {
		if string(k) == "subagent" {
			_ = jsonscan.Fields(v, func(k, v []byte) bool {
				if string(k) == "thread_spawn" {
					_ = jsonscan.Fields(v, func(k, v []byte) bool {
						if string(k) == "parent_thread_id" {
							parent, _ = jsonscan.String(v)
						}
						return true
					})
				}
				return true
			})
		}
		return true
	})
	return parent
}
