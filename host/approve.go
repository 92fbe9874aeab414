package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/cli/table"
	"github.com/toolhost/toolhost/host/internal/audit"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/python"
)

func newApproveCmd() *cobra.Command {
	var all, tracked, shippedOnly bool
	cmd := &cobra.Command{
		Use:   "approve TOOL… | --all | --tracked | --shipped",
		Short: "Approve plugin folders as they are now, showing what changed since the last approval",
		Long: "Approve records each tool's whole plugin folder (entrypoint, side files, manifest) in the lock file\n" +
			"beside its plugins folder (plugins/ → plugins.lock), signed with this user's approval key. The host\n" +
			"runs only approved folders; a serving host picks the approval up without a restart.\n\n" +
			"--tracked approves only the folders whose files git tracks unmodified (and, for a Go plugin, the\n" +
			"module's packages it is built from): what `make build` runs, so a folder an agent wrote stays new.\n" +
			"Besides the built binary and the Python runtime's copies, it accepts a node_modules folder beside a\n" +
			"tracked package-lock.json when every file in it equals its package's tarball in npm's cache.\n\n" +
			"--shipped, in an installation unpacked from a release archive, approves only the plugin folders\n" +
			"that are exactly as the release shipped them: each folder's digest must equal the one `make release`\n" +
			"built into this binary (verify the archive's checksum first; see README.md, Install).",
		RunE: func(cmd *cobra.Command, args []string) error {
			flags := 0
			for _, on := range []bool{all, tracked, shippedOnly} {
				if on {
					flags++
				}
			}
			if (len(args) > 0) == (flags > 0) || flags > 1 {
				return errors.New("name the tools to approve, or give one of --all (every tool), --tracked (the ones git tracks unmodified) " +
					"or --shipped (the ones a release archive shipped, unchanged)")
			}
			a := newAppDev(cmd.ErrOrStderr(), hclog.Warn, false, false)
			defer a.close()
			out := cmd.OutOrStdout()
			how := "host approve"
			names := args
			if tracked {
				how = "host approve --tracked (files tracked unmodified in git)"
				names = nil
				for _, t := range a.registry.Scan().Tools {
					if why := gitUnclean(t); why != "" {
						fmt.Fprintf(out, "left for a person to approve: %s: %s (check the folder, then %s)\n", t.Name(), why, hostCmd("approve "+t.Name()))
						continue
					}
					names = append(names, t.Name())
				}
				if len(names) == 0 {
					return nil
				}
			}
			approve := a.registry.Approve
			if shippedOnly {
				how = "host approve --shipped (files as the release archive shipped them)"
				var err error
				if names, err = shippedToApprove(out, a.registry.Scan(), shippedPluginsDir()); err != nil || len(names) == 0 {
					return err
				}
				approve = func(names []string, by string) ([]registry.Change, error) {
					return a.registry.ApproveDigests(names, shippedDigests(), by)
				}
			}
			changes, err := approve(names, approver()+" via "+how)
			if err != nil {
				return err
			}
			printApproval(out, changes)
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "approve every tool and agent found")
	cmd.Flags().BoolVar(&tracked, "tracked", false, "approve only plugin folders whose sources git tracks unmodified")
	cmd.Flags().BoolVar(&shippedOnly, "shipped", false, "approve only the plugin folders a release archive shipped, unchanged since unpacking")
	return cmd
}

// approver names the person approving: the login user.
func approver() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if n := os.Getenv("USER"); n != "" {
		return n
	}
	return "unknown user"
}

// printApproval says, per tool, what was approved and what had changed.
func printApproval(w io.Writer, changes []registry.Change) {
	for _, c := range changes {
		if c.Skipped != "" {
			fmt.Fprintf(w, "%s: not approved: %s\n", c.Tool, c.Skipped)
			continue
		}
		switch c.Was {
		case registry.ApprovalOK:
			fmt.Fprintf(w, "%s: already approved, unchanged\n", c.Tool)
			continue
		case registry.ApprovalNew:
			fmt.Fprintf(w, "%s: approved (it was new) in %s\n", c.Tool, c.Lock)
		default:
			fmt.Fprintf(w, "%s: approved (it had changed) in %s\n", c.Tool, c.Lock)
		}
		for _, line := range c.What {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}

// gitUnclean says why a plugin folder is not one whose sources git tracks
// unmodified, or "" when it is. The only files git may not track, and only
// as ignored files, are the built entrypoint and the Python runtime's files
// that `make plugins` copies from sdk/python unchanged, and a node_modules
// folder that `npm ci` filled from a package-lock.json git tracks beside it
// (npmLocked: each file equal to its package's tarball in npm's cache, the
// tarball checked against the lockfile's integrity). For a Go plugin the
// module's own packages it imports, go.mod and go.sum must be clean too.
func gitUnclean(t *registry.Tool) string {
	top, err := git(t.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "not inside a git work tree"
	}
	top = strings.TrimSpace(top)
	if _, err := git(t.Dir, "ls-files", "--error-unmatch", "--", "tool.yaml"); err != nil {
		return "git does not track its tool.yaml"
	}
	entry, _ := filepath.Rel(top, t.Binary)
	status, err := git(t.Dir, "status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--", ".")
	if err != nil {
		return "git status failed: " + err.Error()
	}
	var dirty []string
	npm := newNPMLocked(top)
	for _, rec := range strings.Split(status, "\x00") {
		if len(rec) < 4 {
			continue
		}
		code, path := rec[:2], rec[3:]
		if code == "!!" && (filepath.FromSlash(path) == entry || python.IsRuntimeCopy(filepath.Join(top, path))) {
			continue
		}
		if code == "!!" {
			ok, why := npm.accepts(path)
			if ok {
				continue
			}
			if why != "" {
				return "files git ignores that npm ci did not produce from a tracked package-lock.json: " + why
			}
		}
		dirty = append(dirty, strings.TrimSpace(code)+" "+path)
	}
	if len(dirty) > 0 {
		return "files not tracked unmodified in git: " + strings.Join(first(dirty, 5), ", ")
	}
	if goFiles, _ := filepath.Glob(filepath.Join(t.Dir, "*.go")); len(goFiles) == 0 {
		return ""
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", ".")
	cmd.Dir = t.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	deps, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("go list could not name the packages it is built from: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	paths := []string{"go.mod", "go.sum"}
	for _, d := range strings.Fields(string(deps)) {
		if rel, err := filepath.Rel(top, d); err == nil && !strings.HasPrefix(rel, "..") {
			paths = append(paths, rel)
		}
	}
	status, err = git(top, append([]string{"status", "--porcelain=v1", "--untracked-files=all", "--"}, paths...)...)
	if err != nil {
		return "git status failed: " + err.Error()
	}
	if lines := strings.Split(strings.TrimSpace(status), "\n"); lines[0] != "" {
		return "the Go sources it is built from are not tracked unmodified in git: " + strings.Join(first(lines, 5), ", ")
	}
	return ""
}

func first(l []string, n int) []string {
	if len(l) > n {
		return append(l[:n:n], fmt.Sprintf("… %d more", len(l)-n))
	}
	return l
}

// git runs git in dir and returns its stdout.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func newAuditCmd() *cobra.Command {
	var since, tool string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit [--since 24h|2026-01-02|RFC3339] [--tool NAME] [--json]",
		Short: "Show the audit log: every confirmed call and every refused irreversible or unapproved call",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := audit.Filter{Tool: tool}
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return err
				}
				f.Since = t
			}
			path := filepath.Join(registry.DefaultStateDir(), audit.FileName)
			entries, err := audit.Read(path, f)
			if err != nil {
				return err
			}
			if asJSON {
				if entries == nil {
					entries = []audit.Entry{}
				}
				return writeJSON(cmd.OutOrStdout(), entries)
			}
			if len(entries) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no audited calls in %s\n", path)
				return nil
			}
			tab := table.Table{Header: []string{"TIME", "CLIENT", "TOOL", "ACTION", "ARGS", "CONFIRMED", "OUTCOME"},
				Priority: []int{6, 1, 5, 4, 0, 2, 3}, Width: terminalWidth(cmd), LeftOut: "`" + invokedAs + " audit --json` shows them"}
			for _, e := range entries {
				client := e.Client
				if e.Agent != "" {
					client += " → " + e.Agent
				}
				outcome := e.Outcome
				if e.Request != "" {
					// A hosted MCP server's request during the call.
					outcome = e.Request + ": " + e.Outcome
				}
				tab.Rows = append(tab.Rows, []string{e.Time.Local().Format(time.DateTime), client, e.Tool, e.Action,
					strings.Join(e.Args, ", "), strconv.FormatBool(e.Confirmed), outcome})
			}
			return tab.Fprint(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only entries since this long ago (24h, 7d) or this date/time (2026-01-02, RFC 3339)")
	cmd.Flags().StringVar(&tool, "tool", "", "only this tool's or agent's entries")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// parseSince reads --since: a duration back from now (Go's, or whole days
// as 7d), a date, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(d, "%d", &n); err == nil && fmt.Sprint(n) == d {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give a duration (24h, 7d), a date (2026-01-02) or an RFC 3339 time", s)
}
