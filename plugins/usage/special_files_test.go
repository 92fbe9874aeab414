//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestFIFOAndDeviceAreSkipped runs the real binary on a home where a
// Claude Code session log is a FIFO and a Codex rollout is a link to
// /dev/zero: neither is read (no wait for a writer, no endless read), both
// are listed in degraded, and the real log beside them is still counted.
func TestFIFOAndDeviceAreSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testplugin.Plugin(t, "usage")
	home := t.TempDir()
	const sess = "5f0c2f9e-5555-4a4a-9b9b-000000000007"
	proj := filepath.Join(home, ".claude", "projects", "-home-dev-ok")
	testplugin.WriteFile(t, filepath.Join(proj, sess+".jsonl"),
		claudeLine(false, "/home/dev/ok", sess, "msg_ok", "req_ok", "claude-sonnet-4-6", "2026-06-09T10:00:00.000Z", claudeUsage(10, 0, 0, 10, "")))
	fifo := filepath.Join(proj, "5f0c2f9e-5555-4a4a-9b9b-00000000fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Should the binary open the FIFO and wait, a writer that opens and
	// closes it at the end lets it go.
	t.Cleanup(func() {
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	})
	day := filepath.Join(home, ".codex", "sessions", "2026", "06", "09")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(day, "rollout-2026-06-09T10-00-00-zero.jsonl")); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "get-usage", "--json", `{"from":"2026-06-09","to":"2026-06-09","by":"model","timezone":"UTC"}`)
	cmd.Env = []string{"HOME=" + home}
	out, _, code := testplugin.Run(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("usage was still reading after 30 s (the FIFO or /dev/zero was opened): %s", out)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var u usageOut
	if err := json.Unmarshal(out, &u); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(u.Rows) != 1 || u.Rows[0].Calls != 1 {
		t.Errorf("rows = %+v, want the one real call", u.Rows)
	}
	var reasons []string
	for _, d := range u.Degraded {
		reasons = append(reasons, d.Provider+": "+d.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{"claude: 5f0c2f9e-5555-4a4a-9b9b-00000000fifo.jsonl: not a regular file", "codex: rollout-2026-06-09T10-00-00-zero.jsonl: not a regular file"} {
		if !strings.Contains(all, want) {
			t.Errorf("degraded lacks %q:\n%s", want, all)
		}
	}
}
