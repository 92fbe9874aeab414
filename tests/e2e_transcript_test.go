package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Golden transcripts: testdata/transcripts/*.txtar hold an "input" file
// (the lines a client sends; lines starting with # are comments) and an
// "output" file (every message `host serve` wrote, in order, each request's
// answer awaited before the next line is sent), each message indented so a
// change reviews as a diff of the fields it touched. Run with -update to
// rewrite the outputs after a deliberate change.

// fileData returns the named file of the archive.
func fileData(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// setFile replaces (or adds) the named file of the archive.
func setFile(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

// indentMessage is one output message as the golden file holds it: JSON
// indented by two spaces (token text, ids and strings exactly as sent),
// anything else as it came.
func indentMessage(line string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(line), "", "  "); err != nil {
		return line
	}
	return b.String()
}

func TestTranscripts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no transcripts under testdata/transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			must(t, err)
			ar := txtar.Parse(raw)
			input, ok := fileData(ar, "input")
			if !ok {
				t.Fatal("no input file")
			}
			var extra []string
			if envs, ok := fileData(ar, "env"); ok {
				for _, kv := range strings.Split(strings.TrimSpace(envs), "\n") {
					if kv = strings.TrimSpace(kv); kv != "" {
						extra = append(extra, kv)
					}
				}
			}
			w := newEnv(t, extra...).startWire(t)
			var out strings.Builder
			for _, line := range strings.Split(input, "\n") {
				if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
					continue
				}
				for _, got := range w.Exchange(line) {
					out.WriteString(indentMessage(got) + "\n")
				}
			}
			if err := w.closeAndWait(); err != nil {
				t.Errorf("host exit after stdin closed: %v", err)
			}
			want, _ := fileData(ar, "output")
			if *update {
				setFile(ar, "output", out.String())
				must(t, os.WriteFile(file, txtar.Format(ar), 0o644))
				return
			}
			if got := out.String(); got != want {
				t.Errorf("transcript differs; rerun with -update if the change is deliberate\n%s", lineDiff(want, got))
			}
		})
	}
}

// lineDiff shows the first differing lines of two transcripts.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 5; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g + "\n")
			shown++
		}
	}
	return b.String()
}
