package registry

import (
	"path/filepath"
	"testing"
)

// TestDefaultDirs: the state and data folders follow the XDG variables
// and, when they are unset, the home folder's defaults.
func TestDefaultDirs(t *testing.T) {
	tests := []struct {
		name      string
		xdg       bool
		wantState string // below the root
		wantData  string
	}{
		{"XDG variables", true, "state/toolhost", "data/toolhost"},
		{"home defaults", false, "home/.local/state/toolhost", "home/.local/share/toolhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("HOME", filepath.Join(root, "home"))
			t.Setenv("XDG_STATE_HOME", "")
			t.Setenv("XDG_DATA_HOME", "")
			if tt.xdg {
				t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
				t.Setenv("XDG_DATA_HOME", filepath.Join(root, "data"))
			}
			if got, want := DefaultStateDir(), filepath.Join(root, tt.wantState); got != want {
				t.Errorf("DefaultStateDir() = %s, want %s", got, want)
			}
			if got, want := DefaultDataDir(), filepath.Join(root, tt.wantData); got != want {
				t.Errorf("DefaultDataDir() = %s, want %s", got, want)
			}
		})
	}
}
