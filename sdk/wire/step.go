package wire

import (
	"encoding/json"
	"strings"
)

// StepRun is what a next step runs.
type StepRun string

// The runs a Step names.
const (
	// StepCapabilities looks a tool, agent or skill up (the capabilities
	// tool, `host capabilities`): Tool and Action when set, else Args'
	// "search" or "kind", else everything.
	StepCapabilities StepRun = "capabilities"
	// StepCall runs Tool's Action with Args; Confirm says it runs again
	// confirmed (run_tool_confirmed, `--confirm`).
	StepCall StepRun = "call"
	// StepSkill reads the skill named Tool (get_skill, `host skill`).
	StepSkill StepRun = "skill"
)

// Step is an error's next step as data: what to run, with which names and
// args, so that each surface words it in its own terms (an MCP client is
// told to call capabilities with {"name":"xlsx"}, a person at the terminal
// to run `host capabilities xlsx`) instead of one surface's sentence being
// rewritten by another. It travels beside NextStep, which keeps the MCP
// wording; it is in-process data and is not part of the JSON envelope.
type Step struct {
	// Run is what to run.
	Run StepRun
	// Tool is the tool, agent or skill the step names, if any.
	Tool string
	// Action is the action it names, if any.
	Action string
	// Args are the call's args (StepCall), or a capabilities query's
	// "search" or "kind" (StepCapabilities).
	Args map[string]any
	// Confirm: the same call again, confirmed.
	Confirm bool
	// Why is what the step is for, in words any surface may append ("to
	// list its actions").
	Why string
}

// WithNext sets e's next step: Next to s, and NextStep to s's MCP wording
// (MCPWords). It returns e.
func (e *Error) WithNext(s Step) *Error {
	e.Next = &s
	e.NextStep = s.MCPWords()
	return e
}

// MCPWords is s in the words of an MCP client's six tools: `call
// capabilities with {"name":"xlsx"} to list its actions`.
func (s *Step) MCPWords() string {
	var b strings.Builder
	switch s.Run {
	case StepSkill:
		b.WriteString("call get_skill with ")
		b.WriteString(object("name", s.Tool))
	case StepCall:
		tool := "run_tool"
		if s.Confirm {
			tool = "run_tool_confirmed"
		}
		b.WriteString("call " + tool + " with ")
		b.WriteString(object("tool", s.Tool, "action", s.Action, "args", s.Args))
	default:
		b.WriteString("call capabilities with ")
		b.WriteString(object("name", s.Tool, "action", s.Action, "search", s.Args["search"], "kind", s.Args["kind"]))
	}
	if s.Why != "" {
		b.WriteString(" " + s.Why)
	}
	return b.String()
}

// object is a JSON object of the pairs (key, value, …) in their order,
// leaving out empty values.
func object(pairs ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(pairs); i += 2 {
		v := pairs[i+1]
		switch x := v.(type) {
		case nil:
			continue
		case string:
			if x == "" {
				continue
			}
		case map[string]any:
			if len(x) == 0 {
				continue
			}
		}
		enc, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(pairs[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.String()
}
