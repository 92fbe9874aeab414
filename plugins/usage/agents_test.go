package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// TestAgentsLookedFor: status lists every agent ccusage reads, where it was
// looked for (as $VAR or ~/…, never the absolute path) and what was found;
// every one is read, so no report names one as present but unread.
func TestAgentsLookedFor(t *testing.T) {
	home := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(home, ".config", "manicode", "projects", "p", "chats", "c1", "chat-messages.json"), "[]")
	testplugin.WriteFile(t, filepath.Join(home, ".grok", "sessions", "p", "s1", "updates.jsonl"), "{}")
	testplugin.WriteFile(t, filepath.Join(home, ".zcode", "sessions", "s1.json"), "{}")
	claw := filepath.Join(t.TempDir(), "openclaw")
	testplugin.WriteFile(t, filepath.Join(claw, "agents", "main", "sessions", "a.jsonl"), "")
	s := newTestService(t, map[string]string{"HOME": home, "OPENCLAW_DIR": claw, "ANTIGRAVITY_DATA_DIR": claw})

	res, b := call(t, s, "status", nil)
	var st struct {
		Agents   []source.AgentStatus `json:"agents"`
		Degraded []source.Degraded    `json:"degraded"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Agents) != len(source.Agents) {
		t.Errorf("%d agents listed, want all %d", len(st.Agents), len(source.Agents))
	}
	want := map[string]struct {
		where   string
		present bool
	}{
		"grok":        {"~/.grok", true},
		"codebuff":    {"~/.config/manicode, ~/.config/manicode-dev, ~/.config/manicode-staging", true},
		"pi":          {"~/.pi/agent/sessions", false},
		"amp":         {"~/.local/share/amp", false},
		"zcode":       {"~/.zcode", true},
		"hermes":      {"~/.hermes", false},
		"qwen":        {"~/.qwen", false},
		"openclaw":    {"$OPENCLAW_DIR", true},
		"antigravity": {"$ANTIGRAVITY_DATA_DIR", true},
		"kimi":        {"~/.kimi, ~/.kimi-code", false},
		"goose":       {"${XDG_DATA_HOME:-~/.local/share}/goose/sessions, ~/Library/Application Support/goose/sessions, ~/.local/share/Block/goose/sessions", false},
		"copilot":     {"~/.copilot", false},
		"claude":      {"~/.config/claude, ~/.claude", false},
	}
	for _, a := range st.Agents {
		if w, ok := want[a.Agent]; ok && (a.Where != w.where || a.Present != w.present) {
			t.Errorf("%s: where %q present %v, want %q %v", a.Agent, a.Where, a.Present, w.where, w.present)
		}
	}
	if strings.Contains(string(b), home) || strings.Contains(res.Markdown, home) || strings.Contains(string(b), claw) {
		t.Error("status shows an absolute path")
	}
	for _, a := range st.Agents {
		if !a.Read {
			t.Errorf("%s is not read", a.Agent)
		}
	}
	if strings.Contains(res.Markdown, "not read") {
		t.Errorf("status Markdown names an unread agent:\n%s", res.Markdown)
	}
	_, u := usageOf(t, s, map[string]any{"period": "today"})
	var named []string
	for _, d := range u.Degraded {
		if strings.Contains(d.Reason, "but not read") {
			named = append(named, d.Provider)
		}
	}
	if len(named) > 0 {
		t.Errorf("get-usage names %v as present but unread, want none", named)
	}
}

// TestUnreadAgentNamed: an agent whose logs are here but which the plugin
// does not read is named in degraded, so a partial bill says what it
// leaves out.
func TestUnreadAgentNamed(t *testing.T) {
	got := source.UnreadAgents([]source.AgentStatus{
		{Agent: "newagent", Where: "~/.newagent", Present: true},
		{Agent: "absent", Where: "~/.absent"},
		{Agent: "claude", Where: "~/.claude", Present: true, Read: true},
	})
	if len(got) != 1 || got[0].Provider != "newagent" || !strings.Contains(got[0].Reason, "~/.newagent") ||
		!strings.Contains(got[0].Reason, "not in the totals") {
		t.Errorf("got %+v, want newagent named as present but unread", got)
	}
}

// TestEveryProviderSaysWhereItLooked: with no logs anywhere, status names
// for every provider read where it looked (what spend-review lists as
// "looked in"), written with ~ for the home.
func TestEveryProviderSaysWhereItLooked(t *testing.T) {
	home := t.TempDir()
	s := newTestService(t, map[string]string{"HOME": home})
	_, b := call(t, s, "status", nil)
	var st struct {
		Providers []source.ProviderStatus `json:"providers"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, a := range source.Agents {
		if a.Read {
			read++
		}
	}
	if len(st.Providers) != read {
		t.Errorf("%d providers in status, want the %d agents read", len(st.Providers), read)
	}
	for _, p := range st.Providers {
		if p.Found || len(p.LookedIn) == 0 || !strings.HasPrefix(p.LookedIn[0], "~/") {
			t.Errorf("%s: found %v, looked in %q; want not found, looked in ~/…", p.Provider, p.Found, p.LookedIn)
		}
	}
}
