package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// npmLocked checks an ignored node_modules folder that `npm ci` produced
// from a package-lock.json git tracks, so `host approve --tracked` can
// accept it: every file must be a file of a package the lockfile pins,
// byte for byte equal to that package's tarball in npm's cache (the
// tarball found by, and checked against, the lockfile's sha512
// integrity). Besides those, only npm's own record (.package-lock.json)
// and the Makefile's empty .installed stamp may sit there.
type npmLocked struct {
	top   string // the git work tree
	cache string // npm's cache folder
	// ok holds the work-tree-relative slash paths of the node_modules
	// folders already found sound; bad holds why one is not.
	ok  map[string]bool
	bad map[string]string
}

func newNPMLocked(top string) *npmLocked {
	return &npmLocked{top: top, cache: npmCacheDir(), ok: map[string]bool{}, bad: map[string]string{}}
}

// npmCacheDir is npm's cache folder: $npm_config_cache, else ~/.npm.
func npmCacheDir() string {
	if d := os.Getenv("npm_config_cache"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".npm")
}

// accepts says whether rel (an ignored path git reports, slash-separated,
// relative to the work tree, a folder when it ends in "/") is a
// node_modules folder, or a path inside one, that npm ci produced from a
// tracked, unmodified package-lock.json beside it. When it is not, why
// says what is wrong ("" when rel is not under a node_modules at all).
func (n *npmLocked) accepts(rel string) (ok bool, why string) {
	i := strings.Index(rel, "node_modules/")
	if i < 0 || (i > 0 && rel[i-1] != '/') {
		return false, ""
	}
	nm := rel[:i+len("node_modules")]
	if n.ok[nm] {
		return true, ""
	}
	if why, seen := n.bad[nm]; seen {
		return false, why
	}
	if err := n.check(nm); err != nil {
		n.bad[nm] = err.Error()
		return false, n.bad[nm]
	}
	n.ok[nm] = true
	return true, ""
}

type npmLock struct {
	Packages map[string]struct {
		Version   string `json:"version"`
		Integrity string `json:"integrity"`
		Link      bool   `json:"link"`
	} `json:"packages"`
}

func (n *npmLocked) check(nm string) error {
	dir := filepath.Join(n.top, filepath.FromSlash(nm))
	lockRel := path.Join(path.Dir(nm), "package-lock.json")
	if _, err := git(n.top, "ls-files", "--error-unmatch", "--", lockRel); err != nil {
		return fmt.Errorf("%s/ has no package-lock.json beside it that git tracks", nm)
	}
	if st, _ := git(n.top, "status", "--porcelain=v1", "--", lockRel); strings.TrimSpace(st) != "" {
		return fmt.Errorf("%s is modified", lockRel)
	}
	raw, err := os.ReadFile(filepath.Join(n.top, filepath.FromSlash(lockRel)))
	if err != nil {
		return fmt.Errorf("read %s: %w", lockRel, err)
	}
	var lock npmLock
	if err := json.Unmarshal(raw, &lock); err != nil {
		return fmt.Errorf("parse %s: %w", lockRel, err)
	}
	// Each package folder the lockfile pins, with the files its tarball holds.
	want := map[string]map[string][]byte{}
	for key, p := range lock.Packages {
		if key == "" {
			continue
		}
		if p.Link || !strings.HasPrefix(key, "node_modules/") || p.Integrity == "" {
			return fmt.Errorf("%s pins %s without a registry tarball's integrity", lockRel, key)
		}
		files, err := n.tarball(p.Integrity)
		if err != nil {
			return fmt.Errorf("%s (%s %s): %w", nm, strings.TrimPrefix(key, "node_modules/"), p.Version, err)
		}
		want[strings.TrimPrefix(key, "node_modules/")] = files
	}
	seen := map[string]int{}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(dir, p)
		r = filepath.ToSlash(r)
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s/%s is not a regular file", nm, r)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case r == ".installed" && len(got) == 0:
			return nil
		case r == ".package-lock.json":
			return nil // npm's record of what it installed; nothing reads it but npm
		}
		// The package holding r is the deepest one whose folder r is in: a
		// package's own node_modules holds the versions it needs besides
		// the top-level ones (body-parser/node_modules/content-type).
		owner := ""
		for pkg := range want {
			if strings.HasPrefix(r, pkg+"/") && len(pkg) > len(owner) {
				owner = pkg
			}
		}
		if owner == "" {
			return fmt.Errorf("%s/%s belongs to no package %s pins", nm, r, lockRel)
		}
		if w, in := want[owner][strings.TrimPrefix(r, owner+"/")]; in && bytes.Equal(w, got) {
			seen[owner]++
			return nil
		}
		return fmt.Errorf("%s/%s is not in %s's tarball as the lockfile pins it", nm, r, owner)
	})
}

// tarball reads the package tarball whose sha512 integrity is given from
// npm's content-addressed cache, checks the hash, and returns its regular
// files by path below the tarball's top folder.
func (n *npmLocked) tarball(integrity string) (map[string][]byte, error) {
	b64, ok := strings.CutPrefix(integrity, "sha512-")
	if !ok {
		return nil, fmt.Errorf("integrity %q is not sha512", integrity)
	}
	sum, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("integrity %q: %w", integrity, err)
	}
	h := hex.EncodeToString(sum)
	p := filepath.Join(n.cache, "_cacache", "content-v2", "sha512", h[:2], h[2:4], h[4:])
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("npm's cache (%s) no longer holds its tarball to compare with", n.cache)
	}
	if err != nil {
		return nil, err
	}
	if got := sha512.Sum512(raw); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("the cached tarball %s does not match its integrity", p)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("read tarball %s: %w", p, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read tarball %s: %w", p, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		_, name, _ := strings.Cut(path.Clean(hdr.Name), "/")
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("read tarball %s: %w", p, err)
		}
		files[name] = b
	}
}
