package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/manifests"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name, kind, lang, replace string
		want                      []string
	}{
		{"word-count", "tool", "go", "", []string{"tool.yaml", "main.go", "main_test.go"}},
		{"outside", "tool", "go", "/src/toolhost", []string{"tool.yaml", "main.go", "main_test.go", "go.mod"}},
		{"weekly-brief", "agent", "go", "", []string{"tool.yaml", "main.go", "main_test.go"}},
		{"word-count", "tool", "python", "", []string{"tool.yaml", "word-count", "word_count.py", "test_word_count.py", "toolhost_plugin.py", "plugin_pb2.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"-"+tt.lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tt.name)
			files, err := Write(Options{Name: tt.name, Kind: tt.kind, Lang: tt.lang, Dir: dir, Replace: tt.replace})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.want {
				if !slices.Contains(files, f) {
					t.Errorf("files %v lack %s", files, f)
				}
			}
			if tt.replace == "" && slices.Contains(files, "go.mod") {
				t.Error("a plugin inside the module got a go.mod (it would leave the module)")
			}
			m, err := manifests.Parse(filepath.Join(dir, "tool.yaml"))
			if err != nil {
				t.Fatalf("the scaffold's manifest does not parse: %v", err)
			}
			if m.Name != tt.name || string(m.Kind) != tt.kind || m.Entrypoint != tt.name || m.Action("greet") == nil {
				t.Errorf("manifest: got name %s kind %s entrypoint %s actions %v", m.Name, m.Kind, m.Entrypoint, m.ActionNames())
			}
			if tt.lang == "python" {
				info, err := os.Stat(filepath.Join(dir, tt.name))
				if err != nil || info.Mode().Perm()&0o111 == 0 {
					t.Errorf("the Python entrypoint is not executable: %v %v", info, err)
				}
			}
			if tt.replace != "" {
				b, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
				if !strings.Contains(string(b), "replace github.com/toolhost/toolhost => "+tt.replace) {
					t.Errorf("go.mod lacks the replace:\n%s", b)
				}
			}
		})
	}
}

func TestWriteRefuses(t *testing.T) {
	existing := t.TempDir()
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"not kebab", Options{Name: "Word_Count", Kind: "tool", Lang: "go"}, "kebab-case"},
		{"bad kind", Options{Name: "x", Kind: "robot", Lang: "go"}, "want tool or agent"},
		{"bad lang", Options{Name: "x", Kind: "tool", Lang: "rust"}, "want go or python"},
		{"python agent", Options{Name: "x", Kind: "agent", Lang: "python"}, "Go only"},
		{"existing folder", Options{Name: "x", Kind: "tool", Lang: "go", Dir: existing}, "exists already"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.o.Dir == "" {
				tt.o.Dir = filepath.Join(t.TempDir(), "new")
			}
			_, err := Write(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
