package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolhost/toolhost/host/internal/audit"
	"github.com/toolhost/toolhost/host/internal/discovery"
	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/metrics"
	"github.com/toolhost/toolhost/host/internal/oauth"
	"github.com/toolhost/toolhost/host/internal/supervisor"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
)

// version is the host's version, set at build time.
var version = "0.1.0"

// app is the host's parts, wired from the environment.
type app struct {
	logger     hclog.Logger
	registry   *registry.Registry
	supervisor *supervisor.Supervisor
	dispatcher *dispatch.Dispatcher
	// capsMaxBytes is HOST_CAPABILITIES_MAX_BYTES.
	capsMaxBytes int
	// auditPath is the audit log.
	auditPath string
	// metrics, when set (serve --metrics), counts calls, launches and
	// crashes.
	metrics atomic.Pointer[metrics.Metrics]
	// closers stop what serving started beside the supervisor (the OAuth
	// key refreshes); close runs them.
	closers []func()
}

// observe points the metrics at m: every MCP call, plugin launch and crash
// from now on is counted.
func (a *app) observe(m *metrics.Metrics) { a.metrics.Store(m) }

// callRunner is what the MCP surfaces run calls through: the dispatcher,
// behind the OAuth scope check (which passes calls that carry no token),
// measured when metrics are on.
func (a *app) callRunner() dispatch.CallRunner {
	run := oauth.Scoped(a.dispatcher)
	if m := a.metrics.Load(); m != nil {
		return m.Measured(run)
	}
	return run
}

// newApp builds the registry, supervisor and dispatcher from the
// environment; logs go to logOut (stderr) at HOST_LOG_LEVEL, else
// defaultLevel (the terminal commands keep quiet below warnings). What the
// plugins log reaches logOut only with --verbose or HOST_LOG_LEVEL: a
// terminal command's answer says what went wrong, and a plugin's own
// warnings beside it are noise. The approval lock is on unless HOST_DEV=1.
func newApp(logOut io.Writer, defaultLevel hclog.Level) *app {
	return newAppDev(logOut, defaultLevel, os.Getenv("HOST_DEV") == "1", false)
}

// newAppDev is newApp with the approval lock off when dev is true, which
// it says loudly on logOut. verifyAtLaunch (`host serve`, which logs what
// plugins log at its level) reads a plugin
// folder the hash cache has not seen only when the plugin first launches
// (registry.Options.VerifyAtLaunch), so a start reads no plugin it does not
// run.
func newAppDev(logOut io.Writer, defaultLevel hclog.Level, dev, verifyAtLaunch bool) *app {
	level := hclog.LevelFromString(os.Getenv("HOST_LOG_LEVEL"))
	if level == hclog.NoLevel {
		level = defaultLevel
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "host", Output: logOut, Level: level,
		JSONFormat: os.Getenv("HOST_LOG_FORMAT") == "json"})
	if dev {
		logger.Warn("DEVELOPER MODE (HOST_DEV=1 or --dev): the approval lock is OFF — every plugin folder runs without approval, " +
			"including one an agent wrote; never use it with an agent that can write plugin folders")
	}
	state := registry.DefaultStateDir()
	key, err := registry.ReadKey(state)
	if err != nil {
		logger.Warn("approval key unreadable: every tool needs approval again", "error", err)
	}
	hashes := registry.NewHashCache(registry.HashCachePath(registry.DefaultCacheDir()), key)
	parsed := registry.NewManifestCache(registry.ManifestCachePath(registry.DefaultCacheDir()), key)
	// An MCP server's approval lists its tools by starting it as the
	// supervisor (made below) would.
	var sup *supervisor.Supervisor
	reg := registry.New(registry.Options{
		ListMCPTools: func(ctx context.Context, t *registry.Tool) ([]manifests.MCPTool, error) {
			return sup.ListMCPTools(ctx, t, logOut)
		},
		PluginDirs:      pluginPath(),
		SkillDirs:       skillPath(),
		Logger:          logger.Named("registry"),
		RequireApproval: !dev,
		StateDir:        state,
		Hashes:          hashes,
		Manifests:       parsed,
		VerifyAtLaunch:  verifyAtLaunch,
	})
	idle, _ := time.ParseDuration(os.Getenv("HOST_PLUGIN_IDLE"))
	a := &app{logger: logger, registry: reg, capsMaxBytes: envInt("HOST_CAPABILITIES_MAX_BYTES", discovery.DefaultMaxBytes),
		auditPath: filepath.Join(state, audit.FileName)}
	auditLog := &audit.Log{Path: a.auditPath}
	a.dispatcher = &dispatch.Dispatcher{Registry: reg,
		MaxResultBytes:   envInt("HOST_MAX_RESULT_BYTES", dispatch.DefaultMaxResultBytes),
		DenyIrreversible: os.Getenv("HOST_DENY_IRREVERSIBLE") == "1",
		Audit: func(e audit.Entry) {
			if err := auditLog.Append(e); err != nil {
				logger.Warn("audit entry not written", "tool", e.Tool, "action", e.Action, "outcome", e.Outcome, "error", err)
			}
		}}
	// Agents call other tools back through the same dispatcher and gate.
	disableFor, _ := time.ParseDuration(os.Getenv("HOST_DISABLE_FOR"))
	disableMax, _ := time.ParseDuration(os.Getenv("HOST_DISABLE_MAX"))
	pluginLog := logger.Named("plugin")
	if !verifyAtLaunch && !verbose && os.Getenv("HOST_LOG_LEVEL") == "" { // a terminal command, not `host serve`
		pluginLog = hclog.New(&hclog.LoggerOptions{Name: "host.plugin", Output: logOut, Level: hclog.Off})
	}
	a.supervisor = supervisor.New(supervisor.Options{Logger: pluginLog, Idle: idle, HostServer: a.dispatcher.HostServer,
		StateDir: state, Reaper: supervisor.ReaperExe(), MaxInflight: envInt("HOST_MAX_INFLIGHT", 0),
		MaxCrashes: envInt("HOST_MAX_CRASHES", 0), DisableFor: disableFor, DisableMax: disableMax, Hashes: hashes,
		OnLaunch: func(tool string) {
			if m := a.metrics.Load(); m != nil {
				m.Launched(tool)
			}
		},
		OnCrash: func(tool string) {
			if m := a.metrics.Load(); m != nil {
				m.Crashed(tool)
			}
		},
		// The refused launch read the changed files: a rescan lists it.
		OnChanged: func(string) { reg.Scan() }, BridgeExe: bridgeExe()})
	sup = a.supervisor
	a.dispatcher.Runner = a.supervisor
	return a
}

// bridgeExe is the host's own executable, which runs MCP servers' plugins
// as their bridge; "" when it cannot be found.
func bridgeExe() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// close stops every plugin.
func (a *app) close() {
	for _, c := range a.closers {
		c()
	}
	a.supervisor.Close()
}

// installDir is the folder holding the installation (the parent of bin/),
// found from the executable's own path since MCP clients start the host in
// any directory.
func installDir() string {
	exe, err := os.Executable()
	if err != nil {
		return "."
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "bin" {
		return filepath.Dir(dir)
	}
	return dir
}

// pluginPath is HOST_PLUGIN_PATH, or the installation's plugins/ and the
// user's data folder's plugins/. HOST_PLUGIN_PATH names the folders
// exactly (tests and deployments rely on seeing only those); an empty entry
// in it (a leading or trailing separator, or two together) stands for the
// default folders, so `HOST_PLUGIN_PATH=DIR:` adds DIR and keeps the
// shipped plugins.
func pluginPath() []string {
	return pathList(os.Getenv("HOST_PLUGIN_PATH"), defaultPluginPath())
}

func defaultPluginPath() []string {
	return []string{filepath.Join(installDir(), "plugins"), filepath.Join(registry.DefaultDataDir(), "plugins")}
}

// skillPath is HOST_SKILL_PATH, or the installation's skills/ and the
// user's, an empty entry standing for those as in pluginPath. Skills
// inside plugin folders are always found.
func skillPath() []string {
	return pathList(os.Getenv("HOST_SKILL_PATH"),
		[]string{filepath.Join(installDir(), "skills"), filepath.Join(registry.DefaultDataDir(), "skills")})
}

// pathList reads a path-list variable: unset or empty gives defaults; an
// empty entry in it is replaced by defaults (once).
func pathList(v string, defaults []string) []string {
	if strings.TrimSpace(v) == "" {
		return defaults
	}
	var out []string
	seen := false
	for _, p := range strings.Split(v, string(os.PathListSeparator)) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		} else if !seen {
			seen = true
			out = append(out, defaults...)
		}
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// background keeps the host live until ctx ends: the registry watcher, the
// supervisor synced with each new snapshot (a removed or rebuilt plugin's
// old process is stopped once its calls drain), and eager plugins launched
// at start. It returns when all of it has stopped.
// w, the watcher started with the start's scan, is nil when it could not
// start.
func (a *app) background(ctx context.Context, w *registry.Watcher) {
	changes := a.registry.Changes()
	var wg sync.WaitGroup
	wg.Add(1)
	if w != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				a.logger.Warn("registry watcher stopped; plugins are read at start only", "error", err)
			}
		}()
	}
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-changes:
				a.supervisor.Sync(a.registry.Snapshot())
			}
		}
	}()
	for _, t := range a.registry.Snapshot().Tools {
		if t.Manifest.Eager && t.Ready {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := a.supervisor.Warm(ctx, t); err != nil {
					a.logger.Warn("eager plugin did not start", "tool", t.Name(), "error", err)
				}
			}()
		}
	}
	wg.Wait()
}
