package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockRefusesWhatWasNotApproved is the regression table of what the
// approval lock refuses once a tool is approved: each change leaves the tool
// unable to run (the scan lists it as changed, or its launch's run copy is
// refused), with and without Options.VerifyAtLaunch.
func TestLockRefusesWhatWasNotApproved(t *testing.T) {
	helper := func(root string) string { return filepath.Join(root, "alpha", "lib", "helper.py") }
	tests := []struct {
		name   string
		change func(t *testing.T, root string, r *Registry)
		want   string // in NotReady or the launch's error
	}{
		{"same-size edit, mtime restored", func(t *testing.T, root string, _ *Registry) {
			restoreMtime(t, helper(root), "print('ho')\n")
		}, "~lib/helper.py"},
		{"binary replaced, same size, mtime restored", func(t *testing.T, root string, _ *Registry) {
			restoreMtime(t, filepath.Join(root, "alpha", "bin"), "#!/bin/bh\n")
		}, "~bin"},
		{"file added", func(t *testing.T, root string, _ *Registry) {
			writeFile(t, filepath.Join(root, "alpha", "lib", "sitecustomize.py"), "import os\n", 0o644)
		}, "+lib/sitecustomize.py"},
		{"symlink added", func(t *testing.T, root string, _ *Registry) {
			if err := os.Symlink("/etc/passwd", filepath.Join(root, "alpha", "data")); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink"},
		{"hard-linked file edited from outside", func(t *testing.T, root string, r *Registry) {
			// The approved file has a second name outside the folder: an
			// edit through it (mtime restored) changes the approved bytes.
			outside := filepath.Join(t.TempDir(), "helper.py")
			if err := os.Link(helper(root), outside); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
			restoreMtime(t, outside, "print('ho')\n")
		}, "~lib/helper.py"},
		{"run copy edited", func(t *testing.T, root string, r *Registry) {
			bin, err := RunCopy(alpha(t, r), r.opts.RunDir, r.opts.Hashes)
			if err != nil {
				t.Fatal(err)
			}
			restoreMtime(t, bin, "#!/bin/bh\n")
		}, "~bin"},
		{"MAC changed after its eighth digit", func(t *testing.T, root string, _ *Registry) {
			l, err := ReadLock(root)
			if err != nil {
				t.Fatal(err)
			}
			mac := l.Tools["alpha"].MAC
			last := "0"
			if strings.HasSuffix(mac, "0") {
				last = "1"
			}
			l.Tools["alpha"].MAC = mac[:len(mac)-1] + last
			if err := l.write(root); err != nil {
				t.Fatal(err)
			}
		}, "not signed with this user's approval key"},
		{"another tool's entry copied under its name", func(t *testing.T, root string, r *Registry) {
			addTool(t, root, "beta", "", true)
			writeFile(t, filepath.Join(root, "beta", "lib", "helper.py"), "print('hi')\n", 0o644)
			if _, err := r.Approve([]string{"beta"}, "tester"); err != nil {
				t.Fatal(err)
			}
			l, _ := ReadLock(root)
			l.Tools["alpha"] = l.Tools["beta"]
			if err := l.write(root); err != nil {
				t.Fatal(err)
			}
		}, "not signed with this user's approval key"},
		{"older lock and folder put back", func(t *testing.T, root string, r *Registry) {
			oldLock, err := os.ReadFile(LockPath(root))
			if err != nil {
				t.Fatal(err)
			}
			old, _ := os.ReadFile(helper(root))
			writeFile(t, helper(root), "print('fixed')\n", 0o644)
			if _, err := r.Approve([]string{"alpha"}, "tester"); err != nil {
				t.Fatal(err)
			}
			if tool := alpha(t, r); !tool.Ready {
				t.Fatalf("not ready after the second approval: %s", tool.NotReady)
			}
			writeFile(t, helper(root), string(old), 0o644)
			if err := os.WriteFile(LockPath(root), oldLock, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "older than its latest approval"},
		{"older lock put back, approved again under a relative name", func(t *testing.T, root string, r *Registry) {
			oldLock, err := os.ReadFile(LockPath(root))
			if err != nil {
				t.Fatal(err)
			}
			// The second approval names the plugins folder relatively:
			// it is the same lock, and the same record.
			t.Chdir(filepath.Dir(root))
			rel := New(Options{PluginDirs: []string{filepath.Base(root)}, RequireApproval: true, StateDir: r.opts.StateDir,
				RunDir: r.opts.RunDir, Getenv: r.opts.Getenv})
			writeFile(t, helper(root), "print('fixed')\n", 0o644)
			if _, err := rel.Approve([]string{"alpha"}, "tester"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, helper(root), "print('hi')\n", 0o644)
			if err := os.WriteFile(LockPath(root), oldLock, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "older than its latest approval"},
		{"older lock and folder copied into another plugins folder searched first", func(t *testing.T, root string, r *Registry) {
			// The sequence knows only the lock files this user approved
			// in: a plugins folder that never had one (HOST_PLUGIN_PATH,
			// or the installation's folder, searched before the data
			// folder) has no latest approval to compare with.
			oldLock, err := os.ReadFile(LockPath(root))
			if err != nil {
				t.Fatal(err)
			}
			other := filepath.Join(t.TempDir(), "plugins")
			addTool(t, other, "alpha", "", true)
			writeFile(t, filepath.Join(other, "alpha", "lib", "helper.py"), "print('hi')\n", 0o644)
			writeFile(t, helper(root), "print('fixed')\n", 0o644)
			if _, err := r.Approve([]string{"alpha"}, "tester"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(LockPath(other), oldLock, 0o644); err != nil {
				t.Fatal(err)
			}
			r.opts.PluginDirs = []string{other, root}
			if tool := alpha(t, r); tool.Dir != filepath.Join(other, "alpha") {
				t.Fatalf("alpha loaded from %s, want the copy in %s", tool.Dir, other)
			}
		}, "approved in another lock file"},
	}
	for _, lazy := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(map[bool]string{false: "eager/", true: "lazy/"}[lazy]+tt.name, func(t *testing.T) {
				root, r := lockedRegistry(t)
				r.opts.VerifyAtLaunch = lazy
				if _, err := r.Approve(nil, "tester"); err != nil {
					t.Fatal(err)
				}
				if tool := alpha(t, r); !tool.Ready {
					t.Fatalf("not ready after approve: %s", tool.NotReady)
				}
				tt.change(t, root, r)
				tool := alpha(t, r)
				why := tool.NotReady
				if tool.Ready {
					_, err := RunCopy(tool, r.opts.RunDir, r.opts.Hashes)
					if err == nil {
						t.Fatalf("after %s the tool is ready and its run copy launches", tt.name)
					}
					why = err.Error()
				}
				if !strings.Contains(why, tt.want) {
					t.Fatalf("after %s: refused with %q, want it to say %q", tt.name, why, tt.want)
				}
			})
		}
	}
}

// TestApproveShowsEveryManifestChange: a re-approval lists, as a diff,
// each change of the manifest a person must judge — not only that
// tool.yaml changed — and names the host's own variables it asked for,
// which no plugin gets.
func TestApproveShowsEveryManifestChange(t *testing.T) {
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester"); err != nil {
		t.Fatal(err)
	}
	m := strings.ReplaceAll(validManifest, "%s", "alpha")
	m = strings.Replace(m, "entrypoint: bin", "entrypoint: lib/helper.py\n"+
		"env: [HOST_HTTP_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK]\nexec_path: [/opt/x/bin, /usr/bin]\n"+
		"timeout: 10m\nconcurrency: 64\nmemory: 1GiB\ncpu_time: 1h\n"+
		"secrets:\n  - {name: oauth, env: HOST_OAUTH_CLIENT_SECRET}", 1)
	m = strings.Replace(m, "    read_only: true\n", "    reversible: false\n", 1)
	writeFile(t, filepath.Join(root, "alpha", "tool.yaml"), m, 0o644)
	os.Chmod(filepath.Join(root, "alpha", "lib", "helper.py"), 0o755)
	if tool := alpha(t, r); tool.Ready || !strings.Contains(tool.NotReady, "+ env: HOST_HTTP_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK") {
		t.Fatalf("host list says %q; want the env change in it", tool.NotReady)
	}
	changes, err := r.Approve([]string{"alpha"}, "tester")
	if err != nil {
		t.Fatal(err)
	}
	what := strings.Join(changes[0].What, "\n")
	for _, want := range []string{
		"action list-credentials was read-only, is now irreversible",
		"- entrypoint: bin\n+ entrypoint: lib/helper.py",
		"- env: none\n+ env: HOST_HTTP_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK",
		"- secrets: none\n+ secrets: oauth from $HOST_OAUTH_CLIENT_SECRET",
		"- PATH: the system's fixed PATH\n+ PATH: /opt/x/bin:/usr/bin",
		"- timeout: 30s\n+ timeout: 10m0s",
		"- concurrency: 4\n+ concurrency: 64",
		"- memory: no limit\n+ memory: 1024 MiB",
		"- cpu_time: no limit\n+ cpu_time: 1h0m0s",
		"new secret: oauth",
		"withheld: HOST_HTTP_TOKEN is the host's own",
		"withheld: HOST_OAUTH_CLIENT_SECRET is the host's own",
	} {
		if !strings.Contains(what, want) {
			t.Errorf("approve says:\n%s\nwant it to say:\n%s", what, want)
		}
	}
	if strings.Contains(what, "withheld: AWS_SECRET_ACCESS_KEY") {
		t.Errorf("a variable the plugin does get is called withheld:\n%s", what)
	}
}

// TestLockEntryBelongsToItsLockFile: an entry's signature names the lock
// file it was approved in, and the sequence counts per lock file, so a
// person may approve one tool name in two plugins folders and both run,
// while a plugins folder moved or renamed waits for a person again.
func TestLockEntryBelongsToItsLockFile(t *testing.T) {
	t.Run("same name approved in two plugins folders", func(t *testing.T) {
		_, r := lockedRegistry(t)
		other := filepath.Join(t.TempDir(), "plugins")
		addTool(t, other, "alpha", "", true)
		r2 := New(Options{PluginDirs: []string{other}, RequireApproval: true, StateDir: r.opts.StateDir,
			RunDir: r.opts.RunDir, Getenv: r.opts.Getenv})
		for _, reg := range []*Registry{r, r2, r} {
			if _, err := reg.Approve(nil, "tester"); err != nil {
				t.Fatal(err)
			}
		}
		for _, reg := range []*Registry{r, r2} {
			if tool := alpha(t, reg); !tool.Ready {
				t.Fatalf("alpha in %s not ready after both approvals: %s", reg.opts.PluginDirs[0], tool.NotReady)
			}
		}
	})
	t.Run("plugins folder renamed", func(t *testing.T) {
		root, r := lockedRegistry(t)
		if _, err := r.Approve(nil, "tester"); err != nil {
			t.Fatal(err)
		}
		moved := filepath.Join(filepath.Dir(root), "renamed")
		if err := os.Rename(root, moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(LockPath(root), LockPath(moved)); err != nil {
			t.Fatal(err)
		}
		r.opts.PluginDirs = []string{moved}
		if tool := alpha(t, r); tool.Ready || !strings.Contains(tool.NotReady, "approved in another lock file") {
			t.Fatalf("renamed folder: ready=%v %q, want it refused naming the other lock file", tool.Ready, tool.NotReady)
		}
		if _, err := r.Approve([]string{"alpha"}, "tester"); err != nil {
			t.Fatal(err)
		}
		if tool := alpha(t, r); !tool.Ready {
			t.Fatalf("renamed folder approved again: not ready: %s", tool.NotReady)
		}
	})
	t.Run("entry signed before the lock file was", func(t *testing.T) {
		root, r := lockedRegistry(t)
		if _, err := r.Approve(nil, "tester"); err != nil {
			t.Fatal(err)
		}
		key, err := ReadKey(r.opts.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		l, err := ReadLock(root)
		if err != nil {
			t.Fatal(err)
		}
		a := l.Tools["alpha"]
		c := *a
		c.MAC = ""
		body, _ := json.Marshal(struct {
			Name string    `json:"name"`
			A    *Approval `json:"approval"`
		}{"alpha", &c})
		a.MAC = macHex(key, body)
		if err := l.write(root); err != nil {
			t.Fatal(err)
		}
		if tool := alpha(t, r); tool.Ready || !strings.Contains(tool.NotReady, "older toolhost") {
			t.Fatalf("entry without its lock file signed: ready=%v %q", tool.Ready, tool.NotReady)
		}
	})
}
