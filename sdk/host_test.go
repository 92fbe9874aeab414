package sdk

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// answeringHost answers every call with res or err.
type answeringHost struct {
	res *Result
	err error
}

func (h answeringHost) Call(context.Context, string, string, any, bool) (*Result, error) {
	return h.res, h.err
}

// TestNeedHost: an agent run without the host (CLI mode) answers
// needs_host naming how to run it.
func TestNeedHost(t *testing.T) {
	req, err := NewRequest("weekly-review", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := req.NeedHost("spend-review", "host call spend-review weekly-review")
	var se *Error
	if h != nil || !errors.As(err, &se) || se.Code != CodeNeedsHost ||
		se.Message != "spend-review composes other tools and runs only through the host" ||
		se.NextStep != "run it with `host call spend-review weekly-review` or the run_agent MCP tool" {
		t.Errorf("NeedHost without a host = %v, %#v", h, err)
	}
	req.host = &hostClient{}
	if h, err := req.NeedHost("spend-review", "x"); h == nil || err != nil {
		t.Errorf("NeedHost with a host = %v, %v", h, err)
	}
}

// TestCallData: a nested call's data decoded into the caller's type; the
// tool's own error passed on as it is; a transport error and data of
// another shape named by the call.
func TestCallData(t *testing.T) {
	type listed struct {
		Sheets []struct {
			Title string `json:"title"`
		} `json:"sheets"`
	}
	toolErr := &Error{Code: CodeNotFound, Message: "no such page", NextStep: "search first"}
	tests := []struct {
		name     string
		host     answeringHost
		want     string // the first sheet's title, on success
		wantCode Code   // the *Error's code, on failure
		wantMsg  string // in the error's text
	}{
		{"decoded", answeringHost{res: &Result{Data: map[string]any{"sheets": []any{map[string]any{"title": "Q1"}}}}}, "Q1", "", ""},
		{"tool's own error", answeringHost{err: toolErr}, "", CodeNotFound, "no such page"},
		{"transport error", answeringHost{err: errors.New("connection reset")}, "", "", "xlsx list-sheets: connection reset"},
		{"other shape", answeringHost{res: &Result{Data: map[string]any{"sheets": "Q1"}}}, "", CodeUnexpectedResult, "xlsx list-sheets answered a shape"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got listed
			res, err := CallData(context.Background(), tt.host, "xlsx", "list-sheets", nil, &got)
			if tt.wantMsg == "" {
				if err != nil || res == nil || len(got.Sheets) != 1 || got.Sheets[0].Title != tt.want {
					t.Fatalf("got %+v, %v; want sheet %q", got, err, tt.want)
				}
				return
			}
			var se *Error
			isErr := errors.As(err, &se)
			if err == nil || res != nil || !strings.Contains(err.Error(), tt.wantMsg) || isErr != (tt.wantCode != "") || (isErr && se.Code != tt.wantCode) {
				t.Errorf("got %v, %#v; want code %q and %q", res, err, tt.wantCode, tt.wantMsg)
			}
		})
	}
}
