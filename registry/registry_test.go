package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validManifest = `name: %s
description: A tool for tests.
version: 1.0.0
entrypoint: bin
actions:
  - name: list-credentials
    description: List the stored credentials.
    read_only: true
  - name: read-sheet
    description: Read one sheet of a workbook.
    read_only: true
`

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func addTool(t *testing.T, root, name string, manifest string, binary bool) {
	t.Helper()
	if manifest == "" {
		manifest = strings.ReplaceAll(validManifest, "%s", name)
	}
	writeFile(t, filepath.Join(root, name, "tool.yaml"), manifest, 0o644)
	if binary {
		writeFile(t, filepath.Join(root, name, "bin"), "#!/bin/sh\n", 0o755)
	}
}

func TestScanReadinessAndBroken(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	addTool(t, root, "nobinary", "", false)
	addTool(t, root, "noexec", "", false)
	writeFile(t, filepath.Join(root, "noexec", "bin"), "data", 0o644)
	addTool(t, root, "pinned", strings.Replace(strings.ReplaceAll(validManifest, "%s", "pinned"), "entrypoint: bin",
		"entrypoint: bin\nsha256: "+strings.Repeat("ab", 32), 1), true)
	addTool(t, root, "secret", strings.Replace(strings.ReplaceAll(validManifest, "%s", "secret"), "entrypoint: bin",
		"entrypoint: bin\nsecrets:\n  - {name: api-token, env: SECRET_TOOL_TOKEN, required: true}", 1), true)
	addTool(t, root, "broken", "name: broken\nactions:\n  - name: x\n    read_only: maybe\n", true)
	addTool(t, root, "dup", strings.ReplaceAll(validManifest, "%s", "alpha"), true)
	os.MkdirAll(filepath.Join(root, "not-a-plugin"), 0o755)

	r := New(Options{PluginDirs: []string{root, filepath.Join(root, "missing")}, Getenv: func(string) string { return "" }})
	snap := r.Scan()
	want := map[string]string{
		"alpha":    "",
		"nobinary": "not found — run make",
		"noexec":   "not an executable",
		"pinned":   "tool.yaml pins",
		"secret":   "SECRET_TOOL_TOKEN",
	}
	if len(snap.Tools) != len(want) {
		t.Fatalf("got %d tools, want %d; broken: %+v", len(snap.Tools), len(want), snap.Broken)
	}
	for _, tool := range snap.Tools {
		w, ok := want[tool.Name()]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name())
			continue
		}
		if (w == "") != tool.Ready || !strings.Contains(tool.NotReady, w) {
			t.Errorf("%s: ready=%v %q, want reason containing %q", tool.Name(), tool.Ready, tool.NotReady, w)
		}
	}
	if len(snap.Broken) != 2 {
		t.Fatalf("broken: %+v", snap.Broken)
	}
	for _, b := range snap.Broken {
		switch {
		case strings.Contains(b.Path, "broken"):
			if !strings.Contains(b.Error, "tool.yaml:4") || !strings.Contains(b.Error, "read_only") {
				t.Errorf("broken manifest error lacks line and field: %s", b.Error)
			}
		case strings.Contains(b.Path, "dup"):
			if !strings.Contains(b.Error, "already taken") {
				t.Errorf("duplicate not explained: %s", b.Error)
			}
		default:
			t.Errorf("unexpected broken entry %+v", b)
		}
	}
}

func TestLookupsSuggest(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "xlsx", "", true)
	snap := New(Options{PluginDirs: []string{root}}).Scan()
	if tool, sugg := snap.Tool("xlxs"); tool != nil || len(sugg) == 0 || sugg[0] != "xlsx" {
		t.Fatalf("got %v %v, want did_you_mean xlsx", tool, sugg)
	}
}

func TestDigestChangesWithBinary(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	r := New(Options{PluginDirs: []string{root}})
	d1 := r.Scan().Digest
	if d2 := r.Scan().Digest; d1 != d2 {
		t.Fatal("digest changed with nothing changed")
	}
	writeFile(t, filepath.Join(root, "alpha", "bin"), "#!/bin/sh\necho new\n", 0o755)
	if d3 := r.Scan().Digest; d3 == d1 {
		t.Fatal("digest did not change with the binary")
	}
}

func TestSkills(t *testing.T) {
	root := t.TempDir()
	skills := t.TempDir()
	writeFile(t, filepath.Join(skills, "weekly-review", "SKILL.md"), "---\nname: weekly-review\ndescription: Review the week's spend.\n---\n# Weekly review\nSteps.\n", 0o644)
	writeFile(t, filepath.Join(skills, "bad", "SKILL.md"), "no frontmatter\n", 0o644)
	addTool(t, root, "alpha", "", true)
	writeFile(t, filepath.Join(root, "alpha", "skills", "alpha-tips", "SKILL.md"), "---\nname: alpha-tips\ndescription: Tips.\n---\nbody\n", 0o644)
	snap := New(Options{PluginDirs: []string{root}, SkillDirs: []string{skills}}).Scan()
	if len(snap.Skills) != 2 || snap.Skills[0].Name != "alpha-tips" || snap.Skills[1].Name != "weekly-review" {
		t.Fatalf("skills: %+v", snap.Skills)
	}
	body, err := snap.Skills[1].Body()
	if err != nil || !strings.Contains(body, "# Weekly review") {
		t.Fatalf("body %q %v", body, err)
	}
	if len(snap.Broken) != 1 || !strings.Contains(snap.Broken[0].Error, "frontmatter") {
		t.Fatalf("broken: %+v", snap.Broken)
	}
	if s, sugg := snap.Skill("weekly-reveiw"); s != nil || len(sugg) == 0 || sugg[0] != "weekly-review" {
		t.Fatalf("got %v %v", s, sugg)
	}
}

func TestScanAgentUses(t *testing.T) {
	agent := func(name, uses string) string {
		return strings.Replace(strings.ReplaceAll(validManifest, "%s", name), "entrypoint: bin", "kind: agent\nentrypoint: bin\nuses: "+uses, 1)
	}
	tests := []struct {
		name, uses string
		want       string // "" for ready, else a part of the reason
	}{
		{"all-there", "[alpha, beta/read-sheet]", ""},
		{"missing-tool", "[alpha, gamma]", "uses gamma, which is not installed"},
		{"missing-action", "[alpha/delete-all]", `alpha has no action "delete-all"`},
		{"unready-tool", "[nobinary]", "uses nobinary, which is not ready"},
	}
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	addTool(t, root, "beta", "", true)
	addTool(t, root, "nobinary", "", false)
	for _, tt := range tests {
		addTool(t, root, tt.name, agent(tt.name, tt.uses), true)
	}
	snap := New(Options{PluginDirs: []string{root}}).Scan()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, _ := snap.Tool(tt.name)
			if tool == nil {
				t.Fatalf("agent %s not loaded; broken: %v", tt.name, snap.Broken)
			}
			if tt.want == "" {
				if !tool.Ready {
					t.Fatalf("got not ready (%s), want ready", tool.NotReady)
				}
				return
			}
			if tool.Ready || !strings.Contains(tool.NotReady, tt.want) {
				t.Fatalf("got ready=%v %q, want not ready with %q", tool.Ready, tool.NotReady, tt.want)
			}
			if strings.Contains(tt.want, "installed") && !strings.Contains(tool.NotReady, filepath.Join(tt.name, "tool.yaml")) {
				t.Fatalf("reason %q does not name the manifest", tool.NotReady)
			}
		})
	}
}
