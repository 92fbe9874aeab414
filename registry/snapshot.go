// Package registry is the live registry of plugins and skills: it scans the
// plugin folders, watches them, and publishes immutable snapshots that
// readers swap in atomically. A broken manifest is listed with its error and
// never hides the others.
package registry

import (
	"github.com/toolhost/toolhost/manifests"
)

// Snapshot is one whole, immutable view of the plugins and skills. Never
// modify a Snapshot or anything it points to.
type Snapshot struct {
	// Tools holds every valid plugin (tools and agents), sorted by name.
	Tools []*Tool
	// Skills holds every skill, sorted by name.
	Skills []*Skill
	// Broken lists manifests and skills that could not be loaded.
	Broken []Broken
	// Digest is a hex sha256 over the manifests, binaries and readiness: it
	// changes whenever anything a caller could see changes.
	Digest string

	byName  map[string]*Tool
	skillBy map[string]*Skill
}

// Tool is one loaded plugin.
type Tool struct {
	Manifest *manifests.Manifest
	// Dir is the plugin's folder.
	Dir string
	// Binary is the absolute path of the entrypoint.
	Binary string
	// SHA256 is the binary's hex sha256, empty when it is missing.
	SHA256 string
	// Digest is the FolderDigest's Sum of Dir; Files its files. Both are
	// empty when the folder could not be read.
	Digest string
	Files  map[string]string
	// Approval is the tool's standing against its lock file.
	Approval ApprovalState
	// Unverified says the scan took files the hash cache had not seen at
	// their approved sums without reading them (Options.VerifyAtLaunch):
	// RunCopy reads the folder before the first launch.
	Unverified bool
	// Ready says whether the tool can run; NotReady says why not, and
	// NextStep, when set, what a person does about it.
	Ready    bool
	NotReady string
	NextStep string

	// MCPTools, for an MCP server, are the tool definitions its approval
	// pinned: a launch compares the server's with them.
	MCPTools []manifests.MCPTool

	// approval is the tool's valid lock entry, nil when it has none.
	approval *Approval
}

// Name returns the tool's name.
func (t *Tool) Name() string { return t.Manifest.Name }

// Skill is one SKILL.md.
type Skill struct {
	Name        string
	Description string
	// Path is the SKILL.md file.
	Path string
}

// Broken is a manifest or skill that failed to load.
type Broken struct {
	// Path is the file that failed.
	Path string
	// Error says what is wrong, with line and field where known.
	Error string
}

// Tool returns the named tool or agent, or nil and the closest names.
func (s *Snapshot) Tool(name string) (*Tool, []string) {
	if t, ok := s.byName[name]; ok {
		return t, nil
	}
	names := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		names[i] = t.Name()
	}
	return nil, manifests.Suggest(name, names)
}

// Skill returns the named skill, or nil and the closest names.
func (s *Snapshot) Skill(name string) (*Skill, []string) {
	if sk, ok := s.skillBy[name]; ok {
		return sk, nil
	}
	names := make([]string, len(s.Skills))
	for i, sk := range s.Skills {
		names[i] = sk.Name
	}
	return nil, manifests.Suggest(name, names)
}

// newSnapshot indexes tools and skills and computes the digest.
func newSnapshot(tools []*Tool, skills []*Skill, broken []Broken, digest string) *Snapshot {
	s := &Snapshot{Tools: tools, Skills: skills, Broken: broken, Digest: digest,
		byName: make(map[string]*Tool, len(tools)), skillBy: make(map[string]*Skill, len(skills))}
	for _, t := range tools {
		s.byName[t.Name()] = t
	}
	for _, sk := range skills {
		s.skillBy[sk.Name] = sk
	}
	return s
}
