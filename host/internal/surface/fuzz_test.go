package surface

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/manifests"
)

// FuzzParseBytes: any input either parses or fails with a
// *manifests.Error whose problems name the file; it never panics.
func FuzzParseBytes(f *testing.F) {
	chat, err := os.ReadFile(filepath.Join("..", "..", "..", "surfaces", "chat.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(chat)
	for _, s := range []string{"", "surface: chat", "tools: [1, 2]", "surface: chat\nsurface_version: 1.0\ntools:\n  - {name: x_y, tool: x, action: a, args: [{name: a, type: string, default: 3}]}",
		"a: &x [*x]", "tools:\n  - fixed: [1]\n    args: {}\n", "---\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseBytes("f.yaml", data)
		if err == nil {
			if d.Surface == "" || len(d.Tools) == 0 {
				t.Fatalf("parsed without a surface or tools: %q", data)
			}
			return
		}
		var me *manifests.Error
		if !errors.As(err, &me) || len(me.Problems) == 0 {
			t.Fatalf("error %v is not a *manifests.Error with problems", err)
		}
		for _, p := range me.Problems {
			if p.File != "f.yaml" {
				t.Fatalf("problem without the file: %+v", p)
			}
		}
	})
}
