package discovery

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/toolhost/toolhost/host/internal/npmserver"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
)

// installed is how one server of the large catalogue is installed as a
// plugin: a line of testdata/catalogue/installed.tsv.
type installed struct {
	npm         bool
	pkg, entry  string // npm: PACKAGE@VERSION and its bin; else the program
	interpreter string
	description string
}

func readInstalled(t testing.TB) map[string]installed {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "catalogue", "installed.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]installed{}
	for n, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		how := strings.Fields(cols[1])
		if len(cols) != 3 || len(how) != 3 || (how[0] != "npm" && how[0] != "program") {
			t.Fatalf("installed.tsv:%d: want server<TAB>npm PACKAGE@VERSION BIN | program ENTRYPOINT INTERPRETER<TAB>description: %q", n+1, line)
		}
		in := installed{npm: how[0] == "npm", pkg: how[1], entry: how[2], description: cols[2]}
		if !in.npm {
			in.entry, in.interpreter = how[1], strings.TrimPrefix(how[2], "-")
		}
		out[cols[0]] = in
	}
	return out
}

// pluginFolder writes server's plugin folder under root as it is installed
// (tool.yaml with protocol: mcp; for an npm server the one `host
// new-plugin --from-npm` writes) with an empty stand-in for the
// entrypoint: nothing runs.
func pluginFolder(t testing.TB, root, server string, in installed) error {
	t.Helper()
	dir := filepath.Join(root, server)
	var manifest, entry string
	if in.npm {
		name, version := npmserver.Spec(in.pkg)
		pl := npmserver.Plugin{Name: server, Package: npmserver.Package{Name: name, Version: version,
			Description: in.description, Bin: map[string]string{server: in.entry}}}
		var err error
		if manifest, err = pl.Manifest(); err != nil {
			return err
		}
		entry, _ = pl.Package.Entrypoint()
	} else {
		m := map[string]string{"name": server, "kind": "tool", "protocol": "mcp", "description": in.description, "entrypoint": in.entry}
		if in.interpreter != "" {
			m["interpreter"] = in.interpreter
		}
		b, _ := yaml.Marshal(m)
		manifest, entry = string(b), in.entry
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, entry)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, entry), nil, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(manifest), 0o644)
}

var (
	largeOnce sync.Once
	largeSnap *registry.Snapshot
	largeErr  string
	largeDefs []byte
)

// largeCatalogue installs each server of testdata/catalogue/*.json as a
// plugin (testdata/catalogue/installed.tsv) and approves it, the approval
// pinning the tools/list answer the file holds, so the snapshot's actions
// are the servers' tools as the host makes them of any MCP server. It also
// returns every tool definition as one tools/list answer would list them,
// the bytes a client without toolhost puts in context.
func largeCatalogue(t testing.TB) (*registry.Snapshot, []byte) {
	t.Helper()
	largeOnce.Do(func() {
		files, err := filepath.Glob(filepath.Join("testdata", "catalogue", "*.json"))
		if err != nil || len(files) == 0 {
			largeErr = "no testdata/catalogue/*.json"
			return
		}
		root, err := os.MkdirTemp("", "catalogue-")
		if err != nil {
			largeErr = err.Error()
			return
		}
		defer os.RemoveAll(root)
		plugins := filepath.Join(root, "plugins")
		how := readInstalled(t)
		listed := map[string][]manifests.MCPTool{}
		var all []json.RawMessage
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				largeErr = err.Error()
				return
			}
			var list struct {
				Tools []json.RawMessage `json:"tools"`
			}
			var typed struct {
				Tools []manifests.MCPTool `json:"tools"`
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				largeErr = f + ": " + err.Error()
				return
			}
			json.Unmarshal(raw, &typed)
			all = append(all, list.Tools...)
			server := strings.TrimSuffix(filepath.Base(f), ".json")
			in, ok := how[server]
			if !ok {
				largeErr = server + " is not in testdata/catalogue/installed.tsv"
				return
			}
			if err := pluginFolder(t, plugins, server, in); err != nil {
				largeErr = server + ": " + err.Error()
				return
			}
			listed[server] = typed.Tools
		}
		r := registry.New(registry.Options{PluginDirs: []string{plugins}, RequireApproval: true,
			StateDir: filepath.Join(root, "state"), RunDir: filepath.Join(root, "run"),
			ListMCPTools: func(_ context.Context, tl *registry.Tool) ([]manifests.MCPTool, error) {
				return listed[tl.Name()], nil
			}})
		if _, err := r.Approve(nil, "the discovery evaluation"); err != nil {
			largeErr = err.Error()
			return
		}
		largeSnap = r.Scan()
		for _, b := range largeSnap.Broken {
			largeErr += b.Path + ": " + b.Error + "\n"
		}
		for _, tl := range largeSnap.Tools {
			if len(tl.Manifest.Actions) == 0 {
				largeErr += tl.Name() + " has no actions: " + tl.NotReady + "\n"
			}
		}
		largeDefs, _ = json.Marshal(map[string]any{"tools": all})
	})
	if largeErr != "" {
		t.Fatalf("large catalogue: %s", largeErr)
	}
	return largeSnap, largeDefs
}

// shippedCatalogue is the registry over the repository's own plugins and
// skills, as `host serve` in a checkout sees them.
func shippedCatalogue(t testing.TB) *registry.Snapshot {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	snap := registry.New(registry.Options{PluginDirs: []string{filepath.Join(root, "plugins")},
		SkillDirs: []string{filepath.Join(root, "skills")}}).Scan()
	for _, b := range snap.Broken {
		t.Fatalf("shipped catalogue: %s: %s", b.Path, b.Error)
	}
	if len(snap.Tools) == 0 || len(snap.Skills) == 0 {
		t.Fatalf("shipped catalogue: %d tools, %d skills", len(snap.Tools), len(snap.Skills))
	}
	return snap
}
