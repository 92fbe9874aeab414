package sdk

import (
	"context"
	"testing"

	"github.com/toolhost/toolhost/sdk/wire"
)

// TestContentHandlerPanics: a prompt or resource handler that panics gives
// the host an internal_error naming what failed and why, as an action's
// does, and the plugin keeps serving.
func TestContentHandlerPanics(t *testing.T) {
	s := &server{plugin: Plugin{
		Prompts: map[string]PromptHandler{"review": func(context.Context, *PromptRequest) (*PromptResult, error) {
			panic("boom")
		}},
		Resources: func(context.Context, *ResourceRequest) (*ResourceContents, error) { panic("bang") },
	}}
	tests := []struct {
		name string
		call func() (*wire.ErrorEnvelope, error)
		want string
	}{
		{"prompt", func() (*wire.ErrorEnvelope, error) {
			r, err := s.GetPrompt(context.Background(), &wire.GetPromptRequest{Name: "review"})
			return r.GetError(), err
		}, "prompt review failed unexpectedly: boom"},
		{"resource", func() (*wire.ErrorEnvelope, error) {
			r, err := s.ReadResource(context.Background(), &wire.ReadResourceRequest{Uri: "notes://x"})
			return r.GetError(), err
		}, "reading notes://x failed unexpectedly: bang"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 {
				e, err := tt.call()
				if err != nil {
					t.Fatalf("transport error %v, want an answer", err)
				}
				if got := ErrorFromWire(e); got.Code != CodeInternalError || got.Message != tt.want {
					t.Errorf("got %s %q, want internal_error %q", got.Code, got.Message, tt.want)
				}
			}
		})
	}
}
