package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPluginPathEmptyEntryKeepsTheDefaults: HOST_PLUGIN_PATH names the
// folders exactly, and an empty entry in it stands for the default folders.
func TestPluginPathEmptyEntryKeepsTheDefaults(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	defs := defaultPluginPath()
	sep := string(os.PathListSeparator)
	for _, tc := range []struct {
		env  string
		want []string
	}{
		{"", defs},
		{"/a", []string{"/a"}},
		{"/a" + sep, append([]string{"/a"}, defs...)},
		{sep + "/a", append(slices.Clone(defs), "/a")},
		{"/a" + sep + sep + "/b" + sep, append(append([]string{"/a"}, defs...), "/b")},
	} {
		t.Setenv("HOST_PLUGIN_PATH", tc.env)
		if got := pluginPath(); !slices.Equal(got, tc.want) {
			t.Errorf("HOST_PLUGIN_PATH=%q: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestNewPluginAdviceKeepsTheShippedPlugins follows new-plugin's advice
// for a folder the host does not read: the host then reads that folder and
// still the default ones, where the shipped plugins are.
func TestNewPluginAdviceKeepsTheShippedPlugins(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "mine")
	for _, cur := range []string{"", "/elsewhere" + string(os.PathListSeparator)} {
		t.Setenv("HOST_PLUGIN_PATH", cur)
		msg := notOnPluginPath("hello", dir)
		m := regexp.MustCompile(`HOST_PLUGIN_PATH=([^\s,]+)`).FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("HOST_PLUGIN_PATH=%q: the advice names no value: %s", cur, msg)
		}
		t.Setenv("HOST_PLUGIN_PATH", m[1])
		got := pluginPath()
		if !slices.Contains(got, dir) {
			t.Errorf("following %q the host does not read %s: %q", msg, dir, got)
		}
		for _, d := range defaultPluginPath() {
			if !slices.Contains(got, d) {
				t.Errorf("following %q the host no longer reads the default %s: %q", strings.TrimSpace(msg), d, got)
			}
		}
	}
}
