package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

func action(t *testing.T) *manifests.Action {
	t.Helper()
	m, err := manifests.ParseBytes("greet/tool.yaml", []byte(testplugin.Greet))
	if err != nil {
		t.Fatal(err)
	}
	return m.Action("say-hello")
}

func TestBuildArgs(t *testing.T) {
	a := action(t)
	tests := []struct {
		name     string
		action   *manifests.Action
		flags    []Flag
		argsJSON string
		want     string
		wantCode wire.Code
	}{
		{"typed by the manifest", a, []Flag{{"name", "Ana"}, {"times", "3"}, {"loud", "true"}}, "", `{"loud":true,"name":"Ana","times":3}`, ""},
		{"array as comma list", a, []Flag{{"tags", "a,b"}}, "", `{"tags":["a","b"]}`, ""},
		{"unknown name stays a string for the checker", a, []Flag{{"nmae", "3"}}, "", `{"nmae":"3"}`, ""},
		{"unknown action: every value a string", nil, []Flag{{"times", "3"}}, "", `{"times":"3"}`, ""},
		{"json object as given", a, nil, `{"name":"Bo"}`, `{"name":"Bo"}`, ""},
		{"no args", a, nil, "", `{}`, ""},
		{"mistyped value", a, []Flag{{"times", "two"}}, "", "", wire.CodeInvalidArgs},
		{"both forms", a, []Flag{{"name", "x"}}, `{"name":"y"}`, "", wire.CodeInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := BuildArgs(tt.action, tt.flags, tt.argsJSON)
			if tt.wantCode != "" {
				if e == nil || e.Code != tt.wantCode {
					t.Fatalf("got %s, %v; want the error %s", got, e, tt.wantCode)
				}
				if ExitCode(e) != ExitUsage {
					t.Errorf("exit code %d, want %d", ExitCode(e), ExitUsage)
				}
				return
			}
			if e != nil {
				t.Fatalf("unexpected error %v", e)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestMistypedValueSaysOnceWhatToGive: a value of the wrong type is named
// once (not "arg 'n': arg n: …") and the error says what to give instead.
func TestMistypedValueSaysOnceWhatToGive(t *testing.T) {
	a := action(t)
	for _, tc := range []struct {
		flag Flag
		next string
	}{
		{Flag{"times", "two"}, "give times a whole number"},
		{Flag{"loud", "maybe"}, "give loud true or false"},
	} {
		_, e := BuildArgs(a, []Flag{tc.flag}, "")
		if e == nil {
			t.Fatalf("%v: no error", tc.flag)
		}
		if n := strings.Count(e.Message, tc.flag.Name); n != 1 {
			t.Errorf("%v: the message names the arg %d times: %q", tc.flag, n, e.Message)
		}
		if !strings.Contains(e.NextStep, tc.next) {
			t.Errorf("%v: next step %q, want it to say %q", tc.flag, e.NextStep, tc.next)
		}
	}
}

func TestParsePair(t *testing.T) {
	if f, e := ParsePair("path=a=b.xlsx"); e != nil || f != (Flag{"path", "a=b.xlsx"}) {
		t.Errorf("got %v, %v; want path = a=b.xlsx", f, e)
	}
	for _, bad := range []string{"path", "=x"} {
		if _, e := ParsePair(bad); e == nil || e.Code != wire.CodeInvalidArgs || !strings.Contains(e.NextStep, "NAME=VALUE") {
			t.Errorf("ParsePair(%q) = %v, want invalid_args saying NAME=VALUE", bad, e)
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  *wire.Error
		want int
	}{
		{nil, ExitOK},
		{&wire.Error{Code: wire.CodeInvalidArgs}, ExitUsage},
		{&wire.Error{Code: wire.CodeUnknownTool}, ExitUsage},
		{&wire.Error{Code: wire.CodeUnknownAction}, ExitUsage},
		{&wire.Error{Code: wire.CodeUnknownSkill}, ExitUsage},
		{&wire.Error{Code: wire.CodeApprovalRequired}, ExitFailure},
		{&wire.Error{Code: wire.CodeTimeout}, ExitFailure},
		{&wire.Error{Code: "not_allowed"}, ExitFailure},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestWriter(t *testing.T) {
	tests := []struct {
		name     string
		markdown bool
		res      Result
		code     int
		want     string
	}{
		{"json in the plugin's key order", false, Result{JSON: json.RawMessage(`{"z":1,"a":[2]}`), Markdown: "**x**"}, ExitOK,
			"{\n  \"z\": 1,\n  \"a\": [\n    2\n  ]\n}\n"},
		{"markdown when preferred", true, Result{JSON: json.RawMessage(`{"z":1}`), Markdown: "**x**"}, ExitOK, "**x**\n"},
		{"json when no markdown", true, Result{JSON: json.RawMessage(`{"z":1}`)}, ExitOK, "{\n  \"z\": 1\n}\n"},
		{"empty data is {}", false, Result{}, ExitOK, "{}\n"},
		{"error envelope", false, Result{Err: &wire.Error{Code: "not_allowed", Message: "no", NextStep: "ask"}}, ExitFailure,
			"{\n  \"error\": {\n    \"code\": \"not_allowed\",\n    \"message\": \"no\",\n    \"next_step\": \"ask\"\n  }\n}\n"},
		{"usage error", false, Result{Err: &wire.Error{Code: wire.CodeInvalidArgs, Message: "m"}}, ExitUsage, `"code": "invalid_args"`},
		{"invalid JSON is the plugin's bug", false, Result{JSON: json.RawMessage(`{"a":`)}, ExitFailure, `"code": "internal_error"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			w := &Writer{Out: &out, Err: &errOut, PreferMarkdown: tt.markdown}
			if code := w.Write(tt.res); code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if strings.HasPrefix(tt.want, "{") || strings.HasPrefix(tt.want, "**") {
				if diff := cmp.Diff(tt.want, out.String()); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			} else if !strings.Contains(out.String(), tt.want) {
				t.Errorf("stdout lacks %q:\n%s", tt.want, out.String())
			}
			if errOut.Len() != 0 {
				t.Errorf("stderr got %q, want nothing", errOut.String())
			}
		})
	}
}

func TestWriterProgress(t *testing.T) {
	var out, errOut bytes.Buffer
	w := &Writer{Out: &out, Err: &errOut}
	w.Progress(1, 4, "sheet 1")
	w.Progress(7, 0, "rows")
	if want := "[1/4] sheet 1\n[7] rows\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	if out.Len() != 0 {
		t.Errorf("progress wrote to stdout: %q", out.String())
	}
}
