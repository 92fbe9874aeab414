// Package docs holds the project's documentation (the Markdown files in
// this folder) and the code that keeps it honest: ManifestReference renders
// the tool.yaml reference from manifests/tool.schema.json (`go generate
// ./docs` writes manifest-reference.md), and the package's tests check that
// the checked-in reference is current and that every repository-local link
// of every Markdown file in the repository leads to a file that exists.
package docs

//go:generate go run ./internal/mkref ../manifests/tool.schema.json manifest-reference.md
