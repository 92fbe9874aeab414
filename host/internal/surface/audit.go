package surface

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/registry"
)

// Files are one surface's files in the surfaces folder.
type Files struct {
	// Dir is the surfaces folder; Name the surface ("chat").
	Dir, Name string
}

// Declaration is NAME.yaml, the declaration people review.
func (f Files) Declaration() string { return filepath.Join(f.Dir, f.Name+".yaml") }

// Published is NAME.published.json, the snapshot of the published list.
func (f Files) Published() string { return filepath.Join(f.Dir, f.Name+".published.json") }

// ServerJSON is NAME.server.json, the MCP Registry entry.
func (f Files) ServerJSON() string { return filepath.Join(f.Dir, f.Name+".server.json") }

// RegistrySchema is the copy of the MCP Registry's server.json schema.
func (f Files) RegistrySchema() string {
	return filepath.Join(f.Dir, "registry", "server.schema.json")
}

// Report is what Audit found.
type Report struct {
	Declaration *Declaration
	Resolved    []*Resolved
	// Findings are the disagreements with the registry.
	Findings []Finding
	// Tools is the list the declaration publishes now; Published its
	// snapshot; Committed the snapshot in the repository (nil when absent).
	Tools     []*mcp.Tool
	Published *Published
	Committed *Published
	// Changes are the differences from Committed, and Needed the bump they
	// need.
	Changes []Change
	Needed  Bump
	// ServerJSON is the server.json the declaration generates.
	ServerJSON []byte
	// Problems is everything that fails `host surface check`, each naming
	// the published tool or the file concerned.
	Problems []string
}

// Audit reads the surface's files and compares them with snap and with
// each other: every published tool against the registry (Resolve), the
// published list against the committed snapshot (a change needs the
// surface_version bump it implies, and then a rewritten snapshot), and
// server.json against what the declaration generates for release and the
// registry's schema. An error means the declaration could not be read.
func Audit(f Files, snap *registry.Snapshot, release string) (*Report, error) {
	d, err := Parse(f.Declaration())
	if err != nil {
		return nil, err
	}
	r := &Report{Declaration: d}
	r.Resolved, r.Findings = Resolve(d, snap)
	for _, fd := range r.Findings {
		r.Problems = append(r.Problems, fd.String())
	}
	r.Tools = Tools(r.Resolved)
	if r.Published, err = NewPublished(d, r.Tools); err != nil {
		return nil, err
	}
	blocked := len(r.Resolved) < len(d.Tools)
	r.Committed, err = ReadPublished(f.Published())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Problems = append(r.Problems, fmt.Sprintf("%s does not exist: run `host surface diff %s --write` to record the published list", f.Published(), d.Surface))
	case err != nil:
		r.Problems = append(r.Problems, err.Error())
	case !blocked:
		r.Problems = append(r.Problems, r.compare(f)...)
	}
	if r.ServerJSON, err = ServerJSON(d, release, r.Published); err != nil {
		return nil, err
	}
	if schema, err := os.ReadFile(f.RegistrySchema()); err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("the registry schema: %v", err))
	} else if err := ValidateServerJSON(r.ServerJSON, schema); err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	if committed, err := os.ReadFile(f.ServerJSON()); err != nil || !bytes.Equal(committed, r.ServerJSON) {
		if !blocked {
			r.Problems = append(r.Problems, fmt.Sprintf("%s is not what the declaration generates for release %s: run `host surface diff %s --write`", f.ServerJSON(), release, d.Surface))
		}
	}
	return r, nil
}

// compare judges the declaration's list against the committed snapshot.
func (r *Report) compare(f Files) []string {
	var out []string
	d := r.Declaration
	old, err := ParseSemver(r.Committed.SurfaceVersion)
	if err != nil {
		return []string{fmt.Sprintf("%s: surface_version: %v", f.Published(), err)}
	}
	r.Changes = Diff(r.Committed.Tools, r.Tools)
	r.Needed = Needed(r.Changes)
	switch {
	case d.Version.Compare(old) < 0:
		out = append(out, fmt.Sprintf("%s: surface_version %s is older than the published %s", f.Declaration(), d.Version, old))
	case !Enough(old, d.Version, r.Needed):
		for _, c := range r.Changes {
			if !Enough(old, d.Version, c.Bump) {
				out = append(out, fmt.Sprintf("%s: needs a %s bump of surface_version (%s published; at least %s)", c, c.Bump, old, Suggest(old, c.Bump)))
			}
		}
	case r.Published.ToolsDigest != r.Committed.ToolsDigest || d.Version != old:
		out = append(out, fmt.Sprintf("%s is out of date (%d change(s), surface_version %s → %s): run `host surface diff %s --write` and commit it",
			f.Published(), len(r.Changes), old, d.Version, d.Surface))
	}
	return out
}

// Write records the report's published list and server.json in the
// surface's files. It refuses while the declaration disagrees with the
// registry or its surface_version lacks the bump its changes need.
func (r *Report) Write(f Files) error {
	if len(r.Findings) > 0 {
		return fmt.Errorf("surface %s: %d published tool(s) disagree with the registry: fix the declaration first", r.Declaration.Surface, len(r.Findings))
	}
	if r.Committed != nil {
		old, err := ParseSemver(r.Committed.SurfaceVersion)
		if err == nil && (!Enough(old, r.Declaration.Version, r.Needed) || r.Declaration.Version.Compare(old) < 0) {
			return fmt.Errorf("surface %s: the changes need a %s bump of surface_version from %s (at least %s)", r.Declaration.Surface, r.Needed, old, Suggest(old, r.Needed))
		}
	}
	snap, err := r.Published.Encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.Published(), snap, 0o644); err != nil {
		return fmt.Errorf("surface: write %s: %w", f.Published(), err)
	}
	if err := os.WriteFile(f.ServerJSON(), r.ServerJSON, 0o644); err != nil {
		return fmt.Errorf("surface: write %s: %w", f.ServerJSON(), err)
	}
	return nil
}
