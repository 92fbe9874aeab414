package clientconfig

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/tailscale/hujson"
)

// Servers returns the server entries of the object at loc in doc (loc is
// the path of member names from the top, such as ["mcpServers"] or
// ["projects", "/home/ana/app", "mcpServers"]), sorted by name. A missing
// object gives none.
func Servers(doc []byte, loc ...string) (map[string]map[string]any, []string, error) {
	std, err := Standard(doc)
	if err != nil {
		return nil, nil, err
	}
	var v any = map[string]any{}
	if len(std) > 0 {
		if err := json.Unmarshal(std, &v); err != nil {
			return nil, nil, fmt.Errorf("not valid JSON: %w", err)
		}
	}
	for _, k := range loc {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, nil
		}
		v = m[k]
	}
	m, _ := v.(map[string]any)
	out := map[string]map[string]any{}
	var names []string
	for n, e := range m {
		if em, ok := e.(map[string]any); ok {
			out[n] = em
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return out, names, nil
}

// Projects lists the folders Claude Code's ~/.claude.json keeps settings
// for (its "projects" object), sorted.
func Projects(doc []byte) ([]string, error) {
	std, err := Standard(doc)
	if err != nil {
		return nil, err
	}
	var v struct {
		Projects map[string]json.RawMessage `json:"projects"`
	}
	if len(std) > 0 {
		if err := json.Unmarshal(std, &v); err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
	}
	var out []string
	for p := range v.Projects {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// RemoveAt takes name out of the object at loc in doc, changing nothing
// else. It reports whether doc changed (false when name was not there).
func RemoveAt(doc []byte, loc []string, name string) ([]byte, bool, error) {
	if len(loc) == 1 {
		return Remove(doc, loc[0], name)
	}
	root, obj, err := parseObject(doc)
	if err != nil {
		return nil, false, err
	}
	for _, k := range loc {
		var next *hujson.Object
		for i := range obj.Members {
			if memberName(&obj.Members[i]) == k {
				next, _ = obj.Members[i].Value.Value.(*hujson.Object)
			}
		}
		if next == nil {
			return doc, false, nil
		}
		obj = next
	}
	for i := range obj.Members {
		if memberName(&obj.Members[i]) == name {
			removeMember(obj, i)
			return root.Pack(), true, nil
		}
	}
	return doc, false, nil
}

// Rewrite applies change to the config file at path, as Install does,
// but keeps the file as it was in a backup of its own (path.bak-import-
// and the time), never overwriting an earlier one: an import takes
// entries out, and a person must be able to get each back.
func Rewrite(path string, dryRun bool, now time.Time, change func([]byte) ([]byte, bool, error)) (Outcome, error) {
	backup := func(p string) string {
		return p + ".bak-import-" + now.UTC().Format("20060102T150405Z")
	}
	return editBackup(path, dryRun, backup, change)
}
