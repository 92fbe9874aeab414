//go:build linux

package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestUseSaysWhatTheRequestCameTo runs Use — the path prompts/get and
// resources/read take to a plugin — on the real test plugin, with request
// functions that end each way one can, and checks the answer a client gets
// for each: nothing on success, not_ready with unimplemented for a plugin
// that does not serve the RPC, the manifest's timeout, the caller's
// cancellation, a crash (and a relaunch after it), and an internal error
// naming the request for anything else. The manifest's timeout is 10m, so
// a loaded machine that notices a crash late still answers plugin_crashed;
// the timeout case alone is given a tool whose manifest says 1s (with 1s
// for all, a crash noticed after a second answered timeout).
func TestUseSaysWhatTheRequestCameTo(t *testing.T) {
	f := newFixture(t, longTimeout, Options{Backoff: time.Millisecond})
	tool := f.tool(t)
	short := *tool
	shortManifest := *tool.Manifest
	shortManifest.Timeout = time.Second
	short.Manifest = &shortManifest
	describe := func(ctx context.Context, c *wire.Client) error {
		_, err := c.Describe(ctx, &wire.DescribeRequest{})
		return err
	}
	tests := []struct {
		name          string
		tool          *registry.Tool // nil: tool, whose manifest's timeout is 10m
		fn            func(ctx context.Context, cancel context.CancelFunc, c *wire.Client) error
		code          wire.Code // "" when Use answers no failure
		unimplemented bool
		message, next string // in the failure's message and next step
	}{
		{"served", nil, func(ctx context.Context, _ context.CancelFunc, c *wire.Client) error { return describe(ctx, c) },
			"", false, "", ""},
		{"not served by the plugin", nil, func(context.Context, context.CancelFunc, *wire.Client) error {
			return status.Error(codes.Unimplemented, "unknown method GetPrompt")
		}, wire.CodeNotReady, true, "prompt p: testtool does not serve prompts or resources", "remove prompts and resources from " + tool.Manifest.Path},
		{"past the manifest's timeout", &short, func(ctx context.Context, _ context.CancelFunc, _ *wire.Client) error {
			<-ctx.Done()
			return ctx.Err()
		}, wire.CodeTimeout, false, "prompt p did not finish within 1s (the manifest's timeout)", ""},
		{"the caller gave up", nil, func(ctx context.Context, cancel context.CancelFunc, _ *wire.Client) error {
			cancel()
			<-ctx.Done()
			return status.Error(codes.Canceled, "context canceled")
		}, wire.CodeCancelled, false, "the call to testtool was cancelled", ""},
		{"the plugin crashed", nil, func(ctx context.Context, _ context.CancelFunc, c *wire.Client) error {
			_, err := runCall(ctx, c, &wire.CallRequest{Action: "crash", ArgsJson: []byte("{}")}, nil, 1<<20)
			return err
		}, wire.CodePluginCrashed, false, "testtool crashed during prompt p", "the next request starts it again"},
		{"relaunched after the crash", nil, func(ctx context.Context, _ context.CancelFunc, c *wire.Client) error { return describe(ctx, c) },
			"", false, "", ""},
		{"a live plugin's other error", nil, func(context.Context, context.CancelFunc, *wire.Client) error {
			return errors.New("the prompt's template is broken")
		}, wire.CodeInternalError, false, "prompt p: the prompt's template is broken", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			use := tool
			if tt.tool != nil {
				use = tt.tool
			}
			failure, unimplemented := f.sup.Use(ctx, use, "prompt p", func(ctx context.Context, c *wire.Client) error {
				return tt.fn(ctx, cancel, c)
			})
			if unimplemented != tt.unimplemented {
				t.Fatalf("unimplemented: got %v, want %v (%v)", unimplemented, tt.unimplemented, failure)
			}
			if tt.code == "" {
				if failure != nil {
					t.Fatalf("got %v, want no failure", failure)
				}
				return
			}
			wantCode(t, failure, tt.code)
			e := failure.GetError()
			if !strings.Contains(e.GetMessage(), tt.message) || !strings.Contains(e.GetNextStep(), tt.next) {
				t.Fatalf("got message %q, next step %q; want %q and %q", e.GetMessage(), e.GetNextStep(), tt.message, tt.next)
			}
			// Every failure says why after its colon (a crash with no
			// kill reason gives the error the call ended with).
			if strings.HasSuffix(strings.TrimSpace(e.GetMessage()), ":") {
				t.Fatalf("message %q ends without saying why", e.GetMessage())
			}
		})
	}
}
