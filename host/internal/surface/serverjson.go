package surface

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// RegistrySchemaURL is the MCP Registry's server.json schema the generated
// server.json names and is validated against (a copy is kept in
// surfaces/registry/, with its source).
const RegistrySchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// The keys under server.json's publisher-provided _meta that carry the
// surface beside the release version, as the registry allows no other
// place for them.
const (
	metaPublisher      = "io.modelcontextprotocol.registry/publisher-provided"
	MetaSurface        = "toolhost/surface"
	MetaSurfaceVersion = "toolhost/surfaceVersion"
	MetaToolsDigest    = "toolhost/toolsDigest"
)

// ServerJSON generates the MCP Registry entry for the surface: name,
// title, description, version (the release: the registry wants one unique
// version per publication), repository, packages and remotes from the
// declaration, and the surface_version and published tools' digest in
// publisher-provided _meta.
func ServerJSON(d *Declaration, release string, p *Published) ([]byte, error) {
	doc := map[string]any{
		"$schema":     RegistrySchemaURL,
		"name":        d.Publish.Name,
		"description": d.Description,
		"version":     release,
		"_meta": map[string]any{metaPublisher: map[string]any{
			MetaSurface:        d.Surface,
			MetaSurfaceVersion: p.SurfaceVersion,
			MetaToolsDigest:    p.ToolsDigest,
		}},
	}
	if d.Title != "" {
		doc["title"] = d.Title
	}
	if d.Publish.Repository != "" {
		doc["repository"] = map[string]any{"url": d.Publish.Repository, "source": "github"}
	}
	if len(d.Publish.Packages) > 0 {
		doc["packages"] = d.Publish.Packages
	}
	if len(d.Publish.Remotes) > 0 {
		doc["remotes"] = d.Publish.Remotes
	}
	return encodeFile("server.json", doc)
}

// ValidateServerJSON validates a server.json document against the
// registry's JSON Schema (draft-07).
func ValidateServerJSON(doc, schema []byte) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("surface: read the registry schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("surface: resolve the registry schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("surface: server.json: %w", err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("surface: server.json does not validate against %s: %w", RegistrySchemaURL, err)
	}
	return nil
}
