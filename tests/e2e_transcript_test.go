package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Golden transcripts: testdata/transcripts/*.txtar hold an "input" file
// (the lines a client sends; lines starting with # are comments) and an
// "output" file (every line `host serve` wrote, in order, each request's
// answer awaited before the next line is sent). Run with -update to
// rewrite the outputs after a deliberate change.

// txtar is a minimal reader and writer of the txtar format.
type txtar struct {
	comment string
	files   []txtarFile
}

type txtarFile struct {
	name string
	data string
}

func parseTxtar(s string) txtar {
	var a txtar
	var cur *txtarFile
	for _, line := range strings.SplitAfter(s, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			a.files = append(a.files, txtarFile{name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])})
			cur = &a.files[len(a.files)-1]
			continue
		}
		if cur == nil {
			a.comment += line
		} else {
			cur.data += line
		}
	}
	return a
}

func (a txtar) format() string {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (a txtar) file(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

func (a *txtar) set(name, data string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, txtarFile{name: name, data: data})
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
			ar := parseTxtar(string(raw))
			input, ok := ar.file("input")
			if !ok {
				t.Fatal("no input file")
			}
			var extra []string
			if envs, ok := ar.file("env"); ok {
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
				for _, got := range w.exchange(line) {
					out.WriteString(got + "\n")
				}
			}
			if err := w.closeAndWait(); err != nil {
				t.Errorf("host exit after stdin closed: %v", err)
			}
			want, _ := ar.file("output")
			if *update {
				ar.set("output", out.String())
				must(t, os.WriteFile(file, []byte(ar.format()), 0o644))
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
