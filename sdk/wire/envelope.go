package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Code is an error code, snake_case, e.g. "invalid_args". The host's codes
// are the constants in codes.go; plugins add their own.
type Code string

// Error is the error envelope's body (docs/design.md, "Errors"), the one type the SDK,
// the host and the plugins share: code and message always, the rest when
// they help the caller correct the call. It is JSON at the edges
// ({"error": {...}}) and an ErrorEnvelope on the gRPC wire.
type Error struct {
	Code       Code           `json:"code"`
	Message    string         `json:"message"`
	DidYouMean []string       `json:"did_you_mean,omitempty"`
	Schema     any            `json:"schema,omitempty"`
	NextStep   string         `json:"next_step,omitempty"`
	Details    map[string]any `json:"details,omitempty"`
	// Next, when set, is the next step as data (NextStep is its MCP
	// wording): the terminal words it as a command line. It stays in the
	// process that made the error.
	Next *Step `json:"-"`
}

// Error returns "code: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// Envelope returns e's gRPC form. A schema or details that cannot be
// encoded is left out (they are plain JSON values in practice).
func (e *Error) Envelope() *ErrorEnvelope {
	w := &ErrorEnvelope{Code: string(e.Code), Message: e.Message, DidYouMean: e.DidYouMean, NextStep: e.NextStep}
	if e.Schema != nil {
		w.SchemaJson, _ = json.Marshal(e.Schema)
	}
	if len(e.Details) > 0 {
		w.DetailsJson, _ = json.Marshal(e.Details)
	}
	return w
}

// ErrorFrom converts a gRPC error envelope to an *Error; nil stays nil. The
// schema stays the JSON it was sent as; the details' numbers keep their
// digits (json.Number).
func ErrorFrom(w *ErrorEnvelope) *Error {
	if w == nil {
		return nil
	}
	e := &Error{Code: Code(w.GetCode()), Message: w.GetMessage(), DidYouMean: w.GetDidYouMean(), NextStep: w.GetNextStep()}
	if s := w.GetSchemaJson(); len(s) > 0 && json.Valid(s) {
		e.Schema = json.RawMessage(s)
	}
	if d := w.GetDetailsJson(); len(d) > 0 {
		dec := json.NewDecoder(bytes.NewReader(d))
		dec.UseNumber()
		_ = dec.Decode(&e.Details)
	}
	return e
}
