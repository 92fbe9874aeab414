package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tests/usagegen"
)

// callSummary is what a cost report reads of a snapshot: each call's time,
// tokens, model, session and project, sorted.
func callSummary(s *Store) []string {
	var out []string
	s.View(func(snap *Snapshot) {
		for _, c := range snap.Calls {
			o := c.Origin
			out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s|%d|%d|%+v|%d", o.Provider, o.Session, o.Project, o.Name,
				o.Model, c.Time, c.Turn, c.Tokens(), c.Key))
		}
	})
	sort.Strings(out)
	return out
}

// TestSavedIndexReadsOnlyAppendedBytes: a store loaded from a saved index
// answers as a full scan does, reading nothing on unchanged logs and only
// the appended bytes after an append (Claude Code and Codex logs).
func TestSavedIndexReadsOnlyAppendedBytes(t *testing.T) {
	dir := t.TempDir()
	exp, err := usagegen.Generate(dir, usagegen.Config{Seed: 5, Days: 2, ContentBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	env := Env(func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": exp.ClaudeDir, "CODEX_HOME": exp.CodexDir, "HOME": filepath.Join(dir, "home")}[k]
	})
	fresh := func() *Store { return NewStore(env, 2, Claude{}, Codex{}, Gemini{}, OpenCode{}) }
	index := filepath.Join(dir, "cache", "index")
	ctx := context.Background()

	first := fresh()
	first.Refresh(ctx, nil)
	if err := first.Save(index); err != nil {
		t.Fatal(err)
	}
	want := callSummary(first)
	if len(want) == 0 {
		t.Fatal("the generated home gave no calls")
	}

	loaded := fresh()
	if err := loaded.Load(index); err != nil {
		t.Fatal(err)
	}
	loaded.Refresh(ctx, nil)
	if got := callSummary(loaded); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("loaded index: %d calls, want %d as a full scan gives", len(got), len(want))
	}
	if n := loaded.Stats().BytesReadLast; n != 0 {
		t.Errorf("unchanged logs: read %d bytes, want 0", n)
	}

	// Append one more response to a Claude log and to a Codex rollout:
	// each log's last usage-bearing line again, with a new identity.
	var appended int64
	for _, root := range []string{exp.ClaudeDir, exp.CodexDir} {
		var target string
		_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") && target == "" && !strings.Contains(p, "subagents") {
				target = p
			}
			return nil
		})
		b, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var last string
		for _, l := range lines {
			if strings.Contains(l, `"usage":{`) || strings.Contains(l, `"token_count"`) {
				last = l
			}
		}
		if last == "" {
			t.Fatalf("%s: no usage line to copy", filepath.Base(target))
		}
		line := strings.NewReplacer(`"msg_`, `"msg_again_`, `"req_`, `"req_again_`).Replace(last) + "\n"
		f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		f.Close()
		appended += int64(len(line))
	}
	loaded.Refresh(ctx, nil)
	if n := loaded.Stats().BytesReadLast; n != appended {
		t.Errorf("after the appends: read %d bytes, want the %d appended", n, appended)
	}
	full := fresh()
	full.Refresh(ctx, nil)
	if got, want := callSummary(loaded), callSummary(full); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the appends: %d calls from the index, %d from a full scan", len(got), len(want))
	}
}

// TestUnreadableIndexIsAnError: a corrupt or foreign index is refused with
// an error and leaves the store to a full scan.
func TestUnreadableIndexIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(path, []byte("not an index"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(func(string) string { return "" }, 1, Claude{})
	if err := s.Load(path); err == nil || !strings.Contains(err.Error(), "load usage index") {
		t.Fatalf("got %v, want a load error", err)
	}
	if len(s.files) != 0 || s.loaded {
		t.Error("a refused index left files in the store")
	}
}
