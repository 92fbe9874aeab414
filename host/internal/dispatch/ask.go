package dispatch

import (
	"context"
	"fmt"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Question is what the gate asks the person before an irreversible call
// runs: what will run, with which args, and why it cannot be undone.
type Question struct {
	// Tool and Action name what will run.
	Tool   string
	Action string
	// Args are the checked args (defaults filled).
	Args map[string]any
	// Why says what makes the action irreversible.
	Why string
	// Agent is the agent making the call when it is nested, else "".
	Agent string
}

// Asker asks the person a Question and reports whether they accepted. An
// error means nobody could be asked; the gate then answers as if there were
// no Asker. The MCP server sets one when the client can answer an
// elicitation mid-call.
type Asker func(ctx context.Context, q Question) (accepted bool, err error)

// askPerson turns an approval_required answer into the person's decision:
// nil when they accepted, denied when they declined or cancelled, and the
// original envelope when they could not be asked.
func askPerson(ctx context.Context, ask Asker, q Question, approval *wire.Error) *wire.Error {
	accepted, err := ask(ctx, q)
	switch {
	case err != nil:
		return approval
	case accepted:
		return nil
	}
	by := ""
	if q.Agent != "" {
		by = ", asked for by the agent " + q.Agent
	}
	return &wire.Error{Code: wire.CodeDenied,
		Message:  fmt.Sprintf("the person declined to run %s %s (%s)%s; nothing ran", q.Tool, q.Action, q.Why, by),
		NextStep: "do not retry it unless the person asks for it"}
}
