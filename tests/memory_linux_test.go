//go:build linux

package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestHostMemoryComesBackAfterBadInput: a burst of bad lines on stdio —
// not JSON, nested past any decoder's limit, longer than the line limit,
// and valid but large — is answered line by line, and the host's resident
// memory comes back near where it was before the burst, instead of
// staying at the burst's peak for the rest of the session.
func TestHostMemoryComesBackAfterBadInput(t *testing.T) {
	w := newEnv(t).startWire(t)
	w.initialize()
	pid := w.cmd.Process.Pid
	w.Call(`{"jsonrpc":"2.0","id":"warm","method":"ping"}`)
	before, err := testplugin.RSS(pid)
	must(t, err)

	const mb = 1 << 20
	filler := strings.Repeat("x", 12*mb)
	burst := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"` + filler, // cut short
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":"` + filler + filler + `"}}`, // over the line limit
		`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":"` + filler + `"}}`,          // valid, large
	}
	for round := range 6 {
		for _, line := range burst {
			w.Send(line)
		}
		// Each line is answered before the next round goes out.
		w.Call(fmt.Sprintf(`{"jsonrpc":"2.0","id":"round-%d","method":"ping"}`, round))
	}
	peak, err := testplugin.RSS(pid)
	must(t, err)

	// The host hands a burst's freed pages back soon after it (the
	// runtime alone keeps them for minutes); checked every half second.
	const slack = 64 * mb
	after := peak
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if after, err = testplugin.RSS(pid); err != nil {
			t.Fatal(err)
		}
		if after <= before+slack {
			break
		}
	}
	t.Logf("host RSS: %d MiB before the burst, %d MiB after it, %d MiB once settled", before/mb, peak/mb, after/mb)
	if after > before+slack {
		t.Errorf("host RSS stayed at %d MiB after a burst of bad lines (%d MiB before it): want within %d MiB of before", after/mb, before/mb, slack/mb)
	}
	w.Call(`{"jsonrpc":"2.0","id":"still","method":"ping"}`)
	must(t, w.closeAndWait())
}
