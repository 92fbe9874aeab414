package source

import (
	"os"
	"path/filepath"
	"strings"
)

// Agent is one coding agent whose logs ccusage 20 reads: where its logs
// are (the variable that moves them, else folders under the home), and
// whether this plugin reads them. The list and the places are ccusage's
// (its docs/guide/environment-variables.md and per-agent guides).
type Agent struct {
	Name string
	// Env is the variable naming its folder(s), a comma list.
	Env string
	// Defaults are folders under the home, "$XDG_DATA_HOME" standing for
	// XDG_DATA_HOME or ~/.local/share.
	Defaults []string
	// Read is true for the agents the plugin reads (providers).
	Read bool
}

// Agents are every agent ccusage 20.0.24 reads, in its order.
var Agents = []Agent{
	{Name: "claude", Env: "CLAUDE_CONFIG_DIR", Defaults: []string{".config/claude", ".claude"}, Read: true},
	{Name: "codex", Env: "CODEX_HOME", Defaults: []string{".codex"}, Read: true},
	{Name: "opencode", Env: "USAGE_OPENCODE_DB", Defaults: []string{"$XDG_DATA_HOME/opencode"}, Read: true},
	{Name: "amp", Env: "AMP_DATA_DIR", Defaults: []string{".local/share/amp"}, Read: true},
	{Name: "droid", Env: "DROID_SESSIONS_DIR", Defaults: []string{".factory/sessions"}, Read: true},
	{Name: "codebuff", Env: "CODEBUFF_DATA_DIR", Defaults: []string{".config/manicode", ".config/manicode-dev", ".config/manicode-staging"}, Read: true},
	{Name: "hermes", Env: "HERMES_HOME", Defaults: []string{".hermes"}, Read: true},
	{Name: "pi", Env: "PI_AGENT_DIR", Defaults: []string{".pi/agent/sessions"}, Read: true},
	{Name: "goose", Env: "GOOSE_PATH_ROOT", Defaults: []string{"$XDG_DATA_HOME/goose/sessions", "Library/Application Support/goose/sessions", ".local/share/Block/goose/sessions"}, Read: true},
	{Name: "kilo", Env: "KILO_DATA_DIR", Defaults: []string{".local/share/kilo"}, Read: true},
	{Name: "copilot", Env: "COPILOT_HOME", Defaults: []string{".copilot"}, Read: true},
	{Name: "gemini", Env: "USAGE_GEMINI_DIR", Defaults: []string{".gemini/tmp"}, Read: true},
	{Name: "antigravity", Env: "ANTIGRAVITY_DATA_DIR", Defaults: []string{".gemini/antigravity", ".gemini/antigravity-cli", ".gemini/antigravity-ide", ".gemini/antigravity-backup", ".config/antigravity"}, Read: true},
	{Name: "kimi", Env: "KIMI_DATA_DIR", Defaults: []string{".kimi", ".kimi-code"}, Read: true},
	{Name: "qwen", Env: "QWEN_DATA_DIR", Defaults: []string{".qwen"}, Read: true},
	{Name: "openclaw", Env: "OPENCLAW_DIR", Defaults: []string{".openclaw", ".clawdbot", ".moltbot", ".moldbot"}, Read: true},
	{Name: "grok", Env: "GROK_HOME", Defaults: []string{".grok"}, Read: true},
	{Name: "zcode", Env: "ZCODE_HOME", Defaults: []string{".zcode"}, Read: true},
}

// AgentStatus is what looking for one agent found. Where names the places
// as the user writes them ($VAR, ~/…), never the absolute paths.
type AgentStatus struct {
	Agent   string `json:"agent"`
	Where   string `json:"where"`
	Read    bool   `json:"read"`
	Present bool   `json:"present"`
	// Entries counts what the folders hold at their top (files or
	// folders), when present.
	Entries int `json:"entries,omitempty"`
}

// LookForAgents looks for every agent ccusage reads: its variable's
// folders, else its default folders.
func LookForAgents(env Env) []AgentStatus {
	var out []AgentStatus
	for _, a := range Agents {
		st := AgentStatus{Agent: a.Name, Read: a.Read}
		var places, shown []string
		if v := env(a.Env); v != "" {
			places = roots(v)
			shown = []string{"$" + a.Env}
		} else if h := env.Home(); h != "" {
			for _, d := range a.Defaults {
				shownD := "~/" + d
				if rest, ok := strings.CutPrefix(d, "$XDG_DATA_HOME/"); ok {
					d = filepath.Join(env.Dir("XDG_DATA_HOME", ".local", "share"), rest)
					shownD = "${XDG_DATA_HOME:-~/.local/share}/" + rest
				} else {
					d = filepath.Join(h, filepath.FromSlash(d))
				}
				places = append(places, d)
				shown = append(shown, shownD)
			}
		}
		st.Where = strings.Join(shown, ", ")
		if st.Where == "" {
			st.Where = "$" + a.Env + " (not set)"
		}
		for _, p := range places {
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			st.Present = true
			if !fi.IsDir() {
				st.Entries++
				continue
			}
			if es, err := os.ReadDir(p); err == nil {
				st.Entries += len(es)
			}
		}
		out = append(out, st)
	}
	return out
}

// UnreadAgents are the degraded notes for agents whose logs are here but
// not read: their usage is missing from every total.
func UnreadAgents(found []AgentStatus) []Degraded {
	var out []Degraded
	for _, a := range found {
		if a.Present && !a.Read {
			out = append(out, Degraded{Provider: a.Agent, Reason: "logs found (" + a.Where +
				") but not read: this plugin does not read " + a.Agent + ", so its usage is not in the totals"})
		}
	}
	return out
}
