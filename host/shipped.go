package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/registry"
)

// shipped is, in a release built by `make release` (internal/release), the
// plugin folders the release's archive holds: "name=sha256:…" entries
// separated by commas, each the registry's FolderDigest Sum of that folder
// as unpacked, set with -ldflags -X. A build from source leaves it empty.
// It lives in the binary, not in a file beside the plugins, so whatever
// can write to the plugins folder cannot add to it: only a changed binary
// could, and a changed binary is not the release the person verified.
var shipped = ""

// shippedPluginsDir is the folder the release's plugins unpack into: the
// installation's plugins/.
var shippedPluginsDir = func() string { return filepath.Join(installDir(), "plugins") }

// shippedDigests reads shipped: plugin name to folder digest.
func shippedDigests() map[string]string {
	out := map[string]string{}
	for _, e := range strings.Split(shipped, ",") {
		if name, sum, ok := strings.Cut(e, "="); ok && name != "" && sum != "" {
			out[name] = sum
		}
	}
	return out
}

// shippedToApprove picks, of snap's tools, the ones `approve --shipped`
// approves: a plugin folder in the installation's plugins folder whose
// name this release shipped and whose files are, byte for byte and bit for
// bit, the ones it shipped (its folder digest equals the one built into
// the binary). Every other tool is named on out with why it was left for
// a person. It fails when the binary knows no shipped plugins.
func shippedToApprove(out io.Writer, snap *registry.Snapshot, pluginsDir string) ([]string, error) {
	want := shippedDigests()
	if len(want) == 0 {
		return nil, fmt.Errorf("approve --shipped: this %s was built from source, not by `make release`, so it knows of no shipped plugins: "+
			"in a clone run %s, or approve each plugin by name with %s", invokedAs, hostCmd("approve --tracked"), hostCmd("approve NAME"))
	}
	pluginsDir = canonical(pluginsDir)
	var names []string
	for _, t := range snap.Tools {
		sum, ok := want[t.Name()]
		why := ""
		switch {
		case !ok:
			why = "not one of the plugins this release shipped"
		case canonical(t.Dir) != filepath.Join(pluginsDir, t.Name()):
			why = "not in the release's plugins folder " + pluginsDir
		case t.Digest == "":
			why = t.NotReady
		case t.Digest != sum:
			why = "its files are not the ones this release shipped (changed since the archive was unpacked)"
		}
		if why != "" {
			fmt.Fprintf(out, "left for a person to approve: %s: %s (check the folder, then %s)\n", t.Name(), why, hostCmd("approve "+t.Name()))
			continue
		}
		names = append(names, t.Name())
	}
	sort.Strings(names)
	return names, nil
}

// shippedNotApproved names the plugins this release shipped that are in
// its plugins folder and not approved: what `install-client` reminds the
// person to approve. A build from source names none.
func shippedNotApproved(snap *registry.Snapshot) []string {
	want := shippedDigests()
	dir := canonical(shippedPluginsDir())
	var names []string
	for _, t := range snap.Tools {
		if _, ok := want[t.Name()]; ok && t.Approval != registry.ApprovalOK && canonical(t.Dir) == filepath.Join(dir, t.Name()) {
			names = append(names, t.Name())
		}
	}
	sort.Strings(names)
	return names
}

// canonical is dir absolute, its links resolved where it exists.
func canonical(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Clean(dir)
}
