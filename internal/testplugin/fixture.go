package testplugin

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// OpenGzip opens the gzip-compressed test data file at path and returns its
// uncompressed content; the file is closed when t ends. A file that cannot
// be opened or is not gzip fails t.
func OpenGzip(t testing.TB, path string) *bufio.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return bufio.NewReader(zr)
}

// JSONLinesGzip decodes the gzip-compressed JSON-lines test data file at
// path, one T a line (a line may be up to 16 MiB). A line that is not a T
// fails t, naming the file and the line.
func JSONLinesGzip[T any](t testing.TB, path string) []T {
	t.Helper()
	sc := bufio.NewScanner(OpenGzip(t, path))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []T
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// WriteFile writes content to path (mode 0644), making its folders first.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// JSONFile decodes the JSON test data file at path as a T; a file that
// cannot be read or is not a T fails t.
func JSONFile[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// JSON is v as JSON text; a value that cannot be encoded fails t.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
