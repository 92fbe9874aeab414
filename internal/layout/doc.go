// Package layout holds the test that enforces DESIGN.md §1's dependency
// directions with `go list`; it has no code of its own.
package layout
