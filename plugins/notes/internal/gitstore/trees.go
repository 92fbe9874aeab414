package gitstore

import (
	"path"
	"sort"
	"sync"
)

// treeCache keeps the entries of the trees a commit listed with git ls-tree
// or had git mktree write, by tree id, and the root tree of each commit
// made: an id names the same entries for ever, so the next commit on top
// of one of these needs no listing from git when it knows every folder on
// its paths' way. It holds at most maxEntries entries, dropping the trees
// it learnt first.
type treeCache struct {
	mu         sync.Mutex
	trees      map[string]map[string]treeEntry
	roots      map[string]string // commit → its root tree
	order      []string          // tree ids, oldest first
	entries    int
	maxEntries int
}

func newTreeCache(maxEntries int) *treeCache {
	return &treeCache{trees: map[string]map[string]treeEntry{}, roots: map[string]string{}, maxEntries: maxEntries}
}

// knownTrees is the trees of every brain this process commits to: ids
// are the same in every repository.
var knownTrees = newTreeCache(100_000)

// listing gives the entries of each of dirs (a folder's parents among
// them) in commit's tree, as git ls-tree -- ./ dir/... lists them: a
// folder commit does not have (or has as a file) is empty. ok is false
// when a tree on the way is not known.
func (c *treeCache) listing(commit string, dirs map[string]map[string]treeEntry) (out map[string]map[string]treeEntry, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	root, ok := c.roots[commit]
	if !ok {
		return nil, false
	}
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool { return depth(order[i]) < depth(order[j]) })
	out = make(map[string]map[string]treeEntry, len(dirs))
	for _, d := range order {
		id := root
		if d != "" {
			e, had := out[parentDir(d)][path.Base(d)]
			if !had || e.typ != "tree" {
				out[d] = map[string]treeEntry{}
				continue
			}
			id = e.oid
		}
		entries, ok := c.trees[id]
		if !ok {
			return nil, false
		}
		cp := make(map[string]treeEntry, len(entries)+1)
		for name, e := range entries {
			cp[name] = e
		}
		out[d] = cp
	}
	return out, true
}

// addTree records the entries of tree id.
func (c *treeCache) addTree(id string, entries map[string]treeEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.trees[id]; ok {
		return
	}
	cp := make(map[string]treeEntry, len(entries))
	for name, e := range entries {
		cp[name] = e
	}
	c.trees[id] = cp
	c.order = append(c.order, id)
	c.entries += len(cp)
	for c.entries > c.maxEntries && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		c.entries -= len(c.trees[old])
		delete(c.trees, old)
	}
}

// addCommit records commit's root tree.
func (c *treeCache) addCommit(commit, root string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.roots) >= 1024 {
		clear(c.roots)
	}
	c.roots[commit] = root
}
