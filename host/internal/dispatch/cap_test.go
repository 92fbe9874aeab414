package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk/wire"
)

// TestResultAtTheCap checks the result cap where it is drawn: a result of
// exactly HOST_MAX_RESULT_BYTES is passed on whole, one byte more is
// result_too_large; a Markdown rendering of exactly the cap is kept beside
// its JSON, one byte more is dropped (the JSON still answers).
func TestResultAtTheCap(t *testing.T) {
	const limit = 64
	object := func(n int) string { return `{"text":"` + strings.Repeat("x", n-len(`{"text":""}`)) + `"}` }
	tests := []struct {
		name         string
		json, md     string
		tooLarge     bool
		wantMarkdown string
	}{
		{"JSON at the cap", object(limit), "", false, ""},
		{"JSON one byte over", object(limit + 1), "", true, ""},
		{"Markdown at the cap", object(20), strings.Repeat("m", limit), false, strings.Repeat("m", limit)},
		{"Markdown one byte over", object(20), strings.Repeat("m", limit+1), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixtureDispatcher(t, &fixedRunner{res: &wire.Result{Json: []byte(tt.json), Markdown: tt.md}})
			d.MaxResultBytes = limit
			o := d.Run(context.Background(), Call{Name: "testtool", Action: "echo", Args: json.RawMessage(`{"text":"a"}`)}, nil)
			if tt.tooLarge {
				if o.Code() != wire.CodeResultTooLarge {
					t.Fatalf("a %d-byte result under a %d-byte cap: got %s, want result_too_large", len(tt.json), limit, o.Body())
				}
				return
			}
			if o.IsError() || string(o.JSON) != tt.json || o.Markdown != tt.wantMarkdown {
				t.Fatalf("a %d-byte result with %d bytes of Markdown under a %d-byte cap: got %s and %d bytes of Markdown, want the result whole and %d",
					len(tt.json), len(tt.md), limit, o.Body(), len(o.Markdown), len(tt.wantMarkdown))
			}
		})
	}
}
