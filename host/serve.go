package main

import (
	"context"
	"errors"
)

// runServe serves MCP; the MCP server lands with its own package.
func runServe(ctx context.Context, httpAddr string) error {
	_, _ = ctx, httpAddr
	return errors.New("serve: not yet available")
}
