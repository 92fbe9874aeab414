// Package layout holds the test that enforces docs/design.md's dependency
// directions with `go list`; it has no code of its own.
package layout
