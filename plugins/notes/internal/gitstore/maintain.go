package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Maintain runs git maintenance run --auto, as git commit does after every
// commit (git packs what needs it); the caller may work meanwhile and waits
// on the result. When git's own conditions show the run would do nothing
// (MaintenanceDue), no process starts and the result is empty.
func (pc *PendingCommit) Maintain(ctx context.Context) *Proc {
	if !pc.g.MaintenanceDue(ctx) {
		return &Proc{}
	}
	p, err := pc.g.start(ctx, "maintenance", "run", "--auto", "--quiet")
	if err != nil {
		return &Proc{err: err}
	}
	p.closeInput()
	return p
}

// MaintenanceDue reports whether git maintenance run --auto could do
// anything in the repository, by the checks git itself makes before it
// does: git commit skips it when maintenance.auto is false; otherwise,
// with no maintenance.* key set, the gc task is the only one enabled, and
// it runs when folder 17 of the loose objects holds more than gc.auto/256
// of them (git's own estimate of the loose objects) or more than
// gc.autoPackLimit local packs have no .keep. Anything this cannot read
// with certainty (a git newer than these rules are known for, a key set,
// a value it does not parse, a .git that is not a folder) answers true, and
// git decides.
func (g Runner) MaintenanceDue(ctx context.Context) bool {
	if !autoRulesKnown(ctx) {
		return true
	}
	gitDir := filepath.Join(g.Dir, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return true
	}
	cfg, ok := repoConfig(ctx, g, gitDir)
	if !ok {
		return true
	}
	if !cfg.auto {
		return false
	}
	if cfg.other {
		return true
	}
	if cfg.gcAuto <= 0 {
		return false
	}
	return tooManyPacks(gitDir, cfg.packLimit) || tooManyLoose(gitDir, (cfg.gcAuto+255)/256)
}

// tooManyLoose is git's estimate: more than limit loose objects in folder 17.
func tooManyLoose(gitDir string, limit int) bool {
	entries, err := os.ReadDir(filepath.Join(gitDir, "objects", "17"))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	n := 0
	for _, e := range entries {
		if name := e.Name(); (len(name) == 38 || len(name) == 62) && strings.Trim(name, "0123456789abcdef") == "" {
			n++
			if n > limit {
				return true
			}
		}
	}
	return false
}

// tooManyPacks reports more than limit packs (an index with its pack) in
// the repository's own pack folder without a .keep file; limit 0 or less
// turns the check off, as in git.
func tooManyPacks(gitDir string, limit int) bool {
	if limit <= 0 {
		return false
	}
	dir := filepath.Join(gitDir, "objects", "pack")
	idx, err := filepath.Glob(filepath.Join(dir, "*.idx"))
	if err != nil {
		return true
	}
	n := 0
	for _, p := range idx {
		base := strings.TrimSuffix(p, ".idx")
		if _, err := os.Stat(base + ".pack"); err != nil {
			continue
		}
		if _, err := os.Stat(base + ".keep"); err == nil {
			continue
		}
		n++
	}
	return n > limit
}

// configKeys is what the brain reads of a repository's configuration:
// what automatic maintenance does and where the attributes file is.
type configKeys struct {
	auto              bool   // maintenance.auto
	other             bool   // a maintenance.* key besides maintenance.auto, or a value not understood
	gcAuto, packLimit int    // gc.auto, gc.autoPackLimit
	attributesFile    string // core.attributesFile
}

var configs = struct {
	sync.Mutex
	byDir map[string]cachedConfig
}{byDir: map[string]cachedConfig{}}

type cachedConfig struct {
	stamp fileStamp
	cfg   configKeys
}

// repoConfig reads the keys of configKeys with git config, again only when
// .git/config changed: every git call runs without the user's and the
// system's configuration, and a brain's config may not include another
// file (ConfigHazards).
func repoConfig(ctx context.Context, g Runner, gitDir string) (configKeys, bool) {
	st := stampOf(filepath.Join(gitDir, "config"))
	if !st.exists {
		return configKeys{}, false
	}
	configs.Lock()
	c, ok := configs.byDir[gitDir]
	configs.Unlock()
	if ok && c.stamp == st {
		return c.cfg, true
	}
	out, err := g.Run(ctx, "config", "--local", "--get-regexp", `^(maintenance\..*|gc\.auto|gc\.autopacklimit|core\.attributesfile)$`)
	var ge *Error
	if err != nil && !(errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "") {
		return configKeys{}, false
	}
	cfg := configKeys{auto: true, gcAuto: 6700, packLimit: 50}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "maintenance.auto":
			switch strings.ToLower(val) {
			case "false", "no", "off", "0":
				cfg.auto = false
			case "true", "yes", "on", "1", "":
			default:
				cfg.other = true
			}
		case "core.attributesfile":
			cfg.attributesFile = val
		case "gc.auto", "gc.autopacklimit":
			n, err := strconv.Atoi(val)
			if err != nil {
				cfg.other = true
				continue
			}
			if key == "gc.auto" {
				cfg.gcAuto = n
			} else {
				cfg.packLimit = n
			}
		default:
			if strings.HasPrefix(key, "maintenance.") {
				cfg.other = true
			}
		}
	}
	configs.Lock()
	configs.byDir[gitDir] = cachedConfig{stamp: st, cfg: cfg}
	configs.Unlock()
	return cfg, true
}

// autoRulesKnown reports whether the git in use is one whose automatic
// maintenance runs only the gc task unless configured otherwise: git
// 2.29 (git maintenance) up to 2.52. Later versions change the default
// strategy.
var autoRulesKnown = func() func(context.Context) bool {
	var once sync.Once
	var known bool
	return func(ctx context.Context) bool {
		once.Do(func() {
			out, err := Runner{}.Run(ctx, "version")
			if err != nil {
				return
			}
			major, minor, ok := parseVersion(out)
			known = ok && major == 2 && minor >= 29 && minor <= 52
		})
		return known
	}
}()

// parseVersion reads "git version 2.39.5 (extra)" as 2 and 39.
func parseVersion(out string) (major, minor int, ok bool) {
	f := strings.Fields(out)
	if len(f) < 3 || f[0] != "git" || f[1] != "version" {
		return 0, 0, false
	}
	parts := strings.SplitN(f[2], ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}
