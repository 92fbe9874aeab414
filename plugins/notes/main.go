// Command notes is the toolhost plugin for the brain: a git repository of
// Markdown notes an agent recalls at the start of a task and writes durable
// memories into, every write checked, scanned for secrets, committed with
// provenance and undoable. The brain is NOTES_BRAIN, or a folder under the
// user's data directory created on first use.
package main

import (
	"github.com/toolhost/toolhost/plugins/notes/internal/brain"
	"github.com/toolhost/toolhost/sdk"
)

func main() {
	// Resident (launched by the host, not CLI mode): watch the brain so hand
	// edits reach search without a restart.
	s := &brain.Service{Watch: sdk.Resident()}
	sdk.Main(s.Plugin())
}
