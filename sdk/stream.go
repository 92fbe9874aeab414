package sdk

import (
	"bytes"
	"io"
)

// JSONWriter is a Result.Data that writes its own JSON object, so a large
// result goes out as it is made instead of being built whole and then
// marshalled: in CLI mode straight to stdout (as written, not re-indented),
// through the host once into the result's bytes. The SDK calls WriteJSON
// exactly once for every result it is handed (into io.Discard when only the
// Markdown is printed), so WriteJSON may release what the result holds. It
// must write one JSON object. An error it returns becomes the call's error;
// in CLI mode, where part of a large object may be out already (stdout is
// buffered: a small one never is), the error envelope follows on its own
// line and the exit code is 1.
type JSONWriter interface {
	WriteJSON(w io.Writer) error
}

// writeJSONData runs d.WriteJSON(w), turning a panic into an internal_error.
func writeJSONData(d JSONWriter, w io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicked(r, "writing the result")
		}
	}()
	return d.WriteJSON(w)
}

// encodeStreamed writes a JSONWriter result into the wire result's bytes
// (one buffer, no second pass) and checks it is an object.
func encodeStreamed(d JSONWriter) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSONData(d, &buf); err != nil {
		return nil, err
	}
	b := bytes.TrimLeft(buf.Bytes(), " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return nil, Errorf(CodeInternalError, "encode result: result is %s, not a JSON object", firstBytes(b, 20))
	}
	return b, nil
}
