package dispatch

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestInvalidArgs: an action's *manifests.ArgError becomes the envelope's
// message (prefixed with what was called), did_you_mean and schema; any
// other error its message alone.
func TestInvalidArgs(t *testing.T) {
	schema := map[string]any{"text": "string, required"}
	tests := []struct {
		name string
		err  error
		want *wire.Error
	}{
		{"arg error", &manifests.ArgError{Message: "unknown arg \"txt\"", DidYouMean: []string{"text"}, Schema: schema},
			&wire.Error{Code: wire.CodeInvalidArgs, Message: "t echo: unknown arg \"txt\"", DidYouMean: []string{"text"}, Schema: schema}},
		{"arg error without schema", &manifests.ArgError{Message: "text: want string"},
			&wire.Error{Code: wire.CodeInvalidArgs, Message: "t echo: text: want string"}},
		{"other error", errors.New("boom"), &wire.Error{Code: wire.CodeInvalidArgs, Message: "t echo: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, InvalidArgs("t echo", tt.err)); diff != "" {
				t.Errorf("InvalidArgs (-want +got):\n%s", diff)
			}
		})
	}
}
