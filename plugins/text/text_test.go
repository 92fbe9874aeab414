// Package text tests the Python text plugin in its CLI mode (the plugin
// itself is text.py; tests/python_plugin_test.go runs it through the host).
package text

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk/python"
)

// bin is the plugin's entrypoint in a folder installed as make installs it:
// this folder's own files and the Python runtime of sdk/python beside them.
var bin string

func TestMain(m *testing.M) {
	dir, err := install()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "text")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// install copies the plugin's own files and the runtime into a new
// temporary folder.
func install() (string, error) {
	dir, err := os.MkdirTemp("", "text-plugin-")
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	for _, f := range []string{"text", "text.py", "tool.yaml"} {
		b, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), b, 0o755)
		}
		if err != nil {
			return "", fmt.Errorf("install: %w", err)
		}
	}
	if _, err := python.WriteRuntime(dir); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	return dir, nil
}

// run runs the installed plugin with args and returns its exit code and
// decoded stdout.
func run(t *testing.T, args ...string) (int, map[string]any) {
	t.Helper()
	out, stderr, code := testplugin.Run(t, exec.Command(bin, args...))
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("text %v: stdout is not JSON (is make deps done? it installs the python3-* packages): %v\n%s\nstderr: %s", args, err, out, stderr)
	}
	return code, v
}

// Article 1 of the Universal Declaration of Human Rights (United Nations,
// 1948) in seven languages: real sentences, published by the UN for free use.
var udhrArticle1 = map[string]string{
	"en": "All human beings are born free and equal in dignity and rights. They are endowed with reason and conscience and should act towards one another in a spirit of brotherhood.",
	"pt": "Todos os seres humanos nascem livres e iguais em dignidade e em direitos. Dotados de razão e de consciência, devem agir uns para com os outros em espírito de fraternidade.",
	"es": "Todos los seres humanos nacen libres e iguales en dignidad y derechos y, dotados como están de razón y conciencia, deben comportarse fraternalmente los unos con los otros.",
	"fr": "Tous les êtres humains naissent libres et égaux en dignité et en droits. Ils sont doués de raison et de conscience et doivent agir les uns envers les autres dans un esprit de fraternité.",
	"de": "Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft und Gewissen begabt und sollen einander im Geist der Brüderlichkeit begegnen.",
	"it": "Tutti gli esseri umani nascono liberi ed eguali in dignità e diritti. Essi sono dotati di ragione e di coscienza e devono agire gli uni verso gli altri in spirito di fratellanza.",
	"nl": "Alle mensen worden vrij en gelijk in waardigheid en rechten geboren. Zij zijn begiftigd met verstand en geweten, en behoren zich jegens elkander in een geest van broederschap te gedragen.",
}

func TestLanguageOfUDHR(t *testing.T) {
	for lang, text := range udhrArticle1 {
		t.Run(lang, func(t *testing.T) {
			code, got := run(t, "language", "--text", text)
			if code != 0 || got["language"] != lang {
				t.Errorf("exit %d, language %v, want %s (scores %v)", code, got["language"], lang, got["scores"])
			}
		})
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		name string
		text string
		want map[string]float64
	}{
		// Flesch: 206.835 - 1.015*(6/1) - 84.6*(6/6) = 116.145.
		{"one short sentence", "The cat sat on the mat.", map[string]float64{"words": 6, "sentences": 1, "syllables": 6, "flesch_reading_ease": 116.15}},
		{"two sentences, no final stop", "It rained. We stayed inside", map[string]float64{"words": 5, "sentences": 2}},
		{"UDHR article 1", udhrArticle1["en"], map[string]float64{"words": 30, "sentences": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, got := run(t, "stats", "--text", tt.text)
			if code != 0 {
				t.Fatalf("exit %d: %v", code, got)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: got %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestCLIErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantExit int
		wantCode string
	}{
		{"unknown action", []string{"stat", "--text", "x"}, 2, "unknown_action"},
		{"misspelt arg", []string{"stats", "--txt", "x"}, 2, "invalid_args"},
		{"not an integer", []string{"top-words", "--text", "x", "--max-results", "many"}, 2, "invalid_args"},
		{"neither text nor path (a usage error)", []string{"stats"}, 2, "invalid_args"},
		{"missing file", []string{"stats", "--path", "/nonexistent/file.txt"}, 1, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, got := run(t, tt.args...)
			env, _ := got["error"].(map[string]any)
			if code != tt.wantExit || env["code"] != tt.wantCode {
				t.Errorf("exit %d, %v; want exit %d, code %s", code, got, tt.wantExit, tt.wantCode)
			}
		})
	}
}

// TestUserSitePackagesDoNotRun: a .pth file in the user's site-packages
// (~/.local/lib/python3.X/site-packages) runs its import lines in every
// Python started without -I; the plugin's must not run it. The test first
// shows that the same HOME does run it in a Python started plainly.
func TestUserSitePackagesDoNotRun(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		py = "python3"
	}
	ver, err := exec.Command(py, "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	home := t.TempDir()
	marker := filepath.Join(t.TempDir(), "pth-ran")
	site := filepath.Join(home, ".local", "lib", "python"+strings.TrimSpace(string(ver)), "site-packages")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	pth := fmt.Sprintf("import pathlib; pathlib.Path(%q).write_text('ran')\n", marker)
	if err := os.WriteFile(filepath.Join(site, "zz-hook.pth"), []byte(pth), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}

	plain := exec.Command(py, "-c", "pass")
	plain.Env = env
	if out, err := plain.CombinedOutput(); err != nil {
		t.Fatalf("python3 -c pass: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Skipf("this python3 runs no user .pth file (user site-packages off): nothing to test")
	}
	os.Remove(marker)

	cmd := exec.Command(bin, "stats", "--text", "One short sentence.")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("text stats: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a .pth file in the user's site-packages ran inside the text plugin")
	}
}
